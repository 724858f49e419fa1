"""In-place updates and aliasing: in-place updates differentiated exactly (closed forms:
repeated squares, prefix sums, stencils with swapped buffers, sorting by swaps, scatter-add),
what the tape keeps for arrays written and read, overlapping and aliased in-place updates as
NumPy computes them, buffer swaps, allocation in loops, mixed dtypes, division by zero as
NumPy does it; repeated calls do not grow the process and two threads share one gradient."""
from __future__ import annotations

import gc
import math
import os

import numpy as np
import pytest

import pyad

from ..concurrency import run_together
from .. import corpus_arrays as C
from .harness import assert_close, assert_identical, check_function, compiled


# =========================================================================== exact in-place
def test_repeated_in_place_square_is_differentiated_exactly():
    x = np.array([0.9, -0.8, 1.05, 0.7, -1.1])
    f = compiled(C.repeated_square)
    for reps in (1, 2, 3, 4):
        k = 2 ** reps
        (g, _) = f.grad(x, reps)
        assert_close(g, k * x ** (k - 1), rtol=1e-13, what=f"reps={reps}")
        assert_close(f(x, reps), float(np.sum(x ** k)), rtol=1e-13)


def test_in_place_prefix_sums_are_differentiated_exactly():
    g = np.random.default_rng(37)
    x, w = g.normal(size=7), g.normal(size=7)
    gx, gw = compiled(C.weighted_prefix_sums).grad(x, w)
    assert_close(gx, np.cumsum(w[::-1])[::-1], rtol=1e-13)
    assert_close(gw, np.cumsum(x), rtol=1e-13)
    y, back = compiled(C.cumsum_array).pullback(x)
    assert_close(back(w), (np.cumsum(w[::-1])[::-1],), rtol=1e-13)


def _heat_matrix(n, alpha):
    M = np.eye(n)
    for i in range(1, n - 1):
        M[i, i - 1] += alpha
        M[i, i] -= 2 * alpha
        M[i, i + 1] += alpha
    return M


@pytest.mark.parametrize("steps", [0, 1, 2, 5, 8])
def test_stencil_with_swapped_buffers_is_differentiated_exactly(steps):
    """The heat stencil is linear in u0: y = M^steps u0, so back(w) = (M^T)^steps w; the
    alpha derivative is checked by finite differences."""
    g = np.random.default_rng(41)
    u0, alpha, w = g.normal(size=7), 0.3, g.normal(size=7)
    P = np.linalg.matrix_power(_heat_matrix(7, alpha), steps)
    f = compiled(C.heat_stencil)
    y, back = f.pullback(u0, alpha, steps)
    assert_close(y, P @ u0, rtol=1e-12)
    gu, ga, gs = back(w)
    assert gs is None
    assert_close(gu, P.T @ w, rtol=1e-12)
    h = 1e-6
    fd = (np.dot(f(u0, alpha + h, steps), w) - np.dot(f(u0, alpha - h, steps), w)) / (2 * h)
    assert abs(ga - fd) <= 1e-6 * max(1.0, abs(fd))
    # the energy variant: grad of sum(u^2)
    e = compiled(C.heat_energy)
    gu, _, _ = e.grad(u0, alpha, steps)
    P2 = np.linalg.matrix_power(_heat_matrix(7, alpha), steps)
    assert_close(gu, 2 * P2.T @ (P2 @ u0), rtol=1e-12)


def test_sort_by_swaps_is_differentiated_exactly():
    x = C._distinct(43, 8)
    w = np.random.default_rng(44).normal(size=8)
    gx, gw = compiled(C.bubble_sort_weighted).grad(x, w)
    order = np.argsort(x)
    want = np.zeros(8)
    want[order] = w
    assert_close(gx, want, rtol=1e-15)
    assert_close(gw, np.sort(x), rtol=1e-15)
    y, back = compiled(C.insertion_sort).pullback(x)
    assert_close(y, np.sort(x))
    assert_close(back(w), (want,), rtol=1e-15)


