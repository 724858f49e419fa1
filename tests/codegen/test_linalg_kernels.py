"""The linear-algebra kernels of the C runtime (runtime/pyad_linalg.c, pyad_svd.c, pyad_qr.c), called through cffi on
every sample of their op-table rows (pyad/ir/linalg_rows.py) and on transposed and strided
views, against each row's NumPy reference (`row.py`, which the interpreter runs); their
failures (singular, not positive definite, no convergence) as statuses."""
from __future__ import annotations

import numpy as np
import pytest

from pyad import _runtime
from pyad.ir.linalg_rows import LINALG_ROWS

ROWS = {row.name: row for row in LINALG_ROWS}
LAYOUTS = ("contiguous", "transposed", "strided")


@pytest.fixture(scope="module")
def rt():
    return _runtime.lib(), _runtime.ffi()


def _laid_out(a: np.ndarray, layout: str) -> np.ndarray:
    """`a` (its values) in another memory layout."""
    if layout == "transposed" and a.ndim == 2:
        return np.ascontiguousarray(a.T).T
    if layout == "strided":
        big = np.zeros(tuple(2 * n for n in a.shape))
        view = big[tuple(slice(None, None, 2) for _ in a.shape)]
        view[...] = a
        return view
    return a


def _mat(ffi, a: np.ndarray):
    """A pyad_mat over `a` (1-D as n x 1); `a` must stay alive while it is used."""
    m = ffi.new("pyad_mat *")
    m.data = ffi.cast("double *", a.ctypes.data)
    rows, cols = (a.shape[0], 1) if a.ndim == 1 else a.shape
    m.shape = [rows, cols]
    st = [s // 8 for s in a.strides]
    m.strides = [st[0], 1] if a.ndim == 1 else st
    return m


def _call(rt, name: str, args: list, attrs: tuple):
    """(status, result) of the kernel of row `name` on `args`."""
    lib, ffi = rt
    fn = getattr(lib, ROWS[name].lower[1])
    ins = [_mat(ffi, a) for a in args]
    if name == "det":
        out = ffi.new("double *")
        return fn(*ins, out), out[0]
    n = args[0].shape[0]
    shape = {"solve": args[-1].shape, "slogdet": (2,), "eigh": (n + 1, n),
             "trisolve": args[-1].shape, "svd": (1 + sum(args[0].shape), min(args[0].shape)),
             "svd_back": args[-1].shape, "qr_back": args[-1].shape}.get(name, (n, n))
    if name == "qr":    # [Q; R]: (m + min(m, n)) x n
        shape = (n + min(args[0].shape), args[0].shape[-1])
    out = np.full(shape, np.nan)
    if name == "slogdet":
        return fn(*ins, ffi.cast("double *", out.ctypes.data)), out
    return fn(*ins, _mat(ffi, out), *attrs), out


def _samples():
    for row in LINALG_ROWS:
        for sample in row.samples:
            for layout in LAYOUTS:
                yield pytest.param(row, sample, layout,
                                   id=f"{row.name}-{'-'.join(map(str, sample))}-{layout}")


@pytest.mark.parametrize("row, sample, layout", list(_samples()))
def test_kernel_computes_the_reference(rt, row, sample, layout):
    shapes, attrs = (sample[:-1], sample[-1:]) if row.attr_typed else (sample, ())
    rng = np.random.default_rng(3)
    args = [rng.normal(size=s) for s in shapes]
    if row.domain is not None:
        args = row.domain(args)
    want = row.py(*args, *attrs)
    status, got = _call(rt, row.name, [_laid_out(a, layout) for a in args], attrs)
    assert status == 0
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_kernels_report_their_failures(rt):
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert _call(rt, "solve", [singular, np.ones(2)], ())[0] == 8
    assert _call(rt, "inv", [singular], ())[0] == 8
    assert _call(rt, "det", [singular], ()) == (0, 0.0)
    status, (sign, logabs) = _call(rt, "slogdet", [singular], ())
    assert (status, sign, logabs) == (0, 0.0, -np.inf)
    assert _call(rt, "cholesky", [np.array([[1.0, 0.0], [3.0, 1.0]])], ())[0] == 8
    assert _call(rt, "cholesky", [np.array([[np.nan]])], ())[0] == 8
    assert _call(rt, "eigh", [np.array([[1.0, 0.0], [np.nan, 1.0]])], ())[0] == 8


def test_eigh_of_larger_and_degenerate_matrices(rt):
    rng = np.random.default_rng(5)
    for n in (2, 8, 30):
        a = rng.normal(size=(n, n))
        status, got = _call(rt, "eigh", [a], ())
        assert status == 0
        np.testing.assert_allclose(got, ROWS["eigh"].py(a), rtol=1e-9, atol=1e-11)
    q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    a = q @ np.diag([1.0, 2.0, 2.0, 3.0]) @ q.T     # a repeated eigenvalue
    status, got = _call(rt, "eigh", [a], ())
    w, v = got[0], got[1:]
    assert status == 0
    np.testing.assert_allclose(w, [1.0, 2.0, 2.0, 3.0], rtol=1e-12)
    np.testing.assert_allclose(v @ np.diag(w) @ v.T, np.tril(a) + np.tril(a, -1).T,
                               atol=1e-12)
    np.testing.assert_allclose(v.T @ v, np.eye(4), atol=1e-13)


def test_empty_matrices(rt):
    empty = np.zeros((0, 0))
    assert _call(rt, "det", [empty], ()) == (0, 1.0)
    for name in ("inv", "cholesky", "eigh"):
        status, out = _call(rt, name, [empty], ())
        assert status == 0 and out.shape == ROWS[name].py(empty).shape


def test_svd_of_larger_wide_degenerate_and_failing_matrices(rt):
    rng = np.random.default_rng(6)
    q1, _ = np.linalg.qr(rng.normal(size=(7, 7)))
    q2, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    repeated = q1[:, :4] @ np.diag([3.0, 2.0, 2.0, 1.0]) @ q2.T
    rank_one = np.outer(np.arange(1.0, 6.0), [1.0, -2.0, 0.5])
    for a in (rng.normal(size=(30, 20)), rng.normal(size=(8, 25)), repeated, rank_one,
              np.zeros((3, 2)), np.diag([1e-200, 1.0, 1e200])):
        status, got = _call(rt, "svd", [a], ())
        m, n = a.shape
        s, u, v = got[0], got[1:1 + m], got[1 + m:]
        assert status == 0
        np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-12,
                                   atol=1e-13 * max(1.0, np.max(np.abs(s))))
        np.testing.assert_allclose(u.T @ u, np.eye(len(s)), atol=1e-12)
        np.testing.assert_allclose(v.T @ v, np.eye(len(s)), atol=1e-12)
        np.testing.assert_allclose((u * s) @ v.T, a, atol=1e-12 * max(1.0, np.max(s)))
        assert np.all(np.diff(s) <= 0)
    assert _call(rt, "svd", [np.array([[1.0, np.nan], [0.0, 1.0]])], ())[0] == 8
    assert _call(rt, "svd", [np.array([[np.inf, 0.0]])], ())[0] == 8


