"""Loop versioning on invariant index conditions (pyad/ir/versioning.py): a loop whose
indices depend on whether an axis broadcasts gets a copy for the case that none does. Both
copies must give the value and gradient of the loop alone, bit for bit, whichever runs; the
copy for plain indices must vectorize; conditions that change inside the loop or want two
values are left alone."""
from __future__ import annotations

import re

import numpy as np
import pytest

import pyad
from pyad.ir import interp
from pyad.ir.nodes import If, While, walk
from pyad.ir.parse import parse_func
from pyad.ir.versioning import version_loops

from ..gradients import check_against_python


def bias_tanh(h, b):
    return np.sum(np.tanh(h + b))


def outer_diff(x, y):
    d = x[:, None] - y[None, :]
    return np.sum(d * np.exp(-d * d))


def _u(*shape):
    return np.random.default_rng(sum(shape)).uniform(-1.0, 1.0, shape)


@pytest.mark.parametrize("b", [_u(5), _u(1, 5), _u(4, 1), _u(1, 1), _u(4, 5)],
                         ids=["row", "row2d", "column", "scalar", "full"])
def test_every_broadcast_gives_numpys_value_and_the_right_gradient(b):
    check_against_python(bias_tanh, _u(4, 5), b)


def test_the_two_copies_agree_bit_for_bit():
    """b of shape (1, m) runs the general copy (axis 0 broadcasts), b tiled to (n, m) the copy
    for plain indices: the same operations on the same values in the same order."""
    f = pyad.jit_grad(bias_tanh, argnums=(0,))
    h, b = _u(6, 7), _u(1, 7)
    tiled = np.repeat(b, 6, axis=0)
    v1, g1 = f.value_and_grad(h, b)
    v2, g2 = f.value_and_grad(h, tiled)
    assert v1 == v2
    assert np.array_equal(g1, g2)


def test_pairwise_differences_match_numpy():
    check_against_python(outer_diff, _u(5), _u(3))
    check_against_python(outer_diff, _u(1), _u(3))


def _vector_loads(ir: str, name: str) -> int:
    """The contiguous vector loads in function `name` of module text `ir`."""
    part = next(p for p in ir.split("\ndefine ")[1:] if re.match(rf'[^@]*@"?{name}\b', p))
    return len(re.findall(r"load <(2|4|8) x double>", part))


def bias_tanh_map(h, b):
    return np.tanh(h + b) * 2.0


def test_the_loop_of_plain_indices_vectorizes(monkeypatch):
    """The element loop of `np.tanh(h + b)`: with the pass, its copy for operands that do
    not broadcast reads them with contiguous vector loads; without it, the loop reads `b`
    at an index that may be 0 and vectorizes only with gathers. (A running sum of it,
    `np.sum(np.tanh(h + b))`, stays a scalar loop under strict IEEE rules either way:
    codegen/passes.py.)"""
    h, b = _u(8, 16), _u(16)
    on = _vector_loads(pyad.jit_grad(bias_tanh_map, cache=False).llvm_ir(h, b),
                       "bias_tanh_map.kernel")
    monkeypatch.setattr("pyad.pipeline.version_loops", lambda func: func)
    off = _vector_loads(pyad.jit_grad(bias_tanh_map, cache=False).llvm_ir(h, b),
                        "bias_tanh_map.kernel")
    assert on > 0 == off, (on, off)


SRC = """func f(%a: f64[1d], %n: i64) -> (f64) {
  %0: i64 = const 0
  %1: i64 = const 1
  %2: i64 = dim %a, 0
  %3: bool = eq %2, %1
  %s0: f64 = const 0.0
  %i: i64, %s: f64 = while (%0, %s0) cond(%i.1: i64, %s.1: f64) {
    %4: bool = lt %i.1, %n
    yield %4
  } do(%i.2: i64, %s.2: f64) {
    %5: i64 = select %3, %0, %i.2
    %6: f64 = load %a, %5
    %7: f64 = add %s.2, %6
    %8: i64 = add %i.2, %1
    yield %8, %7
  }
  return %s
}
"""


def test_the_pass_makes_an_if_with_both_copies():
    func = parse_func(SRC)
    out = version_loops(func)
    ifs = [s for s in out.block.body if isinstance(s, If)]
    assert len(ifs) == 1
    fast, slow = ifs[0].then, ifs[0].orelse
    assert any(isinstance(s, While) for s in fast.body)
    assert [s.op for s in walk(slow) if hasattr(s, "op")].count("select") == 1
    for a, n in [(np.array([2.0]), 3), (np.array([1.0, 2.0, 4.0]), 3)]:
        assert interp.run(out, [a, n]) == interp.run(func, [a, n])


