"""What a family's declaration (``ir_bright/families/<name>.json``) may hold, key by key: each
block is a typed, immutable ``NamedTuple`` read by :mod:`.typed`, so a wrong or unknown key, or
a value of the wrong type, stops the package when the file is read, naming the file and the key.

Standard library only, and NamedTuples rather than dataclasses: the declarations are read when
``ir_bright`` is imported, and a NamedTuple class is made about ten times faster. Their
mappings are never changed (a default ``{}`` is shared).
"""

from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

__all__ = [
    "LAYOUTS",
    "Layout",
    "Collection",
    "FilePin",
    "KnownRevision",
    "RevisionChange",
    "Comparability",
    "KnownRevisions",
    "Hub",
    "Count",
    "Domain",
    "DocumentSet",
    "QuerySet",
    "GroupSpec",
    "BenchmarkSpec",
    "Tables",
    "RecordField",
    "RecordSpec",
    "Expansions",
    "Declaration",
]

LAYOUTS = ("bright-parquet", "beir-jsonl", "mteb-parquet")
"""The on-disk layouts a family's files may be in (:mod:`ir_bright.families.layouts`):
BRIGHT's parquet configs (``<config>/<domain>.parquet``: ``examples``, ``documents``,
``long_documents``, the reasoning configs), BEIR's JSON Lines (``corpus.jsonl``,
``queries.jsonl``, ``qrels/<split>.tsv``) and MTEB's parquet configs (``corpus``, ``queries``,
``qrels``, ``top_ranked``)."""

Layout = Literal["bright-parquet", "beir-jsonl", "mteb-parquet"]

OFFICIAL_DEPTH = 1000
"""How many documents of each query's ranking the official protocol keeps: BRIGHT's, cut by
every ``Official(...)`` measure (:mod:`ir_bright.scoring.protocol`), and the depth of a run
(BM25, fusion) for a dataset whose family declares no other. The one place this number is
written; this module imports nothing but the standard library, so the command line's parsers
read it too."""


class Collection(NamedTuple):
    """The documentation and facts of the whole benchmark (its bare id's)."""

    pretty_name: str
    desc: str
    bibtex: str
    website: str
    official_measures: tuple[str, ...] = ()
    licence: str | None = None
    published_totals: Mapping[str, int] = {}
    """Totals the benchmark's paper or card publishes (for the tests and docs)."""


class Protocol(NamedTuple):
    """How a family's runs are made and scored officially."""

    exclusions: str | None
    """The field listing each query's excluded documents (removed from its ranking before the
    cut), or None when the benchmark excludes nothing."""
    measure: str
    """The headline measure of its papers' tables."""
    query_side: bool
    """Whether the official BM25 weights query terms with BM25 too (the BRIGHT paper's code)."""
    depth: int = OFFICIAL_DEPTH
    """How many documents an official run ranks per query (its BM25 runs, fused runs):
    :data:`OFFICIAL_DEPTH` unless the declaration says otherwise."""
    average: Literal["qrels", "shared"] = "qrels"
    """Which queries a measure is averaged over: ``qrels``, every query of the qrels, a query
    the run misses counting as the measure's default, 0 (``trec_eval -c``); ``shared``, the
    queries both the run and the qrels have (pytrec_eval's and BEIR's mean, trec_eval
    without ``-c``)."""


class FilePin(NamedTuple):
    """One hub file's place and pins, by its key (``<config>/<domain>``, or a role of the
    layout such as ``corpus``): each given value overrides what the hub block's templates
    give; ``size`` and ``md5`` or ``sha256`` are checked before the file enters the cache."""

    path: str | None = None
    cache_path: str | None = None
    size: int | None = None
    md5: str | None = None
    sha256: str | None = None
    same_as: str | None = None
    """The key of a file with the same pinned bytes: the two are fetched and cached once."""


class KnownRevision(NamedTuple):
    """A commit of the hub repository that others pinned, and the name they know it by."""

    commit: str
    known_as: str
    pinned_by: str
    sources: tuple[str, ...]
    state: str | None = None
    alias: str | None = None
    """The short name a dataset id may give the commit after ``@`` (``bright/biology@mteb-v1``)."""


class RevisionChange(NamedTuple):
    """An edit of the hub repository between known revisions."""

    date: str
    what: str
    sources: tuple[str, ...]


class Comparability(NamedTuple):
    """Whether results at different revisions can be compared, and the sources that say so."""

    what: str
    sources: tuple[str, ...]


class KnownRevisions(NamedTuple):
    """The revisions of a family's hub repository that are known by name."""

    revisions: tuple[KnownRevision, ...] = ()
    default: str | None = None
    changes: tuple[RevisionChange, ...] = ()
    comparability: Comparability | None = None


