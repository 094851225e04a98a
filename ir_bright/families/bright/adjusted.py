"""BRIGHT with duplicate-aware qrels: ``bright/<domain>/adjusted``.

BRIGHT's corpora hold documents whose text is the same under different ids, and a retriever
that returns the twin of a gold document earns nothing under the original qrels. The
adjustment of Pyserini's ``scripts/bright/create_adjusted_qrels.py`` (arXiv 2509.02558) makes
every document whose stripped text (Python's ``content.strip()``) equals a gold document's
relevant (1) as well. Documents, queries and exclusions (-100) are BRIGHT's, unchanged.

Where the reference leaves room, these are the rules (each case is counted and listed in the
cache file, and ``ir-bright info`` shows the counts):

- ``excluded_twins``: a twin of a gold document that the same query excludes stays excluded
  (-100) and is not made relevant. An excluded document is removed from the ranking by the
  official protocol; judging it relevant too would only add an unreachable document to the
  ideal ranking. Pyserini asserts that this never happens; here it is a warning, never silent.
- Twins of excluded documents are not excluded: exclusions are BRIGHT's, as they are.
- ``gold_not_in_corpus``: a gold id absent from the corpus stays relevant and has no twins
  (Pyserini's script stops with a KeyError there).
- A document without text (null ``content``) has no twin. Repeated gold ids count once.

Texts are compared through SHA-1 digests (160 bits) of their stripped UTF-8 text, which Arrow
strips as ``str.strip()`` does (a false match would need an accidental SHA-1 collision),
computed in one pass over the corpus' Arrow batches: memory holds 20 bytes and the id of each
document, never the texts (SHA-1 because it is the fastest of hashlib's digests here). The
pass serves every domain that reads the same corpus file (aops and theoremqa-questions: one
pass, one cache file).

The result is a derived file next to the corpus, ``<corpus>.adjusted-qrels.json``: the identity
(name, size, mtime) of the corpus and of each domain's ``examples`` file it was computed from,
and per domain the added (query, doc) pairs. It is written under a lock to a temporary name and
renamed into place, then its manifest (:mod:`ir_bright.store.derived`: format, version, size and
checksum); a file of another version, one whose sources changed, or a damaged one is detected
by :func:`read_cache` and rebuilt (a warning names it).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ir_datasets.formats import BaseQrels, TrecQrel

from ...errors import CacheError, unwritable_cache
from ...judgements import is_id, query_qrels
from ...reading import read_json
from ...store import derived
from ...store.lock import file_lock

if TYPE_CHECKING:
    import pyarrow as pa

logger = logging.getLogger(__name__)

KIND = "ir_bright.adjusted-qrels"
VERSION = 2  # 2: checked by its manifest, as every derived file
CACHE_SUFFIX = ".adjusted-qrels.json"
DIGEST_BYTES = 20
_NO_TEXT = b"\0" * DIGEST_BYTES  # a null content: never looked up, so never anyone's twin
LISTS = ("added", "excluded_twins", "gold_not_in_corpus")


class Adjustments:
    """The adjusted qrels of every domain, so that domains reading one corpus file share one
    hash pass and one cache file (which domains do is decided when computing: aops and
    theoremqa-questions share theirs only while verification is on)."""

    def __init__(self) -> None:
        self._members: dict[str, AdjustedQrels] = {}

    def qrels(self, split: str, base: Any, docs: Any, docs_file: Any) -> AdjustedQrels:
        """The adjusted qrels component of ``split`` (``base`` its ``IdListQrels``)."""
        member = AdjustedQrels(self, split, base, docs, docs_file)
        self._members[split] = member
        return member

    def sharing(self, member: AdjustedQrels) -> list[AdjustedQrels]:
        """``member`` and every other domain whose corpus is the same file, in domain order."""
        corpus = member.docs_file.shared()
        return [m for m in self._members.values() if m.docs_file.shared() is corpus]


class AdjustedQrels(BaseQrels):
    """Qrels of ``bright/<domain>/adjusted``: BRIGHT's, plus each gold document's twins (1)."""

    def __init__(self, group: Adjustments, split: str, base: Any, docs: Any, docs_file: Any):
        self._group = group
        self.split = split
        self.base = base
        self.docs = docs
        self.docs_file = docs_file

    # -- ir_datasets' qrels interface ----------------------------------------------------------

    def qrels_hub_files(self) -> list[Any]:
        """The hub files the qrels depend on: BRIGHT's qrels and the corpus (its twins)."""
        return [*self.base.qrels_hub_files(), self.docs_file]

    def qrels_iter(self) -> Iterator[TrecQrel]:
        """BRIGHT's qrels of each query with the added twins after its gold ids (computed on
        first use: that downloads the corpus if it is not cached)."""
        added: dict[str, list[str]] = {}
        for query_id, doc_id in self.computed()["added"]:
            added.setdefault(query_id, []).append(doc_id)
        for query_id, gold, excluded in self.base.judgement_rows():
            judged = [(g, 1) for g in gold] + [(d, 1) for d in added.get(query_id, ())]
            yield from query_qrels(query_id, judged, excluded)

    def qrels_count(self) -> int | None:
        """The number of qrels once computed, else None (never computes or downloads)."""
        try:
            if self.adjustment(compute=False) is None:
                return None
        except derived.DamagedError:
            return None
        return sum(1 for _ in self.qrels_iter())

    def qrels_cls(self) -> type:
        """``TrecQrel``."""
        return TrecQrel

    def qrels_defs(self) -> dict[int, str]:
        """What each relevance value means."""
        return {
            **self.base.qrels_defs(),
            1: "Relevant: a gold id, or a document whose stripped text equals a gold one's",
        }

    # -- the adjustment --------------------------------------------------------------------------

    def cache_path(self) -> Path:
        """Where the adjustment of this domain's corpus is (or will be) cached."""
        corpus = self.docs_file.cached_path() or self.docs_file.shared().local_path
        return corpus.with_name(corpus.name + CACHE_SUFFIX)

    def adjustment(self, compute: bool = True) -> dict[str, Any] | None:
        """This domain's section of the cache file (``added``, ``excluded_twins``,
        ``gold_not_in_corpus``: lists of ``[query id, doc id]``), computed if needed.

        With ``compute=False`` nothing is fetched or computed: the section, or None when it is
        not cached and current.
        """
        if not compute:
            if self.docs_file.cached_path() is None or not self.base.examples_file().is_cached():
                return None
            return self._current(self.cache_path(), damaged="raise")
        return self.computed()

    def computed(self) -> dict[str, Any]:
        """This domain's section of the cache file, computed (under the lock) if needed."""
        corpus = self.docs.docs_path()  # fetched first: the cache lives next to it
        target = corpus.with_name(corpus.name + CACHE_SUFFIX)
        section = self._current(target)
        if section is not None:
            return section
        try:
            with file_lock(target):
                # another process may have built it meanwhile
                section = self._current(target, damaged="quiet")
                if section is None:
                    _write(target, _compute(self._group.sharing(self), corpus))
                    section = self._current(target, damaged="raise")
        except OSError as exc:
            raise unwritable_cache(target, exc) from exc
        if section is None:
            raise CacheError(f"{target} does not describe {self.split} after writing it")
        return section

    def adjustment_summary(self) -> dict[str, Any]:
        """What ``ir-bright info`` shows: the cache file, and the counts once computed."""
        path = self.cache_path()
        result: dict[str, Any] = {"list": str(path), "key": f"domains.{self.split}.added"}
        try:
            section = self.adjustment(compute=False)
        except derived.DamagedError as exc:
            return {**result, "state": f"damaged ({exc.problem}): rebuilt on next use"}
        if section is None:
            done = "out of date (computed again" if path.is_file() else "not computed yet (computed"
            return {**result, "state": f"{done} on first use of the qrels)"}
        return {"state": "computed", **result, **{name: len(section[name]) for name in LISTS}}

    def _current(self, target: Path, damaged: str = "rebuild") -> dict[str, Any] | None:
        """The section of ``target`` if it is current for the files it was computed from.

        A damaged file raises :class:`~ir_bright.store.derived.DamagedError` when ``damaged``
        is ``"raise"``, else it is None, as a stale one (with a warning naming it when
        ``damaged`` is ``"rebuild"``).
        """
        try:
            cache = read_cache(target)
        except derived.DamagedError as exc:
            if damaged == "raise":
                raise
            if damaged == "rebuild":
                derived.rebuild_warning(target, exc.problem)
            return None
        if cache is None:
            return None
        section = cache["domains"].get(self.split)
        corpus = self.docs_file.cached_path()
        examples = self.base.examples_file().cached_path()
        if (
            section is None
            or corpus is None
            or examples is None
            or cache["corpus"] != _identity(corpus)
            or section["examples"] != _identity(examples)
        ):
            if damaged == "rebuild":
                logger.info("%s is not current for %s: computing it again", target, self.split)
            return None
        return section


