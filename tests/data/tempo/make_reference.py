"""Write reference.json: the official TEMPO BM25 run and metrics on the fixture hub.

Run once, with Pyserini, gensim, pytrec_eval, datasets and a JDK (never in CI; see README.md):

    JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 OPENAI_API_KEY=x HF_HUB_OFFLINE=1 \\
        /tmp/refdata-official/bin/python tests/data/tempo/make_reference.py \\
        TEMPO_CHECKOUT WORK tests/data/tempo/reference.json COMMIT

TEMPO_CHECKOUT is a checkout of github.com/tempo-bench/Tempo at COMMIT. Its ``run.py`` is
executed as ``python run.py --task all --model bm25 [--reasoning <model>_reason]``, five times,
unchanged, with two things around it: ``datasets.load_dataset('tempo26/Tempo', config,
split=domain)`` reads the fixture's ``<config>/<domain>.parquet`` (written by
tests/fixtures/tempo_hub.py to ``WORK/hub``) through datasets' own parquet loader instead of
the network, and the modules that ``retrievers.py`` imports for its neural retrievers (torch,
vllm, openai, ...) are empty stand-ins, since its BM25 path uses none of them. The run
(``scores.json``), the metrics (``results.json``) and the 13-domain means (``summary.json``)
are read back from its outputs.
"""

import contextlib
import importlib.abc
import importlib.machinery
import json
import os
import runpy
import sys
import types
from importlib.metadata import version
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.fixtures.recorded import file_sha256, rows_digest, shortest_float32  # noqa: E402
from tests.fixtures.tempo_hub import DOMAINS, REASONING_MODELS, REPO, write_tempo  # noqa: E402

OFFICIAL_FILES = ("run.py", "retrievers.py")
NEURAL = (
    "torch",
    "cohere",
    "vertexai",
    "tiktoken",
    "voyageai",
    "gritlm",
    "openai",
    "transformers",
    "InstructorEmbedding",
    "vllm",
    "sentence_transformers",
    "sklearn",
    "torchmetrics",
)


class StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports of the neural libraries (and their submodules) give modules whose attributes
    are empty classes (capitalised names: datasets checks ``issubclass(t, torch.Tensor)`` once
    torch is imported) or MagicMocks, so that retrievers.py imports; BM25 never touches them."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in NEURAL:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = lambda attr: stand_in(module, attr)
        return module

    def exec_module(self, module):
        pass


def stand_in(module: types.ModuleType, attr: str):
    """An empty class or a MagicMock in place of ``module.attr``, the same one each time."""
    if attr.startswith("__"):
        raise AttributeError(attr)
    value = type(attr, (), {}) if attr[:1].isupper() else mock.MagicMock(name=attr)
    setattr(module, attr, value)
    return value


def fixture_loader(hub: Path, cache: Path):
    """datasets.load_dataset for 'tempo26/Tempo': the fixture's parquet file of the split."""
    import datasets

    real = datasets.load_dataset

    def load_dataset(path, name=None, split=None, cache_dir=None, **kwargs):
        assert path == REPO and not kwargs, (path, kwargs)
        files = {split: str(hub / REPO / name / f"{split}.parquet")}
        return real("parquet", data_files=files, split=split, cache_dir=str(cache))

    return load_dataset


def run_official(checkout: Path, work: Path, reasoning: str | None) -> Path:
    """``python run.py --task all --model bm25 [--reasoning ...]``; returns its output folder."""
    out = work / "outputs" / (reasoning or "examples")
    argv = ["run.py", "--task", "all", "--model", "bm25", "--output_dir", str(out)]
    argv += ["--cache_dir", str(work / "cache"), "--config_dir", str(work / "configs")]
    if reasoning:
        argv += ["--reasoning", reasoning]
    with mock.patch.object(sys, "argv", argv), contextlib.redirect_stdout(sys.stderr):
        runpy.run_path(str(checkout / "run.py"), run_name="__main__")
    return out / "bm25"


def collect(out: Path, reasoning: str | None) -> dict:
    """The run, metrics and means run.py wrote for one query set."""
    per_domain = {}
    for domain in DOMAINS:
        folder = out / domain / (reasoning or "")
        scores = json.loads((folder / "scores.json").read_text())
        run = {
            q: [[doc, shortest_float32(score)] for doc, score in ranked.items()]
            for q, ranked in scores.items()
        }
        metrics = json.loads((folder / "results.json").read_text())
        per_domain[domain] = {"run": run, "metrics": metrics}
    summary = json.loads((out / (reasoning or "") / "summary.json").read_text())
    return {"domains": per_domain, "means": summary["aggregated_metrics"]}


def main() -> None:
    checkout, work, out = (Path(arg).resolve() for arg in sys.argv[1:4])
    commit = sys.argv[4]
    rows = write_tempo(work / "hub")
    import datasets  # before the stand-ins: it looks for torch when imported

    datasets.load_dataset = fixture_loader(work / "hub", work / "hf-cache")
    sys.meta_path.insert(0, StandIns())
    sys.path.insert(0, str(checkout))
    os.chdir(work)
    sets = {"examples": None} | {f"{m}_reason": f"{m}_reason" for m in REASONING_MODELS}
    reference = {}
    for name, reasoning in sets.items():
        reference[name] = collect(run_official(checkout, work, reasoning), reasoning)
    json.dump(
        {
            "_about": about(),
            "official": {
                "repository": "tempo-bench/Tempo",
                "commit": commit,
                "files": {f: file_sha256(checkout / f) for f in OFFICIAL_FILES},
            },
            "versions": {
                p: version(p) for p in ("pyserini", "gensim", "pytrec_eval-terrier", "datasets")
            },
            "fixture": {domain: rows_digest(rows[domain]) for domain in DOMAINS},
            "sets": reference,
        },
        out.open("w", encoding="utf-8"),
        ensure_ascii=False,
        separators=(",", ":"),
    )


def about() -> str:
    return (
        "Output of the official TEMPO code (tempo-bench/Tempo run.py with --model bm25) on the "
        "fixture of tests/fixtures/tempo_hub.py; see README.md beside this file. sets "
        "('examples' or '<model>_reason') -> domains -> domain -> run (query id -> [doc id, "
        "score] in the code's order, at most 1,000, exclusions removed; scores are float32 "
        "values in their shortest form) and metrics (retrievers.calculate_retrieval_metrics, "
        "as results.json holds them); means: summary.json's aggregated_metrics (the rounded "
        "mean of the 13 rounded domain values). fixture: sha256 of the canonical JSON of "
        "write_tempo's rows per domain."
    )


if __name__ == "__main__":
    main()
