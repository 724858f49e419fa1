"""Located errors and bounds checks for arrays: writes into argument arrays refused at
compile time, naming the line; IndexError and ValueError (shape mismatches) naming the line
at run time in the primal, `grad` and `pullback`; `boundscheck=False` gives the same values
and keeps negative indices; element loops vectorize with bounds checks on."""
from __future__ import annotations

import re

import numpy as np
import pytest

import pyad

from ..corpus_arrays import CASES
from .harness import (
    assert_close, assert_identical, assert_unchanged, case_id, check_function, compiled,
    has_float_result, line_of, py, random_like, snapshot)


# =========================================================================== located errors
def write_param(data, i):
    data[i] = 0.0
    return data[0]


def augwrite_param(data):
    data[0] += 1.0
    return data[0]


def write_param_unreached(data, flag):
    if flag:
        data[0] = 1.0
    return data[0] * 2.0


def write_param_slice_view(data):
    v = data[1:]
    v[0] = 2.0
    return np.sum(data)


def write_param_row_view(data):
    r = data[0]
    r[1] = 2.0
    return np.sum(data)


def write_param_column_view(data):
    c = data[:, 1]
    c[0] += 2.0
    return np.sum(data)


def write_param_transpose(data):
    t = data.T
    t[0, 1] = 2.0
    return np.sum(data)


def write_param_alias(data):
    b = data
    b[0] = 2.0
    return b[0]


def write_param_in_loop(data, n):
    for i in range(n):
        data[i % len(data)] *= 0.5
    return np.sum(data)


def write_param_swapped_alias(data, n):
    u = data.copy()
    v = data
    for i in range(n):
        u, v = v, u
    u[0] = 1.0
    return np.sum(u)


def write_param_3d(data):
    m = data[1]
    m[0, 0] = 1.0
    return np.sum(data)


WRITE_INTO_ARGUMENT = [
    (write_param, "data[i] = 0.0", (np.ones(3), 1)),
    (augwrite_param, "data[0] += 1.0", (np.ones(3),)),
    (write_param_unreached, "data[0] = 1.0", (np.ones(3), False)),
    (write_param_slice_view, "v[0] = 2.0", (np.ones(3),)),
    (write_param_row_view, "r[1] = 2.0", (np.ones((2, 3)),)),
    (write_param_column_view, "c[0] += 2.0", (np.ones((2, 3)),)),
    (write_param_transpose, "t[0, 1] = 2.0", (np.ones((2, 3)),)),
    (write_param_alias, "b[0] = 2.0", (np.ones(3),)),
    (write_param_in_loop, "*= 0.5", (np.ones(3), 4)),
    (write_param_swapped_alias, "u[0] = 1.0", (np.ones(3), 1)),
    (write_param_3d, "m[0, 0] = 1.0", (np.ones((2, 2, 2)),)),
]


@pytest.mark.parametrize("fn, needle, args", WRITE_INTO_ARGUMENT,
                         ids=[c[0].__name__ for c in WRITE_INTO_ARGUMENT])
def test_element_write_into_an_argument_is_refused_at_compile_time(fn, needle, args):
    f = pyad.jit_grad(fn)
    line = line_of(fn, needle)
    snap = snapshot(args)
    for call in (f, f.grad, f.pullback):
        with pytest.raises(pyad.PyadSyntaxError) as info:
            call(*args)
        err = info.value
        assert "data" in err.bare_message, err.bare_message
        assert err.filename == __file__ and err.line == line, (err.filename, err.line, line)
        assert str(err).startswith(f"{__file__}:{line}:"), str(err)
    assert_unchanged(snap)


def copy_then_write(data):
    data = data.copy()
    data[0] = 5.0
    return np.sum(data * data)


def arith_then_write(data):
    d = data * 1.0
    d[0] = 5.0
    e = -data
    e[1] += 1.0
    return np.sum(d + e)


def test_writes_after_a_copy_are_accepted():
    x = np.array([1.0, 2.0, 3.0])
    check_function(copy_then_write, (x,))
    assert_close(compiled(copy_then_write).grad(x), (np.array([0.0, 4.0, 6.0]),))
    check_function(arith_then_write, (x,))


def read_at(data, i):
    return data[i] * 2.0


def read_2d(data, i, j):
    s = 0.0
    for k in range(3):
        s += data[i, j] * k
    return s


def read_3d(data, i, j, k):
    return data[i, j, k] + 1.0


def write_local_at(data, i):
    out = np.zeros(len(data))
    out[i] = data[0]
    return np.sum(out)


def augwrite_local_2d(data, i, j):
    out = np.zeros((2, 3))
    out[i, j] += data[0]
    return np.sum(out * data[1])


