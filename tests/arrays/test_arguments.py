"""The array arguments a compiled function takes: every memory layout (strided, negative
strides, transposed, Fortran order, offset, read-only, unaligned fields, zero strides,
aliased arguments), empty arrays, dtype conversion and rejection, int and bool arrays (no
gradient), and argnums with arrays."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from .. import corpus_arrays as C
from ..corpus_arrays import CASES, NO_FINITE_DIFFERENCES
from .harness import (
    LAYOUTS, assert_close, assert_grad_structure, assert_identical, assert_unchanged, case_id,
    check_function, compiled, has_float_result, is_diff, line_of, py, random_like, relayout,
    snapshot)
from .ops_table import op_add, op_dot_mv, op_id, op_matmul_mm, op_outer, op_sum, op_sum_axis0


def _result_grad(f, args, want, rng_seed=0):
    """The gradient at args: grad for a float result, back(w) for a fixed w otherwise."""
    if type(want) is float:
        return f.grad(*args)
    y, back = f.pullback(*args)
    return back(random_like(want, np.random.default_rng(rng_seed)))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_layouts(case):
    """Every corpus function with its array arguments in every memory layout gives the
    values and gradients it gives for C-contiguous arguments; nothing is written into the
    views or their bases."""
    fn, samples = case
    f = compiled(fn)
    for args in samples:
        want = py(fn(*args))
        differentiable = any(is_diff(a) for a in args) and has_float_result(want) and \
            fn.__name__ not in NO_FINITE_DIFFERENCES
        ref_grad = _result_grad(f, args, want) if differentiable else None
        for kind in LAYOUTS:
            if kind in ("fortran", "transposed") and \
                    all(not isinstance(a, np.ndarray) or a.ndim < 2 for a in args):
                continue
            pairs = [relayout(a, kind) for a in args]
            largs = tuple(v for v, _ in pairs)
            snap = snapshot(largs) + snapshot(tuple(b for _, b in pairs if b is not None))
            got = f(*largs)
            assert_close(got, want, what=f"{fn.__name__} value with {kind} arguments",
                         fresh=True)
            if differentiable:
                g = _result_grad(f, largs, want)
                assert_close(g, ref_grad, what=f"{fn.__name__} gradient with {kind} arguments")
                assert_grad_structure(g, largs, f"{fn.__name__} gradient ({kind})")
            assert_unchanged(snap, f"{fn.__name__} {kind} argument or base")


def masked_int_sum_2d(K, B, X):
    """int64, bool and float64 2-D arguments read element by element."""
    s = 0.0
    t = 0
    for i in range(K.shape[0]):
        for j in range(K.shape[1]):
            if B[i, j]:
                s += K[i, j] * X[i, j]
                t += K[i, -1 - j]
    return s + t


def masked_int_sum_3d(K, B, X):
    """int64, bool and float64 3-D arguments, elementwise and whole-array."""
    s = 0.0
    for i in range(K.shape[0]):
        for j in range(K.shape[1]):
            for k in range(K.shape[2]):
                if B[i, j, k]:
                    s += K[i, j, k] * X[i, j, k]
    return s + np.sum(np.where(B, K * X, -X)) + np.sum(K)


@pytest.mark.parametrize("kind", ["C"] + LAYOUTS)
@pytest.mark.parametrize("fn, shape", [(masked_int_sum_2d, (3, 4)), (masked_int_sum_3d, (2, 3, 4))],
                         ids=["2d", "3d"])
def test_int_and_bool_arrays_in_every_layout(fn, shape, kind):
    g = np.random.default_rng(len(shape))
    K = g.integers(-5, 6, size=shape)
    B = g.uniform(size=shape) < 0.6
    X = g.normal(size=shape)
    args = tuple(relayout(a, kind)[0] if kind != "C" else a for a in (K, B, X))
    assert args[0].dtype == np.int64 and args[1].dtype == np.bool_
    _, grad = check_function(fn, args, name=f"{fn.__name__} ({kind})")
    assert grad[0] is None and grad[1] is None


def test_layout_helper_makes_the_layouts_it_claims():
    a = np.arange(24.0).reshape(2, 3, 4)
    assert relayout(a, "fortran")[0].flags.f_contiguous
    v = relayout(a, "negative")[0]
    assert all(s < 0 for s in v.strides)
    v = relayout(a, "strided")[0]
    assert not v.flags.c_contiguous and not v.flags.f_contiguous
    v = relayout(a, "transposed")[0]
    assert not v.flags.c_contiguous and v.base is not None
    assert not relayout(a, "readonly")[0].flags.writeable


def test_aliased_and_overlapping_arguments():
    """The same array (or overlapping views of one) passed as two arguments: each argument
    gets its own gradient."""
    x = np.array([1.0, 2.0, -3.0, 0.5])
    check_function(C.dot_loop, (x, x))
    assert_close(compiled(C.dot_loop).grad(x, x), (x, x))
    check_function(C.dot_loop, (x[1:], x[:-1]))
    assert_close(compiled(C.dot_loop).grad(x[1:], x[:-1]), (x[:-1], x[1:]))
    A = np.arange(12.0).reshape(3, 4) / 7.0
    check_function(C.bilinear_form, (A[:, 0], A, A[1]))


def test_unaligned_strided_field_views():
    """Fields of a structured array are float64 / int32 arrays with a 12-byte stride (not a
    multiple of the item size for the float64 field, unaligned)."""
    rec = np.zeros(4, dtype=[("a", "f8"), ("b", "i4")])
    rec["a"] = [1.0, 2.0, -3.0, 0.5]
    rec["b"] = [7, 8, 9, 10]
    x = rec["a"]
    assert x.dtype == np.float64 and x.strides == (12,)
    check_function(C.dot_loop, (x, x[::-1]))
    check_function(C.kahan_sum, (x,))
    assert compiled(count_total)(rec["b"], np.ones(4)) == 34


def test_zero_stride_broadcast_view_argument():
    """np.broadcast_to gives a read-only view with stride 0: still a strided array."""
    row = np.array([0.5, -1.25, 2.0])
    A = np.broadcast_to(row, (4, 3))
    assert A.strides[0] == 0
    f = compiled(C.matvec_loop)
    x = np.array([1.0, 2.0, -0.5])
    assert_close(f(A, x), py(C.matvec_loop(A, x)), fresh=True)
    _, back = f.pullback(A, x)
    w = np.array([1.0, -2.0, 0.5, 3.0])
    gA, gx = back(w)
    assert_close(gA, np.outer(w, x))
    assert_close(gx, A.T @ w)


# =========================================================================== empty arrays
def sum_of_squares(x):
    """sum x^2 in a loop (zero trips for an empty array)."""
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    return s


def whole_array_empty(x, A):
    """Whole-array ops on empty arrays."""
    return np.sum(np.exp(x)) + np.sum(A * 2.0) + np.mean(x * 0.0 + 1.0) * 0.0 + len(x) \
        + A.shape[0] + A.size


def empty_mean(x):
    return np.sum(x) + x.size


EMPTY_CASES = [
    (sum_of_squares, (np.zeros(0),)),
    (C.dot_loop, (np.zeros(0), np.zeros(0))),
    (C.kahan_sum, (np.zeros(0),)),
    (C.cumsum_array, (np.zeros(0),)),
    (C.matvec_loop, (np.zeros((0, 3)), np.ones(3))),
    (C.matvec_loop, (np.zeros((3, 0)), np.zeros(0))),
    (C.matmul_loop, (np.zeros((2, 0)), np.zeros((0, 3)))),
    (C.least_squares_residuals, (np.zeros((0, 2)), np.array([0.5, -1.0]), np.zeros(0))),
    (C.ridge_loss, (np.zeros((0, 3)), np.array([0.5, -1.0, 2.0]), np.zeros(0), 0.25)),
    (C.tensor_contract, (np.zeros((2, 0, 3)), np.ones(2), np.zeros(0), np.ones(3))),
    (op_add, (np.zeros(0), np.zeros(0))),
    (op_add, (np.zeros((0, 3)), np.zeros((0, 3)))),
    (op_dot_mv, (np.zeros((3, 0)), np.zeros(0))),
    (op_matmul_mm, (np.zeros((2, 0)), np.zeros((0, 2)))),
    (op_sum, (np.zeros((0, 4)),)),
    (op_sum_axis0, (np.zeros((0, 4)),)),
    (op_outer, (np.zeros(0), np.ones(3))),
    (empty_mean, (np.zeros((2, 0, 3)),)),
    (C.int_histogram, (np.zeros(0, dtype=np.int64), 3)),
]


@pytest.mark.parametrize("case", EMPTY_CASES, ids=op_id)
def test_empty_arrays(case):
    fn, args = case
    check_function(fn, args, name=f"{fn.__name__} (empty)")
    for layout in ("strided", "negative", "fortran"):
        largs = tuple(relayout(a, layout)[0] for a in args)
        assert_close(compiled(fn)(*largs), py(fn(*args)))


# =========================================================================== dtypes
def weighted_total(samples, weights):
    """sum samples[i] * weights[i]."""
    s = 0.0
    for i in range(len(samples)):
        s += samples[i] * weights[i]
    return s


def count_total(counts, weights):
    """An int result from an int array (weights unused except for its length)."""
    s = 0
    for i in range(len(weights)):
        s += counts[i]
    return s


def generic_total(samples):
    """s starts as the int 0: int for int and bool arrays, float for float arrays."""
    s = 0
    for i in range(len(samples)):
        s += samples[i]
    return s


def matrix_total(samples, weights):
    return np.sum(samples * weights)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_float_dtypes_are_converted_to_float64(dtype):
    g = np.random.default_rng(5)
    x64 = g.normal(size=5)
    x = x64.astype(dtype)
    w = g.normal(size=5)
    f = compiled(weighted_total)
    snap = snapshot((x, w))
    want = py(weighted_total(x.astype(np.float64), w))
    assert_close(f(x, w), want)
    gx, gw = f.grad(x, w)
    assert type(gx) is np.ndarray and gx.dtype == np.float64 and gx.shape == x.shape
    assert_close(gx, w)
    assert_close(gw, x.astype(np.float64))
    y, back = f.pullback(x, w)
    assert_close(back(1.0), (gx, gw))
    assert_unchanged(snap)
    assert x.dtype == dtype
    # a 2-D float32 array in Fortran order
    A = np.asfortranarray(g.normal(size=(3, 2)).astype(dtype))
    B = g.normal(size=(3, 2))
    f2 = compiled(matrix_total)
    assert_close(f2(A, B), py(matrix_total(A.astype(np.float64), B)))
    gA, gB = f2.grad(A, B)
    assert gA.dtype == np.float64 and gA.shape == (3, 2)
    assert_close(gA, B)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32])
def test_small_int_dtypes_are_converted_to_int64(dtype):
    counts = np.array([3, 1, 4, 1, 5, 9, 2], dtype=dtype)
    w = np.ones(7)
    f = compiled(count_total)
    got = f(counts, w)
    assert type(got) is int and got == 25
    assert_close(compiled(weighted_total)(counts, w), 25.0)
    g = compiled(weighted_total).grad(counts, w)
    assert g[0] is None and type(g[1]) is np.ndarray
    assert_close(g[1], counts.astype(np.float64))
    assert counts.dtype == dtype


def test_int_and_bool_arrays_are_their_own_signatures():
    f = pyad.jit_grad(generic_total)
    xf = np.array([0.5, -1.25, 3.0])
    xi = np.array([2, -7, 11], dtype=np.int64)
    xb = np.array([True, False, True, True])
    assert_close(f(xf), 2.25)
    assert_close(f(xi), 6)
    assert_close(f(xb), py(generic_total(xb)))
    assert type(f(xb)) is int
    assert_close(f(xf), 2.25)  # the first (native fast path) signature still works
    assert_close(f.grad(xf), np.ones(3))
    # int64 arrays of 1, 2 and 3 dims are separate signatures too
    assert_close(compiled(op_sum)(np.arange(6).reshape(2, 3)), 15)
    assert_close(compiled(op_sum)(np.arange(8).reshape(2, 2, 2)), 28)
    assert_close(compiled(op_sum)(np.array([True, True, False])),
                 py(np.sum(np.array([True, True, False]))))


def test_int_and_bool_array_arguments_have_no_gradient():
    x = np.array([0.5, 1.5, -2.0, 0.25])
    idx = np.array([3, -1, 0, 2, 2])
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    g = compiled(C.gather_weighted).grad(x, idx, w)
    assert g[1] is None
    want_x = np.zeros(4)
    np.add.at(want_x, idx, w)
    assert_close(g[0], want_x)
    assert_close(g[2], x[idx])
    mask = np.array([True, False, True, True])
    g = compiled(C.masked_mean).grad(x, mask)
    assert g[1] is None
    assert_close(g[0], mask / 3.0)


REJECTED = [
    ("complex", lambda: np.ones(3, dtype=np.complex128)),
    ("object", lambda: np.array([1.0, 2.0, 3.0], dtype=object)),
    ("uint64", lambda: np.ones(3, dtype=np.uint64)),
    ("str", lambda: np.array(["a", "b", "c"])),
    ("bytes", lambda: np.array([b"a", b"b", b"c"])),
    ("datetime", lambda: np.array(["2020-01-01"] * 3, dtype="datetime64[D]")),
    ("0-d", lambda: np.array(1.5)),
    ("4-d", lambda: np.ones((1, 1, 1, 3))),
    ("memoryview", lambda: memoryview(np.ones(3))),
]
if np.dtype(np.longdouble) != np.dtype(np.float64):
    REJECTED.append(("longdouble", lambda: np.ones(3, dtype=np.longdouble)))


@pytest.mark.parametrize("kind, make", REJECTED, ids=[k for k, _ in REJECTED])
def test_unsupported_arguments_raise_type_error_naming_the_argument(kind, make):
    f = compiled(weighted_total)
    good = np.array([1.0, 2.0, 3.0])
    f(good, good)  # a compiled signature exists (the native fast path)
    bad = make()
    for call in (f, f.grad, f.value_and_grad, f.pullback):
        with pytest.raises(TypeError, match="'weights'") as info:
            call(good, bad)
        assert "'samples'" not in str(info.value)
        with pytest.raises(TypeError, match="'samples'"):
            call(bad, good)


@pytest.mark.parametrize("seq", [[1.0, 2.0, 3.0], (1.0, 2.0, 3.0)], ids=["list", "tuple"])
def test_lists_and_tuples_for_an_array_are_read_as_python_reads_them(seq):
    """A list or tuple is a pytree argument (docs/gradients.md), not an array; indexed with
    a run-time index it is read as Python reads it (docs/python.md)."""
    f = compiled(weighted_total)
    good = np.array([1.0, 2.0, 3.0])
    assert f(good, seq) == pytest.approx(weighted_total(good, seq))
    assert list(pyad.jit_grad(weighted_total).grad(good, seq)) == pytest.approx(list(seq))


def test_none_for_an_array_is_refused_where_it_is_indexed():
    f = compiled(weighted_total)
    good = np.array([1.0, 2.0, 3.0])
    for call in (f, f.grad, f.pullback):
        with pytest.raises(pyad.PyadError, match="None cannot be indexed") as info:
            call(good, None)
        assert info.value.line == line_of(weighted_total, "s += samples[i]")


def test_non_native_byte_order_is_converted_or_rejected():
    """A big-endian float64 or int64 array is not a native float64/int64 array: pyad must
    either convert it (read the right values) or raise TypeError naming the argument; it must
    never reinterpret the bytes."""
    x = np.array([1.5, -2.0, 0.25], dtype=">f8")
    w = np.array([2.0, 1.0, -3.0])  # x . w = 0.25
    f = compiled(weighted_total)
    try:
        got = f(x, w)
    except TypeError as e:
        assert "'samples'" in str(e)
    else:
        assert_close(got, float(weighted_total(x.astype(np.float64), w)))
        assert_close(f.grad(x, w)[1], x.astype(np.float64))
    k = np.array([3, 1, 4], dtype=">i8")
    try:
        got = compiled(count_total)(k, w)
    except TypeError as e:
        assert "'counts'" in str(e)
    else:
        assert got == 8


# =========================================================================== argnums
def test_argnums_with_arrays():
    g = np.random.default_rng(9)
    A, x, b = g.normal(size=(4, 3)), g.normal(size=3), g.normal(size=4)
    full = compiled(C.ridge_loss).grad(A, x, b, 0.5)
    one = pyad.jit_grad(C.ridge_loss, argnums=1).grad(A, x, b, 0.5)
    assert type(one) is np.ndarray
    assert_identical(one, full[1])
    two = pyad.jit_grad(C.ridge_loss, argnums=(0, 3)).grad(A, x, b, 0.5)
    assert_identical(two, (full[0], full[3]))
    val, gx = pyad.jit_grad(C.ridge_loss, argnums=1).value_and_grad(A, x, b, 0.5)
    assert_identical(gx, full[1])
    idx = np.array([0, 1])
    with pytest.raises(TypeError):
        pyad.jit_grad(C.gather_weighted, argnums=1).grad(x, idx, np.ones(2))