def read_cache(path: Path) -> dict[str, Any] | None:
    """The parsed cache file at ``path``, or None if there is none; raises
    :class:`~ir_bright.store.derived.DamagedError` when it exists but its manifest (format,
    version, size and checksum: :func:`~ir_bright.store.derived.check`) or its content does
    not hold."""
    if not path.exists() and not path.is_symlink():
        return None
    _, problem = derived.check(path, KIND, VERSION, None, {path.name: path})
    if problem is not None:
        raise derived.DamagedError(path, problem)
    try:
        cache = read_json(path)
    except (OSError, ValueError) as exc:
        raise derived.DamagedError(path, f"unreadable: {exc}") from exc
    domains = cache.get("domains") if isinstance(cache, dict) else None
    if not isinstance(domains, dict) or not isinstance(cache.get("corpus"), dict):
        raise derived.DamagedError(path, "no corpus or domains")
    for split, section in domains.items():
        if not isinstance(section, dict) or not isinstance(section.get("examples"), dict):
            raise derived.DamagedError(path, f"domain {split!r} is incomplete")
        for name in LISTS:
            pairs = section.get(name)
            if not isinstance(pairs, list) or not all(_is_pair(p) for p in pairs):
                raise derived.DamagedError(path, f"domain {split!r}: {name} is not pairs")
    return cache