def test_scatter_add_with_repeated_and_negative_indices_is_exact():
    x = np.array([0.5, -1.5, 2.0, 0.25, 1.0])
    idx = np.array([1, -1, 1, 0, 3])
    w = np.array([2.0, -3.0, 0.5, 4.0])
    y, back = compiled(C.scatter_add).pullback(x, idx, 4)
    want_y = np.zeros(4)
    np.add.at(want_y, idx, x * x)
    assert_close(y, want_y)
    gx, gi, gn = back(w)
    assert gi is None and gn is None
    assert_close(gx, 2 * x * w[idx], rtol=1e-15)


def overwrite_several_times(x, n):
    """Each element of a local array overwritten n times by a nonlinear function of itself and
    of its right neighbour's current value (read before it is overwritten)."""
    a = x.copy()
    m = len(a)
    for t in range(n):
        for i in range(m):
            a[i] = math.sin(a[i]) * a[(i + 1) % m] + 0.5 * a[i]
    return np.sum(a * a)


def test_elements_overwritten_many_times():
    x = np.array([0.3, -0.7, 1.1, 0.45, -0.2, 0.9])
    for n in (0, 1, 3, 10):
        check_function(overwrite_several_times, (x, n))
    # the tape grows with the number of overwrites, not more than a few words per write
    f = compiled(overwrite_several_times)
    b1, b2 = f.tape_bytes(x, 10), f.tape_bytes(x, 20)
    assert 0 < b1 < b2 <= 2 * b1 + 4096
    assert b2 - b1 <= 10 * 6 * 64


def test_argument_arrays_are_reread_not_saved():
    """docs/arrays.md: values read from arrays that are never written (arguments) are re-read
    in the reverse sweep, not saved: the tape of a loop that only reads arguments does not
    grow with the number of elements read."""
    f = compiled(C.dot_loop)
    small = f.tape_bytes(np.ones(10), np.ones(10))
    big = f.tape_bytes(np.ones(10000), np.ones(10000))
    assert big <= small + 1024, (small, big)


def _reads_after_the_last_write(x):
    """`a` is filled first and only read afterwards, inside a loop that runs many trips (and
    carries `s` through a product, so that it is reversed with the tape: fused_loops.py)."""
    a = np.zeros(len(x))
    for i in range(len(x)):
        a[i] = x[i] * x[i]
    s = 0.0
    for i in range(len(x)):
        s = 0.5 * s + a[i] * a[i] * x[i]
    return s


def _reads_then_a_later_write(x):
    """The same, but `a` is written again after the loop that reads it: the values the
    reverse sweep needs are no longer in memory and must be saved."""
    a = np.zeros(len(x))
    for i in range(len(x)):
        a[i] = x[i] * x[i]
    s = 0.0
    for i in range(len(x)):
        s = 0.5 * s + a[i] * a[i] * x[i]
    for i in range(len(x)):
        a[i] = 3.0 * a[i]
    return s + a[0]


def _reads_inside_the_loop_that_writes(x):
    """`a` is read in the loop that also writes it (the next trip overwrites what was read)."""
    a = np.zeros(2)
    s = 0.0
    for i in range(len(x)):
        a[i % 2] = x[i] * x[i]
        s += a[0] * np.sin(a[1])
    return s


@pytest.mark.parametrize("fn", [_reads_after_the_last_write, _reads_then_a_later_write,
                                _reads_inside_the_loop_that_writes])
def test_reads_of_arrays_written_earlier(fn):
    """docs/arrays.md: a read of a local array that nothing writes afterwards is re-read in the
    reverse sweep; any later write (after it, or in a loop around it) makes pyad save it."""
    x = np.linspace(0.3, 1.7, 9)
    check_function(fn, (x,))


def test_reads_after_the_last_write_are_not_saved():
    f, g = compiled(_reads_after_the_last_write), compiled(_reads_then_a_later_write)
    small, big = np.ones(10), np.ones(10000)
    assert f.tape_bytes(big) <= f.tape_bytes(small) + 1024
    # the control: with a later write the tape grows with every element read
    assert g.tape_bytes(big) >= g.tape_bytes(small) + 8 * 9990