class Hub(NamedTuple):
    """Where a family's files are on the hub, in one shape for every family.

    A file is named by its key: ``<config>/<domain>`` in the parquet layouts, ``<role>`` (and
    ``<role>/<domain>``) in BEIR's (``corpus``, ``queries``, ``qrels``, ...). Its repository
    is ``repo`` (``{domain}`` is the domain's key, for a benchmark with one repository per
    domain), its revision the first of ``files[key]``'s own, ``domain_revisions[domain]``,
    ``config_revisions[config]`` and ``revision``; its path ``files[key].path`` or the layout's
    template ``paths[config]`` or ``path`` (``{config}``, ``{domain}``, ``{split}`` and the
    query set's names filled in), its cache place ``files[key].cache_path`` or ``cache_path``
    (``{path}`` too) under the family's namespace."""

    repo: str
    revision: str | None = None
    """The commit (or branch) every file is read at unless a config or domain has its own;
    ``main`` where none is given."""
    config_repos: Mapping[str, str] = {}
    """The repository of a config held apart (BrowseComp-Plus's corpus), by config."""
    config_revisions: Mapping[str, str] = {}
    domain_revisions: Mapping[str, str] = {}
    path: str = "{config}/{domain}.parquet"
    paths: Mapping[str, str] = {}
    cache_path: str = "{domain}/{config}.parquet"
    files: Mapping[str, FilePin] = {}
    configs: tuple[str, ...] = ()
    """The configs a family lists from the hub rather than declaring their files."""
    split: str = "test"
    known_revisions: KnownRevisions | None = None
    about: str | None = None
    revision_about: str | None = None
    """What the declared revision is, and why it is the one read by the ids without ``@``."""
    commit: str | None = None
    """Set by :meth:`~ir_bright.families.Family.at` (never declared): the commit every file of
    a family read at a revision (``<id>@<rev>``) is read at, cached apart."""
    alias: str | None = None
    """Set with ``commit``: the name the declaration gives that commit, if any."""


class Count(NamedTuple):
    """A declared count and the facts beside it, as ir_datasets' metadata holds them
    (``{"count": 372, "fields": {"relevance": {"counts_by_value": {"1": 372}}}}``)."""

    count: int  # type: ignore[assignment]  # ir_datasets' key; shadows tuple.count
    fields: Mapping[str, Any] = {}
    source: str | None = None
    """Where the figure comes from, when it is not the hub files themselves."""


class Domain(NamedTuple):
    """One domain (task, subset) of a family, by its key (the hub's spelling)."""

    name: str
    label: str
    id: str | None = None
    """Its spelling in ids (default: the key)."""
    source: str | None = None
    desc: str | None = None
    """What the domain's datasets hold, for their documentation (default: its name)."""
    licence: str | None = None
    """The domain's licence where its family's differ by domain (its documentation says)."""
    counts: Mapping[str, int | Count | None] = {}
    """Entity counts: ``docs``, ``queries``, ``qrels``, and for a document set or query set
    with its own, ``<set>/<entity>`` (``long/docs``, ``adjusted/qrels``). A number, or a
    :class:`Count` with facts; null where the domain has none."""
    agentic_queries: tuple[str, ...] = ()
    """BRIGHT-Pro: the query ids of the domain's agentic subset."""


class DocumentSet(NamedTuple):
    """A set of documents each domain may have (BRIGHT's short and long documents)."""

    suffix: str
    name: str | None = None
    config: str = "documents"
    """The config (or layout role) its documents are read from."""
    gold: str = "gold_ids"
    """The column listing each query's gold documents of this set."""
    official_measures: tuple[str, ...] | None = None
    desc: str | None = None
    domains: tuple[str, ...] | None = None
    """The domains that have it (default: all)."""


class QuerySet(NamedTuple):
    """A set of queries (and their judgements) over a domain's documents."""

    suffix: str
    desc: str | None = None
    name: str | None = None
    config: str = "examples"
    """The config (or layout role) its queries are read from."""
    model: str | None = None
    method: str | None = None
    llm: str | None = None
    document_sets: tuple[str, ...] | None = None
    domains: tuple[str, ...] | None = None
    official_measures: tuple[str, ...] | None = None
    own_counts: tuple[str, ...] = ()
    """The entities whose counts are the query set's own, not the domain's (its judgements,
    say): each domain declares them as ``<query set>/<entity>``."""
    key_rule: str | None = None
    """MM-BRIGHT: how Task 4's pair keys are built."""
    subset: Mapping[str, Any] | None = None
    """BRIGHT-Pro: where its subset of query ids comes from."""


