"""Unroll and jam (pyad/ir/jam.py): loops whose trips are independent run LANES trips at
once around their inner loops. Every spelling is checked against CPython, central
differences and the interpreter; the jammed ones also bit for bit against the same function
compiled without the pass (value, gradient, pullback, primal), at sizes that leave 0 to 3
trips for the loop after the jammed one. Loops the conditions refuse are checked to be left
alone, and still right."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad
from pyad import pipeline
from pyad.ir import interp
from pyad.ir.jam import LANES, jam_loops
from pyad.ir.nodes import While, walk
from pyad.ir.parse import parse_func

from ..gradients import check_against_python


def layer(x, w, b):
    """W5's hidden layer: a chain per output, the weights read down a column."""
    h = np.zeros(w.shape[1])
    for j in range(w.shape[1]):
        a = b[j]
        for f in range(x.shape[0]):
            a += x[f] * w[f, j]
        h[j] = math.tanh(a)
    total = 0.0
    for j in range(h.shape[0]):
        total += h[j] * h[j]
    return total


def matvec_rows(a, v):
    """y = A v, a row of A per outer trip, then a sum of squares."""
    n, m = a.shape
    y = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += a[i, j] * v[j]
        y[i] = s
    return np.sum(y * y)


def counting_down(a, v):
    """The rows from the last, `range(n - 1, -1, -1)`, two inner loops per trip."""
    n, m = a.shape
    y = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = 0.0
        for j in range(m):
            s += a[i, j] * v[j]
        t = 1.0
        for j in range(m):
            t *= 1.0 + 0.1 * a[i, j]
        y[i] = s * t
    return np.sum(np.sin(y))


def every_other_row(a, v):
    """Step 2 (rows 0, 2, 4, ...), the result written at a shifted index."""
    n, m = a.shape
    y = np.zeros(n + 1)
    for i in range(0, n, 2):
        s = 0.0
        for j in range(m):
            s += math.exp(a[i, j] * v[j])
        y[i + 1] = math.log(s)
    return np.sum(y)


def while_rows(a, v):
    """The outer loop as `while i < len(a)` and the inner one as `while j < m`."""
    y = np.zeros(a.shape[0])
    i = 0
    while i < len(a):
        s = 0.0
        j = 0
        while j < a.shape[1]:
            s += a[i, j] * a[i, j] * v[j]
            j += 1
        y[i] = math.sqrt(s + 1.0)
        i += 1
    return np.sum(y)


def scratch_per_row(a, v):
    """W2's shape: a scratch vector filled in each trip (each lane gets its own), then a
    triangular pair of loops whose inner length is the middle counter (the same in every
    lane)."""
    n, m = a.shape
    xc = np.zeros(m)
    out = np.zeros(n)
    for i in range(n):
        for j in range(m):
            xc[j] = a[i, j] - v[j]
        s = 0.0
        for r in range(m):
            t = v[r] * xc[r]
            for c in range(r):
                t += a[i, c] * xc[c] * 0.5
            s += t * t
        out[i] = s
    return np.sum(np.sqrt(out + 1.0))


def row_sums_of_exps(a, v):
    """A running sum of exps per row: split_sums splits it (its terms vectorize) when a row
    has MIN_TRIPS elements or more, so the jammed loop runs only rows shorter than that."""
    n, m = a.shape
    y = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += math.exp(a[i, j]) * v[j]
        y[i] = s
    return np.sum(y * y)


JAMMED = [layer, matvec_rows, counting_down, every_other_row, while_rows, scratch_per_row,
          row_sums_of_exps]


def sum_over_outer(a, v):
    """The outer loop carries a float: its trips are not independent."""
    e = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            e += a[i, j] * v[j]
    return e


def shared_accumulator(a, v):
    """Every outer trip writes y[j] with a load and a store: trips depend on each other."""
    y = np.zeros(a.shape[1])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            y[j] += a[i, j] * v[j]
    return np.sum(y * y)


def neighbour_rows(a, v):
    """Trip i writes y[i + 1] and reads y[i], which trip i - 1 wrote."""
    n, m = a.shape
    y = np.zeros(n + 1)
    y[0] = 1.0
    for i in range(n):
        s = y[i]
        for j in range(m):
            s += a[i, j] * v[j]
        y[i + 1] = 0.5 * s
    return y[n]


def triangle(a, v):
    """The inner loop's length depends on the outer counter."""
    y = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        s = 0.0
        for j in range(i + 1):
            s += a[i, j % a.shape[1]] * v[j % a.shape[1]]
        y[i] = s
    return np.sum(y * y)


def from_the_end(a, v):
    """Negative indices (`range(-n, 0)`): two trips could name one element after wrapping."""
    n = a.shape[0]
    y = np.zeros(n)
    for i in range(-n, 0):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j] * v[j]
        y[i] = s
    return np.sum(y * y)


