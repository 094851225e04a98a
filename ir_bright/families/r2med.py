"""R2MED (Li et al., 2025): eight medical retrieval tasks, and the twenty LLM query-expansion
sets of each, as ir_datasets datasets.

Ids (declared in ``r2med.json``):

- ``r2med/<task>``: docs ``GenericDoc(doc_id, text)`` from ``corpus.jsonl``, queries
  ``GenericQuery(query_id, text)`` from ``query.jsonl``, qrels from ``qrels.jsonl``;
- ``r2med/<task>/<method>/<llm>``: the same docs and qrels, queries
  ``R2MedExpandedQuery`` whose ``text`` is the query R2MED's official BM25 code builds from
  the set's row (:func:`expanded_query`).

What the declaration cannot say lives here: how a task's JSON Lines files are read, and the
rules that turn an LLM's output into a query (R2MED/R2MED at commit 62b7074,
``src/eval_BM25.py`` ``load_retrieval_data`` and ``src/base.py`` ``split_response_for_r1``).
A corpus that repeats a document id keeps the id's last row, as every official reader does
(a dict keyed by id): the corpus is rewritten once into parquet with each id at its first
row's place holding its last row's text, and the texts it replaced in a companion file
(``corpus.parquet.superseded.parquet``), so that the docs hold each id once while a BM25
index counts every row, as the official code does.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseQrels, BaseQueries, GenericQuery, TrecQrel

from .. import hub, lazy
from ..errors import CacheError
from ..records import R2MedExpandedQuery
from ..store.docs import ParquetDocs
from ..store.json_rows import RewrittenCorpus, doc_batches, field, json_rows, write_docs
from ..store.parquet import BATCH_ROWS, read_batches
from .components import Documentation, collection_root, dataset
from .declaration import Entry, Family

READS_REVISIONS = True
"""Its datasets read every hub file from the family they are built from, so a family at a
revision (:meth:`~ir_bright.families.Family.at`) reads that revision."""

if TYPE_CHECKING:
    import pyarrow as pa
else:
    pa = lazy.module("pyarrow")

logger = logging.getLogger(__name__)


def _after_think(output: str) -> str | None:
    _, mark, answer = output.partition("</think>")
    return answer.strip() if mark else None


def _final_response(output: str) -> str | None:
    found = re.search(r"Final Response\s*(.*)", output, re.DOTALL)
    return found.group(1).strip() if found else None


def _solution_tags(output: str) -> str | None:
    pattern = r"<\|begin_of_solution\|>\s*([\s\S]*?)\s*<\|end_of_solution\|>"
    found = re.search(pattern, output)
    return found.group(1).strip() if found else None


def _answer_tags(output: str) -> str | None:
    found = re.search(r"<answer>(.*?)</answer>", output, re.DOTALL)
    return found.group(1).strip() if found else None


ANSWER_RULES: dict[str, Callable[[str], str | None]] = {
    "after_think": _after_think,
    "final_response": _final_response,
    "solution_tags": _solution_tags,
    "answer_tags": _answer_tags,
}
"""How the official code extracts a reasoning LLM's answer from its output; each gives None
where its mark is missing, and the whole output (unstripped) is then the answer."""


def expanded_query(rules: Mapping[str, Any], method: str, llm: str, query: str, output: str):
    """``(the query the official BM25 code builds, the answer)`` for one expansion row:
    ``rules`` is the declaration's ``expansions`` (``compose`` by method, ``answer`` rule by
    LLM), ``query`` the original query and ``output`` the LLM's text."""
    rule = rules["answer"].get(llm)
    if rule is not None:
        answer = ANSWER_RULES[rule](output)
        answer = output if answer is None else answer
        return answer, answer
    template = rules["compose"].get(method, "{output}")
    return template.replace("{query}", query).replace("{output}", output), output


class _Task:
    """One task's hub files (its repository at its pinned revision) and rewritten corpus."""

    def __init__(self, family: Family, key: str):
        about = family.domains[key]
        self.key = key
        self.repo = about["repo"]
        self.revision = about["revision"]
        self.namespace = family.namespace
        self.paths = family.data["hub"]["files"]
        self.at = {key: family.data["hub"].get(key) for key in ("commit", "alias")}

    def file(self, path: str) -> hub.HubFile:
        """The task's hub file at ``path``, cached as ``<namespace>/<key>/<path>``."""
        return hub.HubFile(
            repo=self.repo,
            path=path,
            namespace=self.namespace,
            cache_path=f"{self.key}/{path}",
            revision=self.revision,
            **self.at,
        )

    def expansion(self, method: str, llm: str) -> hub.HubFile:
        """The file of one expansion set."""
        return self.file(self.paths["expansion"].format(method=method, llm=llm))

    def corpus(self) -> RewrittenCorpus:
        """The corpus rewritten once into parquet (:func:`_rewrite`)."""
        source = self.file(self.paths["corpus"])
        return RewrittenCorpus(
            lambda: source.local_path.with_name("corpus.parquet"),
            lambda: [source],
            _rewrite,
            companions=(SUPERSEDED,),
        )