def _is_pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)


def _identity(path: Path) -> dict[str, Any]:
    """What says a cached source file is the one the adjustment was computed from."""
    stat = path.stat()
    return {"file": path.name, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _write(target: Path, cache: dict[str, Any]) -> None:
    """Write the cache file, then its manifest (last: a file without one is never trusted)."""
    derived.manifest_path(target).unlink(missing_ok=True)
    with derived.replaced_atomically(target) as out:
        out.write(json.dumps(cache, indent=0).encode())
        out.flush()
        os.fsync(out.fileno())
    derived.write_manifest(target, KIND, VERSION, None, {target.name: target})


def _compute(members: list[AdjustedQrels], corpus: Path) -> dict[str, Any]:
    """The cache file's content for ``members`` (domains reading ``corpus``): one hash pass."""
    rows = {m.split: list(m.base.judgement_rows()) for m in members}
    gold = sorted({g for domain in rows.values() for _, ids, _ in domain for g in ids if is_id(g)})
    logger.info(
        "finding the twins of %d gold documents in %s for %s (once)",
        len(gold),
        corpus,
        ", ".join(rows),
    )
    twins = twins_of(members[0].docs.docs_arrow(), gold)
    domains = {}
    for member in members:
        section: dict[str, Any] = dict(_domain_lists(rows[member.split], twins))
        section["examples"] = _identity(member.base.examples_file().fetch())
        if section["excluded_twins"]:
            logger.warning(
                "%s: %d twins of gold documents are excluded by the same query; they stay "
                "excluded (-100), not relevant: see excluded_twins in %s",
                member.split,
                len(section["excluded_twins"]),
                corpus.name + CACHE_SUFFIX,
            )
        domains[member.split] = section
    return {
        "rule": "relevant: every document whose content.strip() equals a gold document's "
        "(SHA-1 of the UTF-8 text); exclusions unchanged and never made relevant",
        "corpus": _identity(corpus),
        "domains": domains,
    }


def twins_of(batches: Iterator[pa.RecordBatch], gold: list[str]) -> dict[str, list[str]]:
    """``{gold id: ids of the documents whose stripped text equals its own, itself included,
    in corpus order}`` for the gold ids found in ``batches`` (columns ``doc_id``, ``text``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    digests = bytearray()
    id_chunks: list[pa.Array] = []
    gold_rows: list[int] = []
    wanted = pa.array(gold, type=pa.string())
    for batch in batches:
        ids, texts = batch.column(0), batch.column(1)
        found = pc.indices_nonzero(pc.is_in(ids, value_set=wanted.cast(ids.type))).to_pylist()
        gold_rows += [len(digests) // DIGEST_BYTES + i for i in found]
        digests += _digests(texts)
        id_chunks.append(pa.concat_arrays([ids]))  # a copy: a slice would keep its batch's buffers
    packed = bytes(digests)
    gold_digest = {row: packed[row * DIGEST_BYTES : (row + 1) * DIGEST_BYTES] for row in gold_rows}
    groups: dict[bytes, list[int]] = {d: [] for d in set(gold_digest.values()) - {_NO_TEXT}}
    for start in range(0, len(packed), DIGEST_BYTES):
        group = groups.get(packed[start : start + DIGEST_BYTES])
        if group is not None:
            group.append(start // DIGEST_BYTES)
    rows = {row: groups.get(digest, [row]) for row, digest in gold_digest.items()}
    needed = sorted({member for members in rows.values() for member in members})
    all_ids = pa.chunked_array(id_chunks) if id_chunks else pa.chunked_array([], pa.string())
    name = dict(zip(needed, all_ids.take(pa.array(needed, type=pa.int64())).to_pylist()))
    twins: dict[str, list[str]] = {}
    for row, members in rows.items():
        doc_id = name[row]
        twins[doc_id] = list(dict.fromkeys(twins.get(doc_id, []) + [name[m] for m in members]))
    return twins


def _digests(texts: pa.Array) -> bytearray:
    """The digests of ``texts`` stripped as Python's ``str.strip()`` strips, one after the
    other (:data:`_NO_TEXT` for a null), hashed from Arrow's UTF-8 buffer without making a
    Python string of each text (which takes longer than the hashing)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_string(texts.type) and not pa.types.is_large_string(texts.type):
        texts = texts.cast(pa.string())
    stripped = pc.utf8_trim(texts, characters=PYTHON_WHITESPACE)
    width = np.int64 if pa.types.is_large_string(stripped.type) else np.int32
    _, offsets_buffer, data_buffer = stripped.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=width)[stripped.offset :][: len(stripped) + 1]
    data = memoryview(data_buffer if data_buffer is not None else b"")
    nulls = stripped.is_null().to_pylist() if stripped.null_count else None
    sha1 = hashlib.sha1
    out = bytearray()
    for i, (start, end) in enumerate(itertools.pairwise(offsets.tolist())):
        if nulls is not None and nulls[i]:
            out += _NO_TEXT
        else:
            out += sha1(data[start:end]).digest()
    return out


# Every character Python's str.strip() removes (str.isspace()), for Arrow's utf8_trim; a test
# checks it against the whole of Unicode.
PYTHON_WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _domain_lists(
    rows: list[tuple[str, list[str], list[str]]], twins: dict[str, list[str]]
) -> dict[str, list[list[str]]]:
    """The added pairs, excluded twins and gold ids missing from the corpus of one domain."""
    lists: dict[str, dict[tuple[str, str], None]] = {name: {} for name in LISTS}
    for query_id, gold, excluded in rows:
        gold_ids = {g: None for g in gold if is_id(g)}
        excluded_ids = {e for e in excluded if is_id(e)}
        for gold_id in gold_ids:
            if gold_id not in twins:
                lists["gold_not_in_corpus"][query_id, gold_id] = None
                continue
            for doc_id in twins[gold_id]:
                if doc_id in gold_ids:
                    continue
                name = "excluded_twins" if doc_id in excluded_ids else "added"
                lists[name][query_id, doc_id] = None
    return {name: [list(pair) for pair in pairs] for name, pairs in lists.items()}
