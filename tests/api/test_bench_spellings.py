"""The extra loop spellings of the workloads (bench/spellings/): each computes the reference
spelling's value, in CPython and compiled by pyad, and pyad's gradient of it agrees with the
gradient of the reference spelling and with finite differences of the NumPy array spelling
(bench.gradcheck, as the bench checks every tool). Timings are never asserted."""
from functools import cache

import numpy as np
import pytest

import pyad
from bench import gradcheck, timing
from bench.spellings import SPELLINGS
from bench.spellings.__main__ import measure, table
from bench.workloads import WORKLOADS

CASES = [(name, label, fn) for name, rows in SPELLINGS.items() for label, fn in rows[1:]]


def test_at_least_two_more_spellings_each():
    assert SPELLINGS.keys() == WORKLOADS.keys()
    assert all(len(rows) >= 3 for rows in SPELLINGS.values())


@cache
def _reference(name):
    """The reference spelling's gradient and the finite differences at the tiny size."""
    w = WORKLOADS[name]
    args = w.args("tiny")
    coords = gradcheck.coordinates(w, args)
    _, grads = pyad.jit_grad(w.loop, argnums=w.wrt).value_and_grad(*args)
    return grads, coords, gradcheck.finite_differences(w, args, coords)


@pytest.mark.parametrize("name, label, fn", CASES, ids=[f"{n}-{s}" for n, s, _ in CASES])
def test_spelling_agrees_with_reference(name, label, fn):
    w = WORKLOADS[name]
    args = w.args("tiny")
    ref = w.loop(*args)
    assert fn(*args) == pytest.approx(ref, rel=1e-12)
    f = pyad.jit_grad(fn, argnums=w.wrt)
    value, grads = f.value_and_grad(*args)
    assert value == pytest.approx(ref, rel=1e-12)
    ref_grads, coords, fd = _reference(name)
    for g, r in zip(grads, ref_grads):
        np.testing.assert_allclose(g, r, rtol=1e-9, atol=1e-12)
    assert gradcheck.max_rel_error(gradcheck.pick(grads, w, coords), fd) < 1e-5


def test_entry_point_table():
    res = measure("W1", "tiny", timing.Plan(rounds=1, batch_s=1e-4, budget_s=1e-3))
    text = table("W1", res)
    for label, _ in SPELLINGS["W1"]:
        assert f"| {label} |" in text
    assert all(r["grad_diff"] < 1e-12 for k, r in res["rows"].items() if k != "JAX")