class GroupSpec(NamedTuple):
    """Columns of a table averaged together under one label."""

    label: str
    columns: tuple[str, ...]


class BenchmarkSpec(NamedTuple):
    """One table of a family: its domains' datasets of a document set and query set."""

    title: str
    measure: str
    document_set: str
    query_set: str
    groups: tuple[GroupSpec, ...] = ()
    measures: tuple[str, ...] = ()
    """Several measures side by side: one column per domain and measure (BrowseComp-Plus's
    recall and nDCG on its two qrels); default: one column per domain, of ``measure``."""
    run: str | None = None
    """The dataset id whose run file every column is scored from (default: each column's)."""
    average: bool = True
    """Whether a row has the average of its columns."""


class Tables(NamedTuple):
    """How the family's tables are laid out."""

    columns: tuple[str, ...]
    """The domains in the papers' column order."""


class RecordField(NamedTuple):
    """A field of a declared record type and where it comes from: a column of the layout's
    rows, or a whole file of the domain (the same text in every record)."""

    column: str | None = None
    file: str | None = None
    """A role of the domain's files (``hub.paths``) whose whole text, UTF-8, is the field's
    value in every record: RAR-b's ``instruction.txt``."""
    type: Literal["str", "strings", "int", "float"] = "str"
    """``strings`` is a tuple of strings (a string alone becomes a one-item tuple, null an
    empty one)."""

    def check(self) -> None:
        """Its keys together (:mod:`.typed` calls it once the block is read)."""
        if (self.column is None) == (self.file is None):
            raise ValueError("a record field comes from a column or a file: give one of them")


class Encryption(NamedTuple):
    """BrowseComp-Plus: how the hub's questions are encrypted, and which column of their rows
    lists each domain's judged documents (:mod:`ir_bright.families.browsecomp_plus`)."""

    canary: str
    """The public string whose SHA-256 is the key."""
    skip: tuple[str, ...]
    """The keys whose values are stored in plain text."""
    qrels: Mapping[str, str]
    """Domain -> the column listing each question's judged documents."""
    pairs_sha256: Mapping[str, str] = {}
    """Domain -> the SHA-256 of the official qrels' pairs (sorted ``<query> <doc>`` lines),
    which the qrels derived from the pinned revision must have."""
    about: str | None = None


class RecordSpec(NamedTuple):
    """A record type a data-only family's datasets yield (a namedtuple): its name, its
    docstring and its fields in order, the first the id, the second the text."""

    name: str
    doc: str
    fields: Mapping[str, RecordField]


class Expansions(NamedTuple):
    """R2MED: how an expansion set's rows become queries (:mod:`ir_bright.families.r2med`)."""

    compose: Mapping[str, str]
    answer: Mapping[str, str]
    desc: str
    about: str | None = None


class Declaration(NamedTuple):
    """A family's declaration, as its file holds it (:mod:`.declaration` describes it)."""

    name: str
    order: int
    namespace: str
    layout: Layout
    replaces: str
    collection: Collection
    protocol: Protocol
    hub: Hub
    domains: Mapping[str, Domain]
    document_sets: Mapping[str, DocumentSet]
    query_sets: Mapping[str, QuerySet]
    benchmarks: Mapping[str, BenchmarkSpec]
    module: str | None = None
    """The module (of ``ir_bright.families``) that builds the datasets where the family
    differs from its layout; none for a family its layout reads as it is."""
    columns: Mapping[str, Mapping[str, str]] = {}
    """Where the family's files name a field of its layout otherwise: role -> the layout's
    field -> its column (R2MED's ``{"queries": {"query_id": "id"}}``)."""
    count_sources: Mapping[str, str] = {}
    """Where the domains' declared counts come from, by count key (``docs``,
    ``adjusted/qrels``)."""
    unknown_counts: Mapping[str, str] = {}
    """Counts published nowhere, by count key (``<query set>/<entity>`` or ``<entity>``): why
    they cannot be known before the files are read. ir_datasets' metadata then holds
    ``"count": None`` (its ``*_count()`` convention for an unknown count) until the files are
    cached, when the dataset counts them."""
    records: Mapping[str, RecordSpec] = {}
    """Record types of a data-only family, by entity (``queries``)."""
    tables: Tables | None = None
    references: Mapping[str, Mapping[str, Any]] = {}
    """Published rows by benchmark, then by name (:mod:`ir_bright.results.references`)."""
    reasoning_desc: str | None = None
    """BRIGHT: the description of its reasoning query sets."""
    expansions: Expansions | None = None
    encryption: Encryption | None = None
    """BrowseComp-Plus: its questions' encryption."""
    about: str | None = None