def read_in_loop(data, n):
    s = 0.0
    for i in range(n):
        s += data[i] * data[i]
    return s


def read_view(data, i):
    v = data[1:4]
    return v[i] * 3.0


INDEX_ERRORS = [
    # fn, needle, good args, bad args, message
    (read_at, "data[i] * 2.0", (np.ones(10), 9), (np.ones(10), 10),
     "index 10 is out of bounds for axis 0 with size 10"),
    (read_at, "data[i] * 2.0", (np.ones(10), -10), (np.ones(10), -11),
     "index -11 is out of bounds for axis 0 with size 10"),
    (read_2d, "data[i, j] * k", (np.ones((3, 4)), -3, 3), (np.ones((3, 4)), 1, 4),
     "index 4 is out of bounds for axis 1 with size 4"),
    (read_2d, "data[i, j] * k", (np.ones((3, 4)), 2, -4), (np.ones((3, 4)), -4, 0),
     "index -4 is out of bounds for axis 0 with size 3"),
    (read_3d, "data[i, j, k] + 1.0", (np.ones((2, 3, 4)), 1, 2, 3), (np.ones((2, 3, 4)), 1, 2, -5),
     "index -5 is out of bounds for axis 2 with size 4"),
    (write_local_at, "out[i] = data[0]", (np.ones(4), -4), (np.ones(4), 4),
     "index 4 is out of bounds for axis 0 with size 4"),
    (augwrite_local_2d, "out[i, j] += data[0]", (np.ones(4), 1, 2), (np.ones(4), 2, 0),
     "index 2 is out of bounds for axis 0 with size 2"),
    (read_in_loop, "s += data[i] * data[i]", (np.ones(50), 50), (np.ones(50), 51),
     "index 50 is out of bounds for axis 0 with size 50"),
    (read_view, "v[i] * 3.0", (np.ones(6), 2), (np.ones(6), 3),
     "index 3 is out of bounds for axis 0 with size 3"),
]


@pytest.mark.parametrize("fn, needle, good, bad, message", INDEX_ERRORS,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(INDEX_ERRORS)])
def test_out_of_bounds_index_raises_index_error_naming_the_line(fn, needle, good, bad, message):
    with pytest.raises(IndexError):
        fn(*bad)  # CPython agrees
    f = compiled(fn)
    line = line_of(fn, needle)
    want = py(fn(*good))
    assert_close(f(*good), want)
    for call in (f, f.grad, f.value_and_grad, f.pullback):
        with pytest.raises(IndexError) as info:
            call(*bad)
        text = str(info.value)
        assert message in text, text
        assert f"line {line} " in text + " " and "test_errors.py" in text, text
    # still usable afterwards
    assert_close(f(*good), want)
    assert_close(f.grad(*good), compiled(fn).grad(*good))


@pytest.mark.parametrize("case", [c for c in CASES if c[0].__name__ in {
    "thomas_solve", "cholesky_logdet", "diffusion_2d", "lorenz96", "gram_schmidt",
    "scatter_add", "slices_of_3d", "attention"}],
    ids=case_id)
def test_boundscheck_false_gives_the_same_values(case):
    fn, samples = case
    f, fast = compiled(fn), compiled(fn, boundscheck=False)
    for args in samples:
        want = py(fn(*args))
        assert_identical(fast(*args), f(*args), f"{fn.__name__} value")
        if type(want) is float:
            assert_identical(fast.grad(*args), f.grad(*args), f"{fn.__name__} grad")
            assert_identical(fast.value_and_grad(*args), f.value_and_grad(*args))
        elif has_float_result(want):
            w = random_like(want, np.random.default_rng(0))
            assert_identical(fast.pullback(*args)[1](w), f.pullback(*args)[1](w),
                             f"{fn.__name__} pullback")
        check_function(fn, args, f=fast, name=f"{fn.__name__} (boundscheck=False)")


def boundscheck_in_bounds_negative(x, i):
    return x[i] + x[-1] * x[-len(x)]


def _axpy(a, x, y):
    out = np.empty(len(x))
    for i in range(len(x)):
        out[i] = a * x[i] + y[i]
    return out


def _dot_loop(x, y):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * y[i]
    return s


_VECTOR = re.compile(r"<\d+ x double>")
_PARTIAL_SUMS = re.compile(r"= phi <\d+ x double>")  # a vector carried by a loop


def test_element_loops_vectorize_with_bounds_checks_on():
    """docs/arrays.md (Performance): an element loop over array arguments and a local array
    is vectorized by LLVM with bounds checks on (noalias holds; the checks are hoisted)."""
    x, y = np.ones(64), np.ones(64)
    ir = pyad.jit_grad(_axpy).llvm_ir(2.0, x, y)
    assert _VECTOR.search(ir), "the element loop was not vectorized"