def scratch_kept(a, v):
    """The scratch vector keeps what earlier trips added (it is not filled first): the trips
    depend on each other through it."""
    n, m = a.shape
    xc = np.zeros(m)
    out = np.zeros(n)
    for i in range(n):
        for j in range(m):
            xc[j] = xc[j] * 0.5 + a[i, j]
        s = 0.0
        for r in range(m):
            s += xc[r] * v[r]
        out[i] = s
    return np.sum(out * out)


def scratch_updated_in_place(a, v):
    """ADBench's GMM shape: the scratch vector, filled in each trip, is then updated in
    place (`xc[r] += ...`) in a loop the lanes would share: each lane's copy would be its
    own chain through memory (measured 1.2-2x slower jammed)."""
    n, m = a.shape
    xc = np.zeros(m)
    out = np.zeros(n)
    for i in range(n):
        for j in range(m):
            xc[j] = a[i, j] - v[j]
        for r in range(m):
            for c in range(r):
                xc[r] += a[i, c] * xc[c] * 0.5
        s = 0.0
        for r in range(m):
            s += xc[r] * xc[r]
        out[i] = s
    return np.sum(np.sqrt(out + 1.0))


LEFT_ALONE = [sum_over_outer, shared_accumulator, neighbour_rows, triangle, from_the_end,
              scratch_kept, scratch_updated_in_place]


def _args(fn, rows: int):
    rng = np.random.default_rng(rows)
    a = rng.uniform(-1.0, 1.0, (rows, 5))
    v = rng.uniform(-1.0, 1.0, 5)
    if fn is layer:
        return rng.uniform(-1.0, 1.0, 6), rng.uniform(-1.0, 1.0, (6, rows)), \
            rng.uniform(-1.0, 1.0, rows)
    return a, v


def _jams(monkeypatch) -> list[bool]:
    """Whether each compiled kernel had a loop jammed, from now on."""
    seen: list[bool] = []

    def spy(func):
        out = jam_loops(func)
        seen.append(out is not func)
        return out
    monkeypatch.setattr(pipeline, "jam_loops", spy)
    return seen