@pytest.mark.parametrize("n", [1, 7, 8, 9, 37])
def test_vector_row_updates_give_the_bits_of_the_scalar_loop(rt, n):
    """The substitutions update contiguous rows eight elements at a time (AVX-512 or AVX2
    where the CPU has them) and rows of other strides element by element: a multiply and a
    subtract each way, so an inverse, a solve and a triangular solve written into a strided
    result have the bits of the same written into a contiguous one."""
    lib, ffi = rt
    rng = np.random.default_rng(n)
    a = rng.normal(size=(n, n)) + n * np.eye(n)
    b = rng.normal(size=(n, n + 3))
    for name, args, shape, extra in [("pyad_la_inv", [a], (n, n), ()),
                                     ("pyad_la_solve", [a, b], (n, n + 3), ()),
                                     ("pyad_la_trisolve", [a, b], (n, n + 3), (1,)),
                                     ("pyad_la_trisolve", [a, b], (n, n + 3), (0,))]:
        outs = [np.full(shape, np.nan), _laid_out(np.full(shape, np.nan), "strided")]
        for out in outs:
            assert getattr(lib, name)(*[_mat(ffi, x) for x in args], _mat(ffi, out), *extra) == 0
        assert np.ascontiguousarray(outs[0]).tobytes() == np.ascontiguousarray(outs[1]).tobytes()


def _cholesky_by_dot_products(a):
    """The left-looking algorithm in Python floats: each element minus its dot product, in
    order of k (the order the runtime's row updates keep)."""
    n = len(a)
    l = [[0.0] * n for _ in range(n)]
    for j in range(n):
        s = float(a[j][j])
        for k in range(j):
            s -= l[j][k] * l[j][k]
        d = s ** 0.5
        l[j][j] = d
        for i in range(j + 1, n):
            t = float(a[i][j])
            for k in range(j):
                t -= l[i][k] * l[j][k]
            l[i][j] = t / d
    return np.array(l)


@pytest.mark.parametrize("n", [1, 2, 9, 20])
def test_cholesky_has_the_bits_of_the_dot_product_algorithm(rt, n):
    lib, ffi = rt
    x = np.random.default_rng(n).normal(size=(n, n))
    a = x @ x.T + n * np.eye(n)
    out = np.full((n, n), np.nan)
    assert lib.pyad_la_cholesky(_mat(ffi, a), _mat(ffi, out)) == 0
    assert out.tobytes() == _cholesky_by_dot_products(a).tobytes()
