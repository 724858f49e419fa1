"""The differential tester (tests/fuzz): generated programs compiled by pyad agree with
CPython (values) and with forward-mode dual numbers cross-checked by finite differences
(gradients); and the tester itself can fail: its oracle is right, it notices a wrong
adjoint, it shrinks a failure and it survives a crash.

`python -m tests.fuzz -n 10000` runs many more programs than the suite does."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from pyad.ir import ops

from .fuzz import check, dual, generate, minimize, runner

SUITE_SEEDS = 240
# The seeds run as 8 tests of 30 (one child process each), so that pytest-xdist spreads them
# over its workers like any other test; together they are seeds 0..239.
PART = 30


@pytest.mark.heavy
@pytest.mark.parametrize("start", range(0, SUITE_SEEDS, PART))
def test_generated_programs_agree_with_the_oracles(start):
    results = runner.run_seeds(start, PART, jobs=1)
    assert [r["seed"] for r in results] == list(range(start, start + PART))
    failures = [f"seed {r['seed']}: {r['kind']}: {r['detail']}" for r in results
                if r["kind"] not in ("ok", "skip")]
    assert not failures, "\n\n".join(failures) + "\n(run `python -m tests.fuzz --seed N " \
        "--minimize` for a short program)"
    # the comparison happened for most programs: the oracles are not skipping the hard ones
    ok = sum(r["kind"] == "ok" for r in results)
    assert ok >= 0.9 * PART


def test_programs_use_the_whole_subset():
    sources = [generate.generate(s).source for s in range(SUITE_SEEDS)]
    for construct in ("while ", " % 1.5", " // 0.75", "math.floor", "-0.5 < ", "break", "continue", "np.where", "np.maximum", "@", "np.dot",
                      "np.sum", "return (", "for j", "[1:", " -= ", "def h", "def r",
                      "if m <= 0", ".copy()", "elif ", " else ", "np.zeros((", "[:, ",
                      "def f(x, y, a, b", "] = a[j", "np.dot(sc"):
        assert any(construct in s for s in sources), construct


@pytest.mark.parametrize("name", sorted(dual.MATH_RULES))
def test_dual_numbers_agree_with_finite_differences(name):
    m = dual.make_math()
    for v in (0.3, -0.7, 0.95) if name in ("asin", "acos") else (0.3, 1.7, 2.4):
        d = getattr(m, name)(dual.Dual(v, np.ones(1)))
        h = 1e-6
        fd = (getattr(math, name)(v + h) - getattr(math, name)(v - h)) / (2 * h)
        assert d.v == getattr(math, name)(v)
        assert d.t[0] == pytest.approx(fd, rel=1e-6, abs=1e-8)


def test_dual_numbers_through_arrays_and_branches():
    source = ("import math\nimport numpy as np\n\ndef f(x, y, a):\n    w = np.tanh(a) * x\n"
              "    s = np.sum(w * w) + np.max(a) * y\n    if s > 0.0:\n        s = s / "
              "(1.5 + math.cos(y))\n    return s\n")
    args = (0.4, -0.3, np.array([0.1, -0.5, 0.8]))
    value, grad = check.dual_gradient(source, args)
    mod = check.load(source)
    assert value == pytest.approx(mod.f(*args), rel=1e-14)
    assert grad == pytest.approx(check.fd_gradient(mod.f, args), rel=1e-6, abs=1e-9)


WRONG_TANH = ("import math\nimport numpy as np\n\ndef f(x, y, a):\n    s = 0.0\n"
              "    for i in range(len(a)):\n        s += math.tanh(a[i] * x) + 0.5 * y\n"
              "    t = s * 2.0\n    u = math.sin(y)\n    return s + 1.0\n")
WRONG_ARGS = (0.7, 0.2, np.array([0.3, -0.8, 1.1]))


@pytest.fixture
def wrong_tanh_adjoint(monkeypatch):
    """tanh's adjoint off by a factor 1.001: the tester must see it."""
    row = ops.OPS["tanh"]
    wrong = dataclasses.replace(
        row, adjoint=lambda b, ct, y, x: (b.mul(b.const(1.001), row.adjoint(b, ct, y, x)[0]),))
    monkeypatch.setitem(ops.OPS, "tanh", wrong)


def test_a_wrong_adjoint_is_a_wrong_gradient(wrong_tanh_adjoint):
    assert check.run(WRONG_TANH, WRONG_ARGS).kind == "wrong gradient"


def test_a_failure_is_minimized_to_what_it_needs(wrong_tanh_adjoint):
    small = minimize.minimize(WRONG_TANH, WRONG_ARGS, "wrong gradient", budget=120)
    assert check.run(small, WRONG_ARGS).kind == "wrong gradient"
    assert "math.tanh(" in small
    for unneeded in ("t = s * 2.0", "math.sin", "0.5 * y", "+ 1.0"):
        assert unneeded not in small


def test_a_crash_is_the_outcome_of_its_seed_and_the_run_goes_on(monkeypatch):
    monkeypatch.setenv(runner.CRASH_VAR, "3")
    results = runner.run_chunk(1, 4, timeout=30)
    assert [r["seed"] for r in results] == [1, 2, 3, 4]
    assert results[2]["kind"] == "crash"
    assert all(r["kind"] in ("ok", "skip") for i, r in enumerate(results) if i != 2)