# =========================================================================== aliasing
def overlapping_inplace(x):
    """`v += w` where v = a[1:] and w = a[:-1] overlap: NumPy computes it as if w were copied
    first (a[i] += old a[i - 1]), not as a running prefix sum."""
    a = x.copy()
    v = a[1:]
    w = a[:-1]
    v += w
    v *= w
    return a


def inplace_through_views(x, y):
    """Whole-array augmented assignment on views (a row, a column, a slice) of local arrays
    modifies the base, as in NumPy."""
    A = np.outer(x, y)
    r = A[1]
    r += y
    c = A[:, 0]
    c *= x
    s = A[0][1:]
    s -= 0.5 * y[1:]
    t = A.T
    t /= 2.0
    return A


def local_aliases(x):
    """`b = a` makes b another name for the same local array; rebinding a afterwards does not
    move the views taken before."""
    a = np.zeros(len(x))
    b = a
    b[0] = x[0] * x[1]
    v = a[1:]
    a = np.ones(len(x))
    v[0] = x[2] * 3.0
    a[-1] = x[-1]
    return a, b, v * 1.0


def read_then_overwrite(x):
    """Whole-array reads of an array that is overwritten later (element writes and whole-array
    in-place updates): the reverse sweep must see the values that were read."""
    a = x.copy()
    s = np.sum(a * a)
    for i in range(len(a)):
        a[i] = 0.5 * a[i] + np.sin(a[i])
    t = np.sum(np.sin(a) * a)
    a *= a
    a[0] = s
    u = np.dot(a, x)
    a += 1.0
    return t + np.sum(a * a) + u


def conditional_swap(u0, c, n):
    """Buffers swapped only on some iterations (the alias of u is data dependent)."""
    u = u0.copy()
    v = np.zeros(len(u0))
    for k in range(n):
        for i in range(len(u)):
            v[i] = math.tanh(c * u[i] + u[i - 1])
        if k % 3 != 1:
            u, v = v, u
    return np.sum(u * u) + 0.5 * np.sum(v)


def same_array_twice(x):
    """The same array returned twice in a tuple (two new arrays), and a view of it."""
    a = np.exp(x)
    return a, a, a[1:]


def allocate_in_loop(x, n):
    """A new local array allocated in every iteration (and carried)."""
    acc = np.zeros(len(x))
    for k in range(n):
        t = np.zeros(len(x))
        for i in range(len(x)):
            t[i] = math.sin(x[i] * (k + 1)) + acc[i] * 0.5
        acc = t
    return np.sum(acc * x)


def mixed_dtypes(k, b, x):
    """Mixed int64 / bool / float64 array arithmetic follows NumPy's promotion: int + float is
    float, int / int is float, int // int and int ** int are ints, bool * float is float."""
    return k + x, k / (k * k + 1), k // 3, k ** 2, b * x, np.where(b, k, -k), k * 0.5 + b, \
        np.sum(k) + np.sum(x), k > x, np.maximum(k, x)


def test_overlapping_in_place_update_matches_numpy():
    x = np.array([1.0, 2.0, 3.0, 4.0, -0.5])
    check_function(overlapping_inplace, (x,))


def test_in_place_updates_through_views():
    g = np.random.default_rng(47)
    check_function(inplace_through_views, (g.normal(size=3), g.normal(size=4)))


def test_local_aliases_and_rebinding():
    check_function(local_aliases, (np.array([0.5, -1.5, 2.0, 0.75]),))


def test_whole_array_reads_of_arrays_written_later():
    g = np.random.default_rng(53)
    check_function(read_then_overwrite, (g.normal(size=5),))


def test_data_dependent_buffer_swaps():
    g = np.random.default_rng(59)
    for n in (0, 1, 2, 5, 7):
        check_function(conditional_swap, (g.normal(size=5), 0.7, n))


