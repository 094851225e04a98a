"""``import ir_bright`` replaces ``ir_measures.parse_measure`` for the whole process (to read
``Official(nDCG@10)``): every other input must parse exactly as stock ir_measures parses it.

The stock parser is the one of a fresh interpreter that never imports ir_bright (the child
checks this): there ``ir_measures.parse_measure`` is ir_measures' own function reading
ir_measures' own registry. A seeded generator builds a few thousand inputs from that
registry's names, each measure's ``SUPPORTED_PARAMS`` and cutoffs, valid and not (bad values,
unknown names, unbalanced parentheses, white space, look-alike and full-width unicode, huge
numbers, inputs that are not strings). For each, the measure (its class, ``repr`` and
parameters) or the exception (its class and message) must be the same; inputs naming one of
ir_bright's measures (after Python's NFKC folding of identifiers) are ir_bright's and left out.
"""

from __future__ import annotations

import inspect
import pickle
import random
import re
import subprocess
import sys
import unicodedata
from typing import Any

import ir_measures
from ir_measures.measures.base import _NOT_PROVIDED

import ir_bright  # noqa: F401 - installs its parser

SEED, COUNT = 20260, 3000
OURS = re.compile(r"(?<!\w)(Official|wAlpha_nDCG|A_Recall)(?!\w)")

STOCK = r"""
import pickle, sys
import ir_measures
assert ir_measures.parse_measure is ir_measures.util.parse_measure
assert ir_measures.parse_measure.__module__ == "ir_measures.util"
texts = pickle.load(sys.stdin.buffer)
pickle.dump(([outcome(t) for t in texts], "ir_bright" in sys.modules), sys.stdout.buffer)
"""


def outcome(text: Any, parse: Any = None) -> tuple:
    """``("parses", measure)`` or ``("raises", exception class name, message)`` (this
    function's source runs in the stock interpreter too)."""
    parse = parse or ir_measures.parse_measure
    try:
        measure = parse(text)
    except Exception as exc:  # noqa: BLE001 - whatever it is, stock must raise the same
        return ("raises", type(exc).__name__, str(exc))
    return ("parses", measure)


def test_generated_strings_cover_valid_and_invalid_measures():
    texts = measure_inputs(COUNT, SEED)
    results = [outcome(t) for t in texts if not is_ours(t)]
    parsed = [r for r in results if r[0] == "parses"]
    kinds = {(r[1], r[2][:40]) for r in results if r[0] == "raises"}
    assert len(texts) >= COUNT and len(results) > 0.9 * len(texts)
    assert 0.25 < len(parsed) / len(results) < 0.75
    assert len({type(r[1]) for r in parsed}) > 30  # most of the registry's measure classes
    assert {"ValueError", "NameError", "TypeError"} <= {k[0] for k in kinds} and len(kinds) > 10
    # what is left out: ir_bright's names, as Python reads identifiers, and nothing else
    assert is_ours("Official(nDCG@10)") and is_ours(" \uff2ffficial(nDCG)") and is_ours(b"A_Recall")
    assert not is_ours("OfficialX(nDCG@10)") and not is_ours("official(nDCG@10)")


def test_every_input_not_naming_ir_brights_measures_parses_as_stock_ir_measures_parses_it():
    texts = [t for t in measure_inputs(COUNT, SEED) if not is_ours(t)]
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from __future__ import annotations\n" + inspect.getsource(outcome) + STOCK,
        ],
        input=pickle.dumps(texts),
        capture_output=True,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    stock, imported = pickle.loads(proc.stdout)
    assert not imported  # the child's parser is stock
    for parse in (ir_measures.parse_measure, ir_measures.util.parse_measure):
        assert parse.__module__.startswith("ir_bright.")  # the installed one is compared
        mismatches = [
            (text, want, got)
            for text, want in zip(texts, stock)
            if comparable(got := outcome(text, parse)) != comparable(want)
        ]
        assert not mismatches, mismatches[:5]


def comparable(outcome: tuple) -> tuple:
    if outcome[0] == "raises":
        return outcome
    measure = outcome[1]
    try:
        shown = repr(measure)
    except Exception as exc:  # noqa: BLE001 - an unknown parameter has no default to compare
        shown = f"repr raises {type(exc).__name__}: {exc}"
    return ("parses", type(measure), shown, repr(sorted(measure.params.items())))


