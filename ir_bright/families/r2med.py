"""R2MED (Li et al., 2025): eight medical retrieval tasks, and the twenty LLM query-expansion
sets of each, as ir_datasets datasets.

Ids (declared in ``r2med.json``):

- ``r2med/<task>``: docs ``GenericDoc(doc_id, text)`` from ``corpus.jsonl``, queries
  ``GenericQuery(query_id, text)`` from ``query.jsonl``, qrels from ``qrels.jsonl``: BEIR's
  JSON Lines layout with R2MED's file and field names (:mod:`.layouts.beir_jsonl` reads them);
- ``r2med/<task>/<method>/<llm>``: the same docs and qrels, queries
  ``R2MedExpandedQuery`` whose ``text`` is the query R2MED's official BM25 code builds from
  the set's row (:func:`expanded_query`).

What differs from the layout lives here, and only that: the rules that turn an LLM's output
into a query (R2MED/R2MED at commit 62b7074, ``src/eval_BM25.py`` ``load_retrieval_data`` and
``src/base.py`` ``split_response_for_r1``), and the record of an expansion set's queries.
"""

import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from ir_datasets.datasets.base import Dataset

from ..errors import CacheError
from .declaration import Entry, Family
from .layouts.beir_jsonl import READER
from .layouts.rows import Files, QueryPart, RowQueries, build, domain_queries
from .spec import Expansions, QuerySet


class R2MedExpandedQuery(NamedTuple):
    """A query of an R2MED expansion set: ``text`` is the query R2MED's official BM25 code
    builds from the row (a reasoning LLM's answer alone; otherwise the method's composition of
    the original query and the LLM's output, e.g. HyDE's output alone).

    ``original_text`` is the task's query; ``llm_output`` the LLM's whole text (``hy_doc``);
    ``answer`` the answer extracted from a reasoning LLM's output (the output itself for the
    other LLMs, and where the extraction's mark is missing).
    """

    query_id: str
    text: str
    original_text: str
    llm_output: str
    answer: str

    def default_text(self) -> str:
        """The text a retriever should use: the built query."""
        return self.text


READS_REVISIONS = True
"""Its datasets read every hub file from the family they are built from, so a family at a
revision (:meth:`~ir_bright.families.Family.at`) reads that revision."""

RECORDS = (R2MedExpandedQuery,)
"""The record types of the family's datasets."""
OUTPUT = "hy_doc"
"""The column of an expansion set's rows holding the LLM's output."""


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


def expanded_query(
    rules: Expansions, method: str, llm: str, query: str, output: str
) -> tuple[str, str]:
    """``(the query the official BM25 code builds, the answer)`` for one expansion row:
    ``rules`` is the declaration's ``expansions`` (``compose`` by method, ``answer`` rule by
    LLM), ``query`` the original query and ``output`` the LLM's text."""
    rule = rules.answer.get(llm)
    if rule is not None:
        answer = ANSWER_RULES[rule](output)
        answer = output if answer is None else answer
        return answer, answer
    template = rules.compose.get(method, "{output}")
    return template.replace("{query}", query).replace("{output}", output), output


def datasets(family: Family) -> dict[str, Dataset]:
    """Every id of the R2MED family -> its Dataset, built from its declaration."""
    return build(family, READER, lambda entry, files: _queries(family, entry, files))


def _queries(family: Family, entry: Entry, files: Files) -> QueryPart:
    """An entry's queries: the task's own, or an expansion set's built queries."""
    about = family.query_sets[entry.query_set]
    if about.method is None or about.llm is None:
        return domain_queries(entry, files)
    rules = family.declaration.expansions
    assert rules is not None, "R2MED's declaration has its expansion rules"
    method, llm = about.method, about.llm
    file = files.file("expansion", method=method, llm=llm)

    def make(query_id: str, text: str, row: dict, path: Path) -> R2MedExpandedQuery:
        output = row[OUTPUT]
        if not isinstance(output, str):
            raise CacheError(
                f"{path}: {OUTPUT!r} of a row is not text: not the hub's file? "
                "delete it and run again to fetch it anew"
            )
        built, answer = expanded_query(rules, method, llm, text, output)
        return R2MedExpandedQuery(query_id, built, text, output, answer)

    queries = RowQueries(files, file, make, R2MedExpandedQuery, (OUTPUT,))
    desc = _expansion_desc(rules, about, file.path, entry.id.removesuffix(about.suffix))
    return QueryPart(queries, f", {method} queries by {llm}", desc)


def _expansion_desc(rules: Expansions, about: QuerySet, path: str, base: str) -> str:
    method, llm = about.method, about.llm
    rule = rules.answer.get(llm or "")
    if rule is not None:
        how = f"{llm} is a reasoning model, so the query is its answer alone ({rule} rule)"
    else:
        template = rules.compose.get(method or "", "{output}")
        how = f"the template `{template}` filled with the original query and the LLM's output"
    return rules.desc.format(method=method, llm=llm, path=path, rule=how, base=base)
