"""Views and returned arrays: writes through views land in the base, slice bounds, views of
arguments read correctly; returned arrays are new C-contiguous arrays, and a pullback
outlives its arguments, ignores later changes to them and rejects a cotangent of the wrong
shape."""
from __future__ import annotations

import gc

import numpy as np
import pytest

from .. import corpus_arrays as C
from .harness import assert_close, assert_identical, check_function, compiled, relayout
from .ops_table import op_transpose


# =========================================================================== views
def write_through_views(x, A):
    """Writes through views of local arrays land in the base: a[:, j], a[i] of 2-D, a.T,
    a[lo:hi] of 1-D and of 2-D."""
    B = A.copy()
    c = B[:, 1]
    c[0] = x[0]
    c[-1] *= x[1]
    r = B[-1]
    r[0] += x[1]
    t = B.T
    t[2, 0] = x[2] * 2.0
    top = B[:2]
    top[1, -1] -= x[0] * x[1]
    y = x.copy()
    s = y[1:3]
    s[1] = -1.0
    s[0] += y[0]
    return B, y, c * 1.0, r * 1.0


def view_of_view(A):
    """Views of views share the base: (B[1:])[0] is B[1], (B.T)[:, 0] is B[0]."""
    B = A.copy()
    v = B[1:]
    row = v[0]
    row[0] = 100.0 + row[1]
    col = B.T[:, 0]
    col[1] = -7.0 * col[0]
    return B


def slice_bounds(x, lo, hi):
    """a[lo:hi] with int arguments: negative and out-of-range bounds clamp like Python."""
    v = x[lo:hi]
    s = 0.0
    for i in range(len(v)):
        s += v[i] * (i + 1)
    return s + len(v) + np.sum(x[lo:]) * 0.5 + np.sum(x[:hi]) * 0.25


def test_writes_through_views_are_visible_in_the_base():
    g = np.random.default_rng(17)
    check_function(write_through_views, (g.normal(size=4), g.normal(size=(3, 4))))
    check_function(view_of_view, (g.normal(size=(3, 4)),))


@pytest.mark.parametrize("lo, hi", [(1, 4), (-3, -1), (0, 100), (-100, 2), (4, 2), (-1, 10),
                                    (6, 6), (0, 0), (-6, 6), (2, -2)])
def test_slice_bounds(lo, hi):
    x = np.array([0.5, -1.0, 2.0, 0.25, -0.75, 1.5])
    check_function(slice_bounds, (x, lo, hi))


def test_views_of_arguments_read_correctly():
    """Views of arguments: a[i] of 3-D, a[:, j], a.T, a[lo:hi], also of strided arguments."""
    g = np.random.default_rng(19)
    T = g.normal(size=(3, 4, 2))
    w = g.normal(size=2)
    for Tl in (T, relayout(T, "negative")[0], relayout(T, "transposed")[0]):
        check_function(C.slices_of_3d, (Tl, w))
    A = g.normal(size=(4, 3))
    for Al in (A, relayout(A, "strided")[0], relayout(A, "fortran")[0]):
        check_function(C.transpose_gram_trace, (Al,))
        check_function(op_transpose, (Al,))


# =========================================================================== results
def identity(x):
    """Returns its argument: pyad returns a new array."""
    return x


def return_views(x, A):
    """Views returned (a slice, a row, a column, a transpose) are new C-contiguous arrays."""
    return x[1:3], A[1], A[:, 0], A.T, (x, A.T)


def test_returned_arrays_are_new_c_contiguous_arrays():
    g = np.random.default_rng(23)
    x = g.normal(size=5)
    y, back = compiled(identity).pullback(x)
    assert y is not x and not np.shares_memory(y, x) and np.array_equal(y, x)
    w = g.normal(size=5)
    assert_close(back(w), (w,))
    check_function(identity, (x,))
    check_function(identity, (relayout(g.normal(size=(3, 2)), "negative")[0],))
    check_function(identity, (np.array([3, 1, 2]),))
    A = g.normal(size=(3, 4))
    check_function(return_views, (x, A))
    check_function(return_views, (relayout(x, "strided")[0], relayout(A, "transposed")[0]))
    r = compiled(identity)(x)
    r[0] = 99.0  # the result is the caller's to modify
    assert x[0] != 99.0 and compiled(identity)(x)[0] == x[0]


def test_pullback_outlives_its_arguments():
    """back keeps whatever it needs: the argument arrays may be dropped (and their memory
    reused) before back is called."""
    g = np.random.default_rng(29)
    A, x = g.normal(size=(4, 3)), g.normal(size=3)
    f = compiled(C.rnn_final_state)
    args = C.CASES[[fn for fn, _ in C.CASES].index(C.rnn_final_state)][1][0]
    want_y, want_back = f.pullback(*args)
    w = g.normal(size=want_y.shape)
    want = want_back(w)
    copies_ = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    y, back = f.pullback(*copies_)
    del copies_
    gc.collect()
    junk = [np.full(a.shape, np.nan) for a in args if isinstance(a, np.ndarray) for _ in range(3)]
    assert_identical(back(w), want, "back after the arguments were dropped")
    del junk
    fm = compiled(C.matvec_loop)
    _, back = fm.pullback(A.copy(), x.copy())
    gc.collect()
    v = g.normal(size=4)
    assert_close(back(v), (np.outer(v, x), A.T @ v))


def test_pullback_is_not_affected_by_later_changes_to_the_arguments():
    """back(w) is the transposed Jacobian at the point where pullback was called, even if
    the caller modifies its arrays afterwards (as a closure over the evaluation would be)."""
    g = np.random.default_rng(31)
    A, x = g.normal(size=(4, 3)), g.normal(size=3)
    A0, x0 = A.copy(), x.copy()
    f = compiled(C.matvec_loop)
    _, back = f.pullback(A, x)
    A[...] = 0.0
    x[...] = 0.0
    v = g.normal(size=4)
    assert_close(back(v), (np.outer(v, x0), A0.T @ v))


def test_pullback_rejects_a_cotangent_of_the_wrong_shape():
    f = compiled(C.matvec_loop)
    A, x = np.ones((3, 2)), np.ones(2)
    _, back = f.pullback(A, x)
    for bad in (np.ones(4), np.ones((3, 1)), 1.0, (np.ones(3), 1.0)):
        with pytest.raises((TypeError, ValueError)):
            back(bad)
    assert_close(back(np.ones(3)), (np.ones((3, 2)), np.full(2, 3.0)))