def test_same_array_returned_twice():
    x = np.array([0.5, -1.0, 0.25])
    y, back = compiled(same_array_twice).pullback(x)
    assert not np.shares_memory(y[0], y[1])
    w = (np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 2.0]), np.array([10.0, 20.0]))
    (g,) = back(w)
    assert_close(g, np.exp(x) * (w[0] + w[1] + np.array([0.0, 10.0, 20.0])), rtol=1e-15)
    check_function(same_array_twice, (x,))


def test_allocation_inside_a_loop():
    g = np.random.default_rng(61)
    for n in (0, 1, 4, 30):
        check_function(allocate_in_loop, (g.normal(size=4), n))


def test_mixed_dtype_arithmetic_follows_numpy():
    k = np.array([3, -7, 0, 12, 5])
    b = np.array([True, False, True, True, False])
    x = np.array([0.5, -1.25, 2.0, 0.125, 3.0])
    check_function(mixed_dtypes, (k, b, x))


def _divide_arrays(x, y):
    q = x / y
    return q[0], q[1], q[2], np.sum(1.0 / y[:2])


def test_array_division_by_zero_follows_numpy_not_python():
    # Whole-array `/` is NumPy's (inf and nan, no exception); scalar `/` stays Python's.
    f = pyad.jit_grad(_divide_arrays, argnums="all")
    x, y = np.array([1.0, -2.0, 0.0]), np.array([0.0, 0.0, 0.0])
    with np.errstate(all="ignore"):
        want = _divide_arrays(x, y)
    got = f(x, y)
    assert got[:2] == (math.inf, -math.inf) and math.isnan(got[2]) and want[:2] == got[:2]
    assert got[3] == want[3] == math.inf
    y2 = np.array([2.0, -4.0, 0.5])
    y0, back = f.pullback(x, y2)
    gx, gy = back((1.0, 1.0, 1.0, 1.0))
    np.testing.assert_allclose(gx, 1.0 / y2)
    np.testing.assert_allclose(gy, -x / y2 ** 2 - np.array([1 / 4, 1 / 16, 0.0]))
    with pytest.raises(ZeroDivisionError, match="line"):
        pyad.jit_grad(_scalar_division)(np.zeros(2))


def _scalar_division(y):
    return 1.0 / y[0]


def _rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads /proc/self/statm")
def test_repeated_array_calls_do_not_grow_the_process():
    """Results, gradients, shadow arrays, local arrays and pullbacks are freed."""
    g = np.random.default_rng(67)
    x, W = g.normal(size=300), g.normal(size=(300, 300))
    f = compiled(C.rnn_final_state)
    args = (W * 0.05, W * 0.05, x, np.tile(x, (3, 1)), x * 0.1)
    fm, fl = compiled(C.mlp_loss), compiled(allocate_in_loop)
    margs = (np.tile(x[:40], (20, 1)).reshape(20, 40), W[:40, :30] * 0.1, x[:30] * 0.1,
             x[:30], 0.3, x[:20])

    def work():
        y, back = f.pullback(*args)
        back(y)
        fm.value_and_grad(*margs)
        fm(*margs)
        fl.grad(x, 3)

    for _ in range(20):
        work()
    gc.collect()
    before = _rss_bytes()
    for _ in range(150):
        work()
    gc.collect()
    grown = _rss_bytes() - before
    assert grown < 8 * 2**20, f"RSS grew by {grown / 2**20:.1f} MB over 150 rounds"


def test_two_threads_share_an_array_gradient():
    f = compiled(C.thomas_inplace_energy)
    sets = [C._tridiag(72, 50), C._tridiag(73, 40)]
    expected = [f.value_and_grad(*a) for a in sets]

    def work(t):
        for _ in range(200):
            assert_identical(f.value_and_grad(*sets[t]), expected[t])
            y, back = f.pullback(*sets[t])
            assert_identical(back(1.0), expected[t][1])
    run_together(work, 2)