def is_ours(text: Any) -> bool:
    """Whether ``text`` names one of ir_bright's measures as Python reads identifiers."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return isinstance(text, str) and bool(OURS.search(unicodedata.normalize("NFKC", text)))


# the generator


def stock_names() -> list[str]:
    return sorted(n for n in ir_measures.measures.registry if not OURS.fullmatch(n))


GOOD = {
    int: ["0", "1", "2", "10", "1000", "-1", "True"],
    float: ["0.5", "0.0", "1.0", "1", "0.95", "1e-3", "2.5"],
    bool: ["True", "False", "0", "1"],
    str: ["'log2'", "'exp-log2'", '"log2"', "'x'", "''"],
    dict: ["{0: 0, 1: 1, 2: 3}", "{}", "{1: 2.5}", "{'a': 1}"],
}
BAD_VALUES = [
    "None", "'10'", "[1, 2]", "(1,)", "{1, 2}", "x", "f(1)", "-1", "-0.5", "1 + 1", "...",
    "b'x'", "1j", "1e999", "9" * 30, "lambda: 1", "{1: x}", "True and False", "nDCG",
    "'\u00e9\u03b1'", "0x10", "1_000", "not 1",
]  # fmt: skip
CUTOFFS = [
    "1", "10", "25", "100", "1000", "0", "-1", "1.5", "'10'", "x", "None", "True", "(10)",
    "10@5", "2**31", "9" * 20, "9" * 400, "1e3", "1_0", "0b11", "[10]", "{10: 1}",
]  # fmt: skip
FIXED: list[Any] = [
    "", " ", "\t", "\n", "nDCG", "nDCG@10", "nDCG(", "nDCG)", "nDCG((cutoff=10)", "nDCG@",
    "@10", "nDCG@@10", "nDCG(cutoff=10)", "nDCG(10)", "nDCG(dcg=)", "nDCG(=1)", "nDCG()",
    "nDCG(,)", "nDCG(rel=1,)", "nDCG(rel=1 judged_only=True)", "nDCG; P", "nDCG\nP",
    "nDCG # comment", "nDCG\\\n@10", "ndcg@10", "NDCG@10", "ndcg_cut_10", "P.10", "P_10",
    "nDCG@10 nDCG@5", "nDCG@10,P@5", "nDCG @ 10", " nDCG@10", "nDCG@10 ", "\u00a0nDCG@10",
    "nDCG\u200b@10", "\uff4eDCG@10", "n\u0044CG@10", "\u03b1_nDCG@10", "\u03b1_nDCG(alpha=0.3)",
    "alpha_nDCG(alpha=0.3)@20", "nDCG\x00@10", "\ud800", "nDCG@" + "9" * 4301,
    "nDCG@" + "9" * 5000, "nDCG(rel=" + "9" * 4400 + ")", "x = nDCG", "import os", "nDCG.x",
    "nDCG[10]", "(nDCG)@10", "((nDCG@10))", "nDCG@10 if 1 else 2", "-nDCG", "nDCG@(5@2)",
    "IPrec@0.5", "IPrec(recall=0.2)", "IPrec@'x'", "Offical(nDCG@10)", "official(nDCG@10)",
    "OFFICIAL(nDCG@10)", "OfficialX(nDCG@10)", "_Official(nDCG@10)", "wAlpha_nDCG_(x=1)",
    "A_Recal@25", "nDCG(" * 200 + ")" * 200, "(" * 300 + "nDCG" + ")" * 300, None, 10, 1.5,
    b"nDCG@10", b"\xff", ["nDCG@10"], ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 5,
]  # fmt: skip
NOISE = "()@=,'\" \t\n#;[]{}:.-+*/\\0123456789_aZ\u03b1\u00e9\uff10\u200b\x00"


def measure_inputs(count: int, seed: int) -> list[Any]:
    """``count`` (or more) inputs for ``parse_measure``, the same for the same ``seed``."""
    rng = random.Random(seed)
    names = stock_names()
    makers = [_valid, _valid, _valid, _bad_value, _unknown_param, _mangled, _unicode, _spaced]
    texts = list(FIXED)
    while len(texts) < count:
        texts.append(rng.choice(makers)(rng, names))
    return texts


def _valid(rng: random.Random, names: list[str]) -> str:
    name = rng.choice(names)
    supported = ir_measures.measures.registry[name].SUPPORTED_PARAMS
    at = ir_measures.measures.registry[name].AT_PARAM
    keys = [k for k in supported if k != at and rng.random() < 0.4]
    args = [f"{k}={rng.choice(_good_values(supported[k]))}" for k in keys]
    text = f"{name}({', '.join(args)})" if args or rng.random() < 0.1 else name
    if at in supported and rng.random() < 0.7:
        text += "@" + rng.choice(["1", "5", "10", "20", "25", "100", "1000", "0.5"])
    return text


def _good_values(info: Any) -> list[str]:
    if info.choices is not _NOT_PROVIDED:
        return [repr(c) for c in info.choices]
    return GOOD.get(info.dtype, GOOD[int] + GOOD[str])


def _bad_value(rng: random.Random, names: list[str]) -> str:
    name = rng.choice(names)
    params = list(ir_measures.measures.registry[name].SUPPORTED_PARAMS) or ["rel"]
    text = f"{name}({rng.choice(params)}={rng.choice(BAD_VALUES)})"
    return text + ("@" + rng.choice(CUTOFFS) if rng.random() < 0.5 else "")


def _unknown_param(rng: random.Random, names: list[str]) -> str:
    key = rng.choice(["k", "cutof", "Cutoff", "rel_", "alpha", "measure", "_x", "\u00e9"])
    return f"{rng.choice(names)}({key}={rng.choice(GOOD[int])})@{rng.choice(CUTOFFS)}"


def _mangled(rng: random.Random, names: list[str]) -> str:
    text = list(_valid(rng, names))
    for _ in range(rng.randint(1, 3)):
        where = rng.randrange(len(text) + 1)
        action = rng.random()
        if action < 0.4 and text:
            del text[min(where, len(text) - 1)]
        elif action < 0.8:
            text.insert(where, rng.choice(NOISE))
        else:
            text[where:where] = text[: rng.randrange(len(text) + 1)]
    return "".join(text)


def _unicode(rng: random.Random, names: list[str]) -> str:
    text = _valid(rng, names)
    where = rng.randrange(len(text))
    folded = unicodedata.normalize("NFKC", text[where])
    char = chr(ord(folded) + 0xFEE0) if "!" <= folded <= "~" else folded  # full-width form
    variant = rng.choice([char, text[where] + "\u0301", "\u200b", text[where].swapcase()])
    return text[:where] + variant + text[where + 1 :]


def _spaced(rng: random.Random, names: list[str]) -> str:
    text = _valid(rng, names)
    spaces = [" ", "  ", "\t", "\n", "\r\n", "\x0c", "\u3000", "\\\n"]
    parts = re.split(r"([()@=,])", text)
    return "".join(p + (rng.choice(spaces) if rng.random() < 0.3 else "") for p in parts)