def test_fastmath_reassociates_reductions_and_strict_ieee_does_not():
    """Strict: the adds keep CPython's order: no vector of partial sums, CPython's bits.
    fastmath: partial sums in vector registers."""
    x, y = np.linspace(0.0, 1.0, 64), np.linspace(1.0, 2.0, 64)
    strict, fast = pyad.jit_grad(_dot_loop), pyad.jit_grad(fastmath=True, argnums="all")(_dot_loop)
    assert not _PARTIAL_SUMS.search(strict.llvm_ir(x, y))     # the sum keeps its order
    assert strict(x, y) == _dot_loop(x, y)
    assert _PARTIAL_SUMS.search(fast.llvm_ir(x, y))
    assert fast(x, y) == pytest.approx(_dot_loop(x, y), rel=1e-12)
    g = fast.grad(x, y)
    np.testing.assert_allclose(g[0], y, rtol=1e-12)
    np.testing.assert_allclose(g[1], x, rtol=1e-12)


def test_boundscheck_false_keeps_negative_indices():
    f = compiled(boundscheck_in_bounds_negative, boundscheck=False)
    x = np.array([1.0, 2.0, 3.0, 4.0])
    for i in range(-4, 4):
        assert_close(f(x, i), py(boundscheck_in_bounds_negative(x, i)))
        check_function(boundscheck_in_bounds_negative, (x, i), f=f, name="boundscheck=False")


def add_mismatch(x, y):
    z = x * 2.0 + y
    return np.sum(z)


def add_mismatch_2d(A, r):
    B = A - r
    return np.sum(B * B)


def matvec_mismatch(A, x):
    y = A @ x
    return np.sum(y)


def dot_mismatch(x, y):
    return np.dot(x, y) * 2.0


def matmul_mismatch(A, B):
    C_ = np.dot(A, B)
    return np.sum(C_)


def where_mismatch(x, y):
    z = np.where(x > 0.0, x, y)
    return np.sum(z)


def maximum_mismatch(x, y):
    z = np.maximum(x, y)
    return np.sum(z)


def array_result_mismatch(x, y):
    return x * y


SHAPE_ERRORS = [
    # fn, needle, good args, bad args, "broadcast" in the message?
    (add_mismatch, "z = x * 2.0 + y", (np.ones(3), np.ones(1)), (np.ones(3), np.ones(4)), True),
    (add_mismatch_2d, "B = A - r", (np.ones((2, 3)), np.ones(3)), (np.ones((2, 3)), np.ones(2)),
     True),
    (where_mismatch, "np.where(x > 0.0, x, y)", (np.ones(3), np.ones(3)),
     (np.ones(3), np.ones(2)), True),
    (maximum_mismatch, "np.maximum(x, y)", (np.arange(6.0).reshape(2, 3), np.array([[0.5], [3.5]])),
     (np.ones((2, 3)), np.ones((3, 1))), True),
    (array_result_mismatch, "return x * y", (np.ones(3), np.ones(3)), (np.ones(3), np.ones(5)),
     True),
    (matvec_mismatch, "y = A @ x", (np.ones((2, 3)), np.ones(3)), (np.ones((2, 3)), np.ones(2)),
     False),
    (dot_mismatch, "np.dot(x, y) * 2.0", (np.ones(3), np.ones(3)), (np.ones(3), np.ones(4)),
     False),
    (matmul_mismatch, "np.dot(A, B)", (np.ones((2, 3)), np.ones((3, 2))),
     (np.ones((2, 3)), np.ones((2, 3))), False),
]


@pytest.mark.parametrize("fn, needle, good, bad, broadcast", SHAPE_ERRORS,
                         ids=[c[0].__name__ for c in SHAPE_ERRORS])
def test_shape_mismatch_raises_value_error_naming_the_line(fn, needle, good, bad, broadcast):
    with pytest.raises(ValueError):
        fn(*bad)  # CPython agrees
    f = compiled(fn)
    line = line_of(fn, needle)
    check_function(fn, good)
    calls = {"primal": f, "grad": f.grad, "value_and_grad": f.value_and_grad,
             "pullback": f.pullback}
    for which, call in calls.items():
        if which in ("grad", "value_and_grad") and fn is array_result_mismatch:
            continue  # an array result: only the primal and the pullback
        with pytest.raises(ValueError) as info:
            call(*bad)
        text = str(info.value)
        assert f"line {line} " in text + " " and "test_errors.py" in text, text
        if broadcast:
            assert "broadcast" in text, text
    assert_close(f(*good), py(fn(*good)))