SUPERSEDED = ".superseded.parquet"
"""The companion of a rewritten corpus holding the texts a repeated id's later rows replaced."""


def _rewrite(sources: list[Path], target: Path) -> None:
    """``corpus.jsonl`` as parquet: each id once, at its first row's place with its last
    row's text (the official dict); the texts it replaced in the companion file."""
    (source,) = sources
    texts: dict[str, str] = {}
    superseded: list[tuple[str, str]] = []
    for row in json_rows(source):
        doc_id = str(field(row, "id", source, (str, int)))
        text = field(row, "text", source, (str,))
        if doc_id in texts:
            superseded.append((doc_id, texts[doc_id]))
        texts[doc_id] = text
    if superseded:
        logger.info(
            "%s repeats %d document ids: each keeps its last row, as the official code does",
            source,
            len(superseded),
        )
    write_docs(target.with_name(target.name + SUPERSEDED), doc_batches(superseded))
    write_docs(target, doc_batches(texts.items()))


class R2MedDocs(ParquetDocs):
    """A task's corpus, read from its rewritten parquet file."""

    def __init__(self, task: _Task, count: int):
        self._rewritten = task.corpus()
        super().__init__(self._rewritten, f"{task.namespace}/{task.key}", count=count)
        self._source = task.file(task.paths["corpus"])

    def docs_hub_files(self) -> list[Any]:
        """The hub file the corpus was rewritten from."""
        return [self._source]

    def docs_rows_arrow(self, batch_size: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
        """Every row of ``corpus.jsonl`` (for BM25, which counts them all, as the official
        code): the documents, then the texts their repeated ids' later rows replaced."""
        yield from self.docs_arrow(batch_size)
        self.docs_path()  # rewritten, with its companion, if it was not
        superseded = self._rewritten.companion(SUPERSEDED)
        for batch in read_batches(superseded, ["id", "content"], batch_size):
            yield pa.RecordBatch.from_arrays(batch.columns, names=["doc_id", "text"])


class R2MedQueries(BaseQueries):
    """A task's queries: ``query.jsonl``, or an expansion set's file and its built queries."""

    def __init__(self, task: _Task, file: hub.HubFile, build: Callable[[dict], Any] | None):
        self._task = task
        self._file = file
        self._build = build

    def queries_iter(self) -> Iterator[Any]:
        """The queries in the file's order; a repeated id keeps its last row (as the official
        code's dicts), with a warning."""
        path = self._file.fetch()
        rows: dict[str, Any] = {}
        repeated = 0
        for row in json_rows(path):
            query_id = str(field(row, "id", path, (str, int)))
            text = field(row, "text", path, (str,))
            repeated += query_id in rows
            rows[query_id] = self._record(query_id, text, row, path)
        if repeated:
            logger.warning("%s repeats %d query ids: each keeps its last row", path, repeated)
        yield from rows.values()

    def _record(self, query_id: str, text: str, row: dict, path: Path) -> Any:
        if self._build is None:
            return GenericQuery(query_id, text)
        output = field(row, "hy_doc", path, (str,))
        built, answer = self._build({"query": text, "output": output})
        return R2MedExpandedQuery(query_id, built, text, output, answer)

    def queries_hub_files(self) -> list[hub.HubFile]:
        """The file the queries are read from."""
        return [self._file]

    def queries_count(self) -> int | None:
        """The number of queries once their file is cached, else None (the declared count)."""
        return sum(1 for _ in self.queries_iter()) if self._file.is_cached() else None

    def queries_cls(self) -> type:
        """``GenericQuery``, or ``R2MedExpandedQuery`` for an expansion set."""
        return GenericQuery if self._build is None else R2MedExpandedQuery

    def queries_namespace(self) -> str:
        """Query ids restart at "0" in every task: a task is its own namespace."""
        return f"{self._task.namespace}/{self._task.key}"

    def queries_lang(self) -> str:
        """English."""
        return "en"


class R2MedQrels(BaseQrels):
    """A task's judgements (``qrels.jsonl``: ``q_id``, ``p_id``, ``score``); a repeated pair
    keeps its last score, as the official code's dicts."""

    def __init__(self, file: hub.HubFile):
        self._file = file

    def qrels_iter(self) -> Iterator[TrecQrel]:
        """The judgements, query by query in the order they first appear."""
        path = self._file.fetch()
        judged: dict[str, dict[str, int]] = {}
        for row in json_rows(path):
            query_id = str(field(row, "q_id", path, (str, int)))
            doc_id = str(field(row, "p_id", path, (str, int)))
            judged.setdefault(query_id, {})[doc_id] = _label(row, path)
        for query_id, labels in judged.items():
            for doc_id, label in labels.items():
                yield TrecQrel(query_id, doc_id, label, "0")

    def qrels_hub_files(self) -> list[hub.HubFile]:
        """The file the qrels are read from."""
        return [self._file]

    def qrels_count(self) -> int | None:
        """The number of judgements once their file is cached, else None (the declared one)."""
        return sum(1 for _ in self.qrels_iter()) if self._file.is_cached() else None

    def qrels_cls(self) -> type:
        """``TrecQrel``."""
        return TrecQrel

    def qrels_defs(self) -> dict[int, str]:
        """What each relevance value means."""
        return {1: "Relevant (a gold document of the query)"}


def _label(row: dict, path: Path) -> int:
    """``int(score)``, as the official code reads it; anything else is a one-line error."""
    score = field(row, "score", path, (int, float, str))
    try:
        return int(score)
    except ValueError:
        raise CacheError(
            f"{path}: a qrels score {score!r} is not a whole number: not the hub's file? "
            "delete it and run again to fetch it anew"
        ) from None


def datasets(family: Family) -> dict[str, Dataset]:
    """Every id of the R2MED family -> its Dataset, built from its declaration."""
    result = {family.namespace: collection_root(family.namespace, family.collection)}
    tasks = {key: _Task(family, key) for key in family.domains}
    docs = {
        key: R2MedDocs(task, family.domains[key]["counts"]["docs"]) for key, task in tasks.items()
    }
    for entry in family.entries:
        result[entry.id] = _dataset(family, entry, tasks[entry.domain], docs[entry.domain])
    return result


def _dataset(family: Family, entry: Entry, task: _Task, docs: R2MedDocs) -> Dataset:
    domain = family.domains[entry.domain]
    about = family.query_sets[entry.query_set]
    qrels_file = task.file(task.paths["qrels"])
    pretty_name = f"{family.collection['pretty_name']} {domain['name']}"
    counts = domain["counts"]
    metadata = {kind: {"count": counts[kind]} for kind in ("docs", "queries", "qrels")}
    if "method" not in about:
        queries = R2MedQueries(task, task.file(task.paths["queries"]), None)
        desc = f"{domain['name']}: {about['desc']}"
    else:
        file = task.expansion(about["method"], about["llm"])
        queries = R2MedQueries(task, file, _builder(family, about))
        base = entry.id.removesuffix(about["suffix"])
        pretty_name += f", {about['method']} queries by {about['llm']}"
        desc = _expansion_desc(family, about, file.path, base)
    files = [docs.docs_hub_files()[0], *queries.queries_hub_files(), qrels_file]
    return dataset(
        entry.id,
        docs,
        queries,
        R2MedQrels(qrels_file),
        Documentation(family.documentation(pretty_name, desc)),
        metadata=metadata,
        files=files,
    )


def _builder(family: Family, about: Mapping[str, Any]) -> Callable[[dict], tuple[str, str]]:
    rules = family.data["expansions"]
    method, llm = about["method"], about["llm"]
    return lambda row: expanded_query(rules, method, llm, row["query"], row["output"])


def _expansion_desc(family: Family, about: Mapping[str, Any], path: str, base: str) -> str:
    rules = family.data["expansions"]
    method, llm = about["method"], about["llm"]
    rule = rules["answer"].get(llm)
    if rule is not None:
        how = f"{llm} is a reasoning model, so the query is its answer alone ({rule} rule)"
    else:
        template = rules["compose"].get(method, "{output}")
        how = f"the template `{template}` filled with the original query and the LLM's output"
    return rules["desc"].format(method=method, llm=llm, path=path, rule=how, base=base)
