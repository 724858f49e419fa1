"""The matrix product kernel of the C runtime (runtime/pyad_matmul.c), called through cffi:
against NumPy on shapes that are empty, 1, odd, not multiples of its tiles (6 x 8 AVX2,
8 x 16 AVX-512), deeper than its 256- and 512-row blocks, taller than its 96-row blocks,
wider than its 2048-column blocks, matrix-vector shapes; for operands and results in every
layout (operands read in place or packed, results written directly or through a tile); and
its arithmetic contract: each element is the sequential fused (or, without FMA, unfused)
multiply-add chain over p, so the bits do not depend on layout, blocking or tile, and every
row and column of a product has the bits of the matrix-vector product that computes it."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from pyad import _runtime

from .test_linalg_kernels import LAYOUTS, _laid_out

SHAPES = [(0, 3, 2), (2, 0, 3), (3, 2, 0), (0, 0, 0), (1, 1, 1), (1, 7, 1), (1, 7, 9),
          (9, 7, 1), (2, 3, 4), (6, 8, 8), (7, 9, 17), (13, 1, 11), (12, 16, 24),
          (25, 31, 33), (5, 300, 11), (100, 9, 130), (97, 513, 15), (8, 8, 8),
          # the AVX-512 path: 8 x 16 tiles and their edges, k in two 512-row blocks, A taller
          # than a 96-row block, B too large to read in place (k * n > 65536), n > 2048
          (8, 16, 16), (9, 17, 17), (15, 5, 31), (16, 1, 8), (7, 2, 9), (63, 64, 65),
          (65, 63, 64), (17, 600, 33), (129, 20, 129), (20, 300, 260), (2, 3, 2100)]


@pytest.fixture(scope="module")
def rt():
    return _runtime.lib(), _runtime.ffi()


def _mat(ffi, a: np.ndarray):
    m = ffi.new("pyad_mat *")
    m.data = ffi.cast("double *", a.ctypes.data)
    m.shape = list(a.shape)
    m.strides = [s // 8 for s in a.strides]
    return m


def _product(rt, a: np.ndarray, b: np.ndarray, out_layout: str = "contiguous") -> np.ndarray:
    lib, ffi = rt
    c = _laid_out(np.full((a.shape[0], b.shape[1]), np.nan), out_layout)
    assert lib.pyad_matmul(_mat(ffi, a), _mat(ffi, b), _mat(ffi, c)) == 0
    return np.array(c)


def _chains(a: np.ndarray, b: np.ndarray, i: int, j: int) -> tuple[float, float]:
    """c[i, j] as the fused chain acc = fl(acc + a*b) and as the unfused one."""
    fused = plain = 0.0
    for p in range(a.shape[1]):
        fused = float(Fraction(a[i, p]) * Fraction(b[p, j]) + Fraction(fused))
        plain = plain + a[i, p] * b[p, j]
    return fused, plain


@pytest.mark.parametrize("m, k, n", SHAPES, ids=lambda v: str(v))
def test_kernel_matches_numpy_in_every_layout(rt, m, k, n):
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    a, b = rng.normal(size=(m, k)), rng.normal(size=(k, n))
    want = a @ b
    bound = 4e-16 * (k + 1) * (np.abs(a) @ np.abs(b))   # the error bound of any summation order
    first = _product(rt, a, b)
    assert np.all(np.abs(first - want) <= bound)
    for la in LAYOUTS:
        for lb in LAYOUTS:
            for lc in ("contiguous", "transposed"):
                got = _product(rt, _laid_out(a, la), _laid_out(b, lb), lc)
                np.testing.assert_array_equal(got, first, err_msg=f"{la} @ {lb} -> {lc}")


@pytest.mark.parametrize("m, k, n", [(3, 5, 4), (7, 300, 9), (13, 40, 1), (1, 40, 13),
                                     (9, 600, 17)])
def test_each_element_is_one_sequential_multiply_add_chain(rt, m, k, n):
    rng = np.random.default_rng(k)
    a, b = rng.normal(size=(m, k)), rng.normal(size=(k, n))
    c = _product(rt, a, b)
    kinds = set()
    for i, j in [(0, 0), (m - 1, n - 1), (m // 2, n // 3)]:
        fused, plain = _chains(a, b, i, j)
        assert c[i, j] in (fused, plain)
        if fused != plain:
            kinds.add(c[i, j] == fused)
    assert len(kinds) <= 1   # one kind of arithmetic throughout


def test_rows_and_columns_give_the_bits_of_the_whole_product(rt):
    """A 1-row or 1-column product (matrix-vector) gives the elements of the full product."""
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(11, 37)), rng.normal(size=(37, 9))
    full = _product(rt, a, b)
    for i in (0, 5, 10):
        np.testing.assert_array_equal(_product(rt, a[i:i + 1], b)[0], full[i])
    for j in (0, 4, 8):
        np.testing.assert_array_equal(_product(rt, a, b[:, j:j + 1])[:, 0], full[:, j])


EDGE_SIZES = [*range(1, 41), 63, 64, 65, 127, 128, 129]


@pytest.mark.parametrize("n", EDGE_SIZES)
def test_every_tile_path_gives_the_bits_of_the_matrix_vector_products(rt, n):
    """n x k @ k x n' around the tiles' edges, k = 0, 1 and near n: every row of the product
    (and every column) is bit for bit the 1-row (1-column) product, which runs the
    matrix-vector code instead of the tiles; the same for operands read in place (contiguous,
    transposed) or packed (strided) and for a result written through a tile (transposed)."""
    rng = np.random.default_rng(n)
    for k, n2 in ((0, n), (1, n), (n, n), (n + 3, max(1, n - 5)), (2 * n + 1, n + 9)):
        a, b = rng.normal(size=(n, k)), rng.normal(size=(k, n2))
        full = _product(rt, a, b)
        if k:
            bound = 4e-16 * (k + 1) * (np.abs(a) @ np.abs(b))
            assert np.all(np.abs(full - a @ b) <= bound)
        else:
            np.testing.assert_array_equal(full, np.zeros((n, n2)))
        rows = np.array([_product(rt, a[i:i + 1], b)[0] for i in range(n)]).reshape(n, n2)
        np.testing.assert_array_equal(full, rows, err_msg=f"rows, k={k}")
        cols = np.array([_product(rt, a, b[:, j:j + 1])[:, 0] for j in range(n2)]).T
        np.testing.assert_array_equal(full, cols.reshape(n, n2), err_msg=f"columns, k={k}")
        for la, lb, lc in (("transposed", "contiguous", "contiguous"),
                           ("contiguous", "transposed", "contiguous"),
                           ("strided", "strided", "contiguous"),
                           ("transposed", "strided", "transposed")):
            got = _product(rt, _laid_out(a, la), _laid_out(b, lb), lc)
            np.testing.assert_array_equal(got, full, err_msg=f"{la} @ {lb} -> {lc}, k={k}")


def test_non_finite_values_propagate_as_in_numpy(rt):
    a = np.ones((7, 3))
    b = np.ones((3, 10))
    a[2, 1], b[0, 9] = np.inf, np.nan
    c = _product(rt, a, b)
    np.testing.assert_array_equal(np.isnan(c), np.isnan(a @ b))
    np.testing.assert_array_equal(np.isinf(c), np.isinf(a @ b))