def test_a_condition_that_changes_in_the_loop_is_not_versioned():
    src = SRC.replace("%5: i64 = select %3, %0, %i.2",
                      "%9: bool = lt %i.2, %1\n    %5: i64 = select %9, %0, %i.2")
    func = parse_func(src)
    assert version_loops(func) is func


def test_a_condition_wanted_both_ways_is_not_versioned():
    src = SRC.replace("%7: f64 = add %s.2, %6",
                      "%10: i64 = select %3, %i.2, %0\n    %11: f64 = load %a, %10\n"
                      "    %7: f64 = add %s.2, %11")
    func = parse_func(src)
    assert version_loops(func) is func


def test_nested_index_selects_are_versioned_together():
    """An index chosen by two broadcasts (`select %c2, 0, select %3, 0, %i`: an operand of
    an expression that is itself broadcast, as `np.exp(v) + u * u - v`'s first `v`): both
    conditions get fixed in the copy for plain indices (the inner one was left, and its
    accumulations into one shadow at two index expressions kept the gradient loop scalar)."""
    src = SRC.replace("%5: i64 = select %3, %0, %i.2",
                      "%9: i64 = select %3, %0, %i.2\n    %5: i64 = select %c2, %0, %9").replace(
        "%3: bool = eq %2, %1", "%3: bool = eq %2, %1\n  %c2: bool = eq %n, %1")
    func = parse_func(src)
    out = version_loops(func)
    fast = next(s for s in out.block.body if isinstance(s, If)).then
    loop = next(s for s in fast.body if isinstance(s, While))
    conds = {s.args[0].name for s in walk(loop.body) if getattr(s, "op", None) == "select"}
    consts = {s.outs[0].name for s in fast.body if getattr(s, "op", None) == "const"}
    assert conds and conds <= consts
    for a, n in [(np.array([2.0]), 3), (np.array([1.0, 2.0, 4.0]), 3), (np.array([5.0]), 1)]:
        assert interp.run(out, [a, n]) == interp.run(func, [a, n])


def kl_divergence(mu, logvar):
    return 0.5 * np.sum(np.exp(logvar) + mu * mu - 1.0 - logvar)


def test_a_gradient_through_nested_broadcasts_vectorizes():
    """Its exp runs in vectors (pyad's exp kernel scales by log2(e) first): the loop of
    value and gradient was scalar (of logvar alone at 10^5 elements: 950 us, now 280 us,
    the primal 221 us)."""
    mu, lv = _u(64), _u(64)
    f = pyad.jit_grad(kl_divergence, argnums=(0, 1), cache=False)
    check_against_python(kl_divergence, mu, lv)
    text = f.llvm_ir(mu, lv, gradient=True)
    assert re.search(r"fmul <(4|8) x double> [^\n]*0x3FF71547652B82FE", text)


def short_recurrence(xs, h0, b):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] + 0.5 * h + b)
    return np.sum(h * h)


def long_recurrence(xs, h0, b):
    h = h0
    for t in range(xs.shape[0]):
        a = np.tanh(xs[t] + 0.5 * h + b)
        c = np.exp(-a * a) * b
        d = np.sin(h + b) * c
        h = 0.3 * a + 0.7 * c - 0.1 * d
    return np.sum(h * h)


def _time_loop_and_guards(fn):
    """(whether the native IR's time loop is inside an If, the Ifs inside the time loop)."""
    from pyad import pipeline
    func, _ = pipeline.primal_ir(fn, ("f64[2d]", "f64[1d]", "f64[1d]"))
    block = pipeline.native(func).block
    guarded = [s for s in block.body if isinstance(s, If)]
    loop = next(s for s in walk(guarded[0].then if guarded else block) if isinstance(s, While))
    return bool(guarded), [s for s in walk(loop.body) if isinstance(s, If)]


def test_a_loop_of_more_than_max_copied_statements_has_its_inner_loops_versioned():
    """The short time loop is copied whole; the long one (over MAX_COPIED statements) is not:
    each element loop in it gets its own two copies (a copy of the time loop doubled the
    code of the function and its compile time). Values and gradients are right either way,
    whether b broadcasts or not."""
    from pyad.ir.versioning import MAX_COPIED
    outside, inside = _time_loop_and_guards(short_recurrence)
    assert outside and not inside
    outside, inside = _time_loop_and_guards(long_recurrence)
    assert not outside and len(inside) >= 3, (MAX_COPIED, len(inside))
    for fn in (short_recurrence, long_recurrence):
        for b in (_u(5), _u(1)):
            check_against_python(fn, _u(4, 5), _u(5), b)