@pytest.mark.parametrize("fn", JAMMED + LEFT_ALONE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("rows", [4 * LANES + 3, 1])
def test_against_python_and_central_differences(fn, rows, monkeypatch):
    seen = _jams(monkeypatch)
    check_against_python(fn, *_args(fn, rows))
    if rows > LANES:  # (one row: the sizes may be known, and the loops unrolled)
        assert any(seen) == (fn in JAMMED)


@pytest.mark.parametrize("fn", JAMMED, ids=lambda f: f.__name__)
def test_the_bits_of_the_loop_alone(fn, monkeypatch):
    def results(f, rows):  # one compiled function (one signature) runs every size
        args = _args(fn, rows)
        v, g = f.value_and_grad(*args)
        _, back = f.pullback(*args)
        return [np.float64(f(*args)).tobytes(), np.float64(v).tobytes()] + [
            np.asarray(a).tobytes() for a in pyad.tree_leaves((g, back(0.7)))]
    sizes = [LANES * 2 + r for r in range(LANES)] + [0, 1, LANES - 1, LANES]
    f = pyad.jit_grad(fn, argnums="all", cache=False)
    jammed = [results(f, n) for n in sizes]
    monkeypatch.setattr(pipeline, "jam_loops", lambda func: func)
    alone = pyad.jit_grad(fn, argnums="all", cache=False)
    assert [results(alone, n) for n in sizes] == jammed


def test_an_index_out_of_bounds_names_its_line():
    def bad(a, v):
        y = np.zeros(a.shape[0])
        for i in range(a.shape[0]):
            s = 0.0
            for j in range(a.shape[1]):
                s += a[i, j] * v[j + 1]
            y[i] = s
        return np.sum(y)
    f = pyad.jit_grad(bad, cache=False)
    a, v = _args(matvec_rows, 9)
    line = bad.__code__.co_firstlineno + 5  # the line of v[j + 1]
    for call in (f, f.grad, f.value_and_grad, f.pullback):
        with pytest.raises(IndexError, match=rf"index 5 is out of bounds .*\(line {line} of"):
            call(a, v)


# ----------------------------------------------------------------------------- the IR pass

SRC = """func f(%a: f64[2d], %y: f64[1d]) -> (f64) {
  %0: i64 = const 0
  %1: i64 = const 1
  %n: i64 = dim %a, 0
  %m: i64 = dim %a, 1
  %i: i64 = while (%0) cond(%i.1: i64) {
    %2: bool = lt %i.1, %n
    yield %2
  } do(%i.2: i64) {
    %s0: f64 = const 0.0
    %j: i64, %s: f64 = while (%0, %s0) cond(%j.1: i64, %s.1: f64) {
      %3: bool = lt %j.1, %m
      yield %3
    } do(%j.2: i64, %s.2: f64) {
      %4: f64 = load %a, %i.2, %j.2
      %5: f64 = mul %4, %4
      %6: f64 = add %s.2, %5
      %7: i64 = add %j.2, %1
      yield %7, %6
    }
    store %y, %i.2, %s
    %8: i64 = add %i.2, %1
    yield %8
  }
  %9: f64 = load %y, %0
  return %9
}
"""


def _loops(func) -> int:
    return sum(isinstance(s, While) for s in walk(func.block))


def test_the_pass_makes_a_jammed_loop_and_the_rest():
    func = parse_func(SRC)
    out = jam_loops(func)
    assert _loops(func) == 2 and _loops(out) == 4
    for rows in range(2 * LANES + 1):
        a = np.arange(rows * 3.0).reshape(rows, 3) - 1.5
        y1, y2 = np.full(rows + 1, 7.0), np.full(rows + 1, 7.0)
        interp.run(func, [a, y1])
        interp.run(out, [a, y2])
        assert y1.tobytes() == y2.tobytes()


@pytest.mark.parametrize("change", [
    ("store %y, %i.2, %s", "store %y, %0, %s"),              # every trip writes y[0]
    ("store %y, %i.2, %s", "%10: i64 = add %i.2, %1\n    %11: f64 = load %y, %10\n"
     "    store %y, %i.2, %11"),                               # reads the next trip's element
    ("%3: bool = lt %j.1, %m", "%3: bool = lt %j.1, %i.2"),  # a bound the lanes do not share
    ("%s0: f64 = const 0.0", "%s0: f64 = const 0.0\n    push %s0"),  # the tape on both sides
    ("%6: f64 = add %s.2, %5", "%6: f64 = add %s.2, %5\n      push %6"),  # ... in the inner loop
], ids=["one element", "next element", "triangle", "push on both sides", "push inside"])
def test_what_the_pass_leaves_alone(change):
    src = SRC.replace(*change)
    if "push %s0" in src:
        src = src.replace("store %y, %i.2, %s", "store %y, %i.2, %s\n    push %s")
    func = parse_func(src)
    assert jam_loops(func) is func


@pytest.mark.parametrize("boundscheck", [True, False])
def test_codegen_asks_llvm_not_to_unroll_or_vectorize_the_jammed_loops(monkeypatch,
                                                                       boundscheck):
    """Unrolled once by the pass, the jammed loops carry llvm.loop.unroll.disable and
    vectorize.width 1 (the vectorizer would make the lanes' chains ordered reductions of
    gathered elements); without the pass no loop has the vectorizer's property (LLVM's
    unroller may mark loops of its own with the other)."""
    args = _args(matvec_rows, 9)
    text = pyad.jit_grad(matvec_rows, cache=False, boundscheck=boundscheck).llvm_ir(*args)
    assert "llvm.loop.unroll.disable" in text
    assert '!"llvm.loop.vectorize.width", i32 1' in text
    monkeypatch.setattr(pipeline, "jam_loops", lambda func: func)
    text = pyad.jit_grad(matvec_rows, cache=False, boundscheck=boundscheck).llvm_ir(*args)
    assert "llvm.loop.vectorize.width" not in text


def _jammed_tests(func):
    """The conditions of the jammed loops of `func` (pipeline.native's IR), as op lists."""
    native = pipeline.native(func)
    return [[(t.op, t.attrs) for t in w.cond.body] for w in walk(native.block)
            if isinstance(w, While) and w.note and "unroll and jam" in w.note[0]]


def test_rows_that_split_sums_splits_run_jammed_only_when_short(monkeypatch):
    """Jammed, the work loop of four rows' exps stays scalar (6.7 instead of 2.0 ns an
    element, measured): the jammed loop's test also asks for rows shorter than MIN_TRIPS;
    longer rows run in the loop after it, whose sums split_sums splits. The same bits as
    without the pass, short rows or long."""
    from pyad.ir.split_sums import MIN_TRIPS
    func, _ = pipeline.primal_ir(row_sums_of_exps, ("f64[2d]", "f64[1d]"))
    tests = _jammed_tests(func)
    assert tests and all(("const", (MIN_TRIPS,)) in t for t in tests)
    func, _ = pipeline.primal_ir(matvec_rows, ("f64[2d]", "f64[1d]"))   # terms too cheap
    tests = _jammed_tests(func)
    assert tests and not any(("const", (MIN_TRIPS,)) in t for t in tests)

    def results():
        rng = np.random.default_rng(7)
        out = []
        for m in (5, MIN_TRIPS - 1, MIN_TRIPS, 3 * MIN_TRIPS + 5):
            a, v = rng.uniform(-1.0, 1.0, (2 * LANES + 3, m)), rng.uniform(-1.0, 1.0, m)
            f = pyad.jit_grad(row_sums_of_exps, argnums="all", cache=False)
            out += [np.asarray(x).tobytes() for x in pyad.tree_leaves(f.value_and_grad(a, v))]
            out.append(np.float64(f(a, v)).tobytes())
        return out
    jammed = results()
    monkeypatch.setattr(pipeline, "jam_loops", lambda func: func)
    assert results() == jammed
