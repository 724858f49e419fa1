"""`np.linalg` (pyad/frontend/linalg.py, the rows of pyad/ir/linalg_rows.py, the kernels of
runtime/pyad_linalg.c, runtime/pyad_svd.c and runtime/pyad_qr.c; pinv, lstsq, matrix_rank and cond in
pyad/frontend/prelude.py) end to end: values against NumPy, gradients by the differential
harness (central finite differences, the interpreter on the gradient IR, the dot-product test
for array and tuple results) on several shapes, size 1, transposed and strided inputs;
errors (LinAlgError naming the line) and located refusals."""
from __future__ import annotations

import numpy as np
import pytest

import pyad
from pyad.codegen.python import callables

from ..modules import assert_refused, returning
from .harness import check_function, relayout



def solves(A, B, b):
    return np.linalg.solve(A, b), np.linalg.solve(A, B), np.linalg.solve(A.T, b)


def inverse(A, B, b):
    return np.linalg.inv(A), np.linalg.inv(A.T) @ b


def determinants(A, B, b):
    sign, logabs = np.linalg.slogdet(A)
    return np.linalg.det(A) + sign * logabs + np.linalg.slogdet(A @ A.T)[1]


def cholesky(A, B, b):
    n = A.shape[0]
    L = np.linalg.cholesky(A @ A.T + n * np.eye(n))
    return L, np.linalg.cholesky(np.eye(n) + B @ B.T) @ b


def eigen(A, B, b):
    w, V = np.linalg.eigh(A + A.T)
    # eigenvectors are defined up to sign: the checked values do not depend on it
    return w, V * V, V @ np.diag(w * w) @ V.T, np.linalg.eigvalsh(A) * 2.0


def eigh_lower_triangle(A, B, b):
    w, V = np.linalg.eigh(A)       # reads A's lower triangle only, as NumPy does
    return np.sum(w * np.arange(len(w))) + np.sum((V * V) @ b)


def gaussian_log_density(X, B, b):
    """A multivariate normal log-density: the Cholesky and triangular spelling."""
    n = X.shape[0]
    S = X @ X.T + np.eye(n)
    L = np.linalg.cholesky(S)
    z = np.linalg.solve(L, b)
    return -0.5 * np.sum(z * z) - np.sum(np.log(np.diag(L))) - 0.5 * n * np.log(2 * np.pi)


def ints(A, B, b):
    return np.linalg.solve(np.eye(len(b), dtype=np.int64) * 2, b) + np.linalg.det(A)


def eigh_upper_triangle(A, B, b):
    w, V = np.linalg.eigh(A, UPLO="U")     # A's upper triangle only
    return np.sum(w * np.arange(len(w))) + np.sum((V * V) @ b) + \
        np.sum(np.linalg.eigvalsh(A, UPLO="U"))


def stacks(A, B, b):
    """Each function of a 3-D stack of matrices (NumPy's leading axis)."""
    n = A.shape[0]
    S = np.stack([A, A.T + n * np.eye(n), A @ A.T + np.eye(n)])
    P = np.stack([A @ A.T + n * np.eye(n), np.eye(n) + 0.5 * (A + A.T) ** 2])
    sign, logabs = np.linalg.slogdet(S)
    w, V = np.linalg.eigh(P)
    wu = np.linalg.eigvalsh(P, UPLO="U")
    return np.linalg.inv(S), np.linalg.det(S), sign * logabs, np.linalg.cholesky(P), \
        w, V * V, wu, np.linalg.solve(S, b), np.linalg.solve(S, B), \
        np.linalg.solve(S, np.stack([B, 2.0 * B, B * B])), np.linalg.solve(S[:1], np.stack([B, B]))


def singular_values(A, B, b):
    """Results that do not depend on the signs of the singular vectors (NumPy's and pyad's
    may differ): values, products of a left and a right vector, magnitudes."""
    u, s, vh = np.linalg.svd(B, full_matrices=False)
    uf, sf, vhf = np.linalg.svd(A)                    # square: the full factors
    return np.linalg.svd(A, compute_uv=False), (u * s) @ vh, np.abs(u), np.abs(vhf), \
        np.linalg.svdvals(B.T), u[:, :1] * vh[:1], uf[:, -1:] * vhf[-1:] * sf[-1]


def pseudo_inverses(A, B, b):
    x, residuals, rank, s = np.linalg.lstsq(B, b, rcond=None)
    y = np.linalg.lstsq(B.T, B.T @ A, rcond=None)[0]   # wide: the minimum-norm solution
    return np.linalg.pinv(B), np.linalg.pinv(A.T, rtol=1e-12), x, residuals, float(rank), \
        s, y, np.linalg.norm(A, 2), np.linalg.norm(B, "nuc"), np.linalg.norm(A, -2), \
        np.linalg.cond(A), np.linalg.cond(A, 1), float(np.linalg.matrix_rank(B)), \
        np.linalg.norm(np.stack([A, 2 * A]), 2, axis=(1, 2), keepdims=True)


def svd_stacks(A, B, b):
    t = np.stack([A, A.T * 2.0 + 1.0])
    u, s, vh = np.linalg.svd(t)
    return np.linalg.svd(t, compute_uv=False), (u * s[:, None, :]) @ vh, \
        np.linalg.svdvals(np.stack([B, -B]))


def factors_qr(A, B, b):
    """QR of a square, a tall and a wide matrix (NumPy's signs), mode 'r' and 'complete',
    a least-squares solve through it, and a stack."""
    Q, R = np.linalg.qr(A)
    Qt, Rt = np.linalg.qr(B)                   # n x 2: tall (for n >= 2)
    Qw, Rw = np.linalg.qr(B.T @ A)             # 2 x n: wide
    Qc, Rc = np.linalg.qr(A[:1] + 1.0, mode="complete")   # m <= n: the reduced factors
    x = np.linalg.solve(Rt[:, :Rt.shape[0]], Qt.T @ b)   # least squares (n >= 2)
    Qs, Rs = np.linalg.qr(np.stack([A, A.T + 1.0]))
    return Q, R, Qt, Rt, Qw, Rw, np.linalg.qr(B, mode="r"), Qc * 2.0, Rc, x, Qs, Rs


CASES = [solves, inverse, determinants, cholesky, eigen, eigh_lower_triangle,
         eigh_upper_triangle, gaussian_log_density, ints, stacks, singular_values,
         pseudo_inverses, svd_stacks, factors_qr]


def _args(n: int, layout: str | None = None):
    rng = np.random.default_rng((15, n))   # the same inputs whatever ran before
    A = rng.normal(size=(n, n)) + n * np.eye(n)
    B = rng.normal(size=(n, 2))
    b = rng.normal(size=n)
    if layout is None:
        return A, B, b
    return relayout(A, layout)[0], relayout(B, layout)[0], relayout(b, layout)[0]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [1, 3, 5])
def test_values_and_gradients(fn, n):
    check_function(fn, _args(n))


@pytest.mark.parametrize("fn", [solves, determinants, eigen, gaussian_log_density],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("layout", ["transposed", "strided", "negative"])
def test_non_contiguous_arguments(fn, layout):
    check_function(fn, _args(4, layout))


def views(A, B, b):
    return np.linalg.solve(A[::2, ::2], b[::2]), np.linalg.inv(A[1:, 1:].T), \
        np.linalg.det(A[:2, :2])


def test_views_inside_the_function():
    check_function(views, _args(5))


def results_written_afterwards(A, B, b):
    """The adjoints of solve, inv and eigh read their results: writes into them later must
    not change the gradient (pyad/ad/snapshot.py keeps the op's own copy)."""
    x = np.linalg.solve(A, b)
    Y = np.linalg.inv(A)
    w, V = np.linalg.eigh(A)
    s = np.sum(x * x) + np.sum(Y * Y) + np.sum(w * w) + np.sum(V * V * b)
    x[0] = 3.0
    Y[-1, :] = b
    w *= 2.0
    return s + np.sum(x * b) + np.sum(Y) + np.sum(w)


@pytest.mark.heavy
def test_results_written_afterwards():
    check_function(results_written_afterwards, _args(3))


def test_eigenvectors_are_numpys_up_to_sign():
    a = np.random.default_rng(16).normal(size=(6, 6))
    w, V = pyad.jit_grad(eigen_pair)(a)
    nw, nV = np.linalg.eigh(a)
    np.testing.assert_allclose(w, nw, rtol=1e-11)
    np.testing.assert_allclose(np.abs(V), np.abs(nV), atol=1e-11)
    big = np.argmax(np.abs(V), axis=0)
    assert np.all(V[big, np.arange(6)] > 0)   # the documented sign


def eigen_pair(a):
    return np.linalg.eigh(a)


def eigenvalue_energy(a):
    w = np.linalg.eigvalsh(a)
    return np.sum(w * w)


def test_repeated_eigenvalues_give_finite_eigenvalue_gradients():
    """sum(w**2) is the squared Frobenius norm of the symmetric matrix: its gradient with
    respect to the lower triangle is 2 a on the diagonal, 4 a below."""
    a = np.diag([1.0, 2.0, 2.0, 2.0])
    a[2, 0] = 1e-300   # not exactly diagonal
    g = pyad.jit_grad(eigenvalue_energy).grad(a)
    assert np.all(np.isfinite(g))
    want = np.tril(4 * a, -1) + np.diag(2 * np.diag(a))
    np.testing.assert_allclose(g, want, atol=1e-12)


def svd_factors(a):
    return np.linalg.svd(a, full_matrices=False)


def test_singular_vectors_are_numpys_up_to_sign():
    rng = np.random.default_rng(17)
    for shape in ((6, 4), (4, 6), (5, 5)):
        a = rng.normal(size=shape)
        U, s, Vh = pyad.jit_grad(svd_factors)(a)
        nU, ns, nVh = np.linalg.svd(a, full_matrices=False)
        np.testing.assert_allclose(s, ns, rtol=1e-12)
        np.testing.assert_allclose(np.abs(U), np.abs(nU), atol=1e-12)
        np.testing.assert_allclose(np.abs(Vh), np.abs(nVh), atol=1e-12)
        np.testing.assert_allclose((U * s) @ Vh, a, atol=1e-13)
        big = np.argmax(np.abs(Vh), axis=1)
        assert np.all(Vh[np.arange(len(s)), big] > 0)   # the documented sign


def nuclear(a):
    return np.linalg.norm(a, "nuc")


def test_singular_value_gradients_at_repeated_and_zero_singular_values():
    """The nuclear norm's gradient is U V^T: finite where singular values repeat (the
    identity) or vanish (a rank-1 matrix: U V^T there is one valid subgradient, of norm 1
    in each direction the matrix has)."""
    g = pyad.jit_grad(nuclear).grad(np.eye(3))
    np.testing.assert_allclose(g, np.eye(3), atol=1e-15)
    v = np.array([1.0, 2.0, 2.0])
    g = pyad.jit_grad(nuclear).grad(np.outer(v, v))
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g @ v, v, atol=1e-12)   # U V^T v = v for v in the range


def test_full_factors_of_a_non_square_matrix_are_a_value_error():
    f = pyad.jit_grad(svd_default)
    np.testing.assert_allclose(f(np.eye(3) * 2.0), 6.0)
    with pytest.raises(ValueError, match=r"full_matrices=False in pyad.*\(line \d+"):
        f(np.ones((3, 2)))


def svd_default(a):
    u, s, vh = np.linalg.svd(a)
    return float(np.sum(s))


def solve_sum(a, b):
    x = np.linalg.solve(a, b)
    return np.sum(x)


def det_only(a):
    return np.linalg.det(a)


def chol_sum(a):
    return np.sum(np.linalg.cholesky(a))


def test_a_singular_matrix_raises_linalgerror_naming_the_line(monkeypatch):
    f = pyad.jit_grad(solve_sum)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    line = solve_sum.__code__.co_firstlineno + 1
    with pytest.raises(np.linalg.LinAlgError, match=rf"Singular matrix \(line {line} of "
                                                    r"test_linalg.py\)"):
        f(singular, np.ones(2))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        f.grad(singular, np.ones(2))
    with monkeypatch.context() as m:   # the slow path (cffi) raises the same
        m.setattr(callables, "NATIVE_ARRAYS", False)
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            pyad.jit_grad(solve_sum)(singular, np.ones(2))


def test_det_of_a_singular_matrix_is_zero_but_its_gradient_raises():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    f = pyad.jit_grad(det_only)
    assert f(singular) == 0.0
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        f.grad(singular)


def test_cholesky_of_a_matrix_that_is_not_positive_definite():
    with pytest.raises(np.linalg.LinAlgError, match="Matrix is not positive definite"):
        pyad.jit_grad(chol_sum)(np.array([[1.0, 2.0], [2.0, 1.0]]))


def test_shape_errors():
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        pyad.jit_grad(det_only)(np.ones((2, 3)))
    with pytest.raises(ValueError, match="does not match the order of A"):
        pyad.jit_grad(solve_sum)(np.eye(3), np.ones(2))


@pytest.mark.parametrize("b_shape", [(2, 3), (4,), (0, 3), (0, 4), (3,), (1, 3, 2), (0, 3, 2)])
def test_shape_errors_of_an_empty_stack_are_numpys(b_shape):
    """The loop over an empty stack does not run: its shapes are checked before it."""
    A, b = np.zeros((0, 3, 3)), np.ones(b_shape)
    try:
        want = solve_sum(A, b)
    except ValueError:
        with pytest.raises(ValueError, match="does not match the order of A"):
            pyad.jit_grad(solve_sum)(A, b)
    else:
        assert pyad.jit_grad(solve_sum)(A, b) == want
    for shape in [(0, 3, 4), (2, 3, 4)]:
        with pytest.raises(np.linalg.LinAlgError, match="must be square"):
            pyad.jit_grad(det_only)(np.zeros(shape))


@pytest.mark.parametrize("src, message", [
    ("np.linalg.svd(x, compute_uv=v)", "compute_uv must be True or False"),
    ("np.linalg.eig(x)", "np.linalg.eig is not supported"),
    ("np.linalg.qr(x, mode='raw')[0]", "mode 'raw' is not supported"),
    ("np.linalg.multi_dot([x, x])", "np.linalg.multi_dot is not supported"),
    ("np.linalg.inv(v)", "expected a 2-D matrix or a 3-D stack of them here, not a 1-D"),
    ("np.linalg.eigh(x, UPLO='X')[0]", "UPLO must be 'L' or 'U'"),
    ("np.linalg.solve(x)", "takes 2 arguments"),
])
def test_refusals_are_located(src, message, tmp_path):
    assert_refused(tmp_path, "x, v", f"np.sum({src})", (np.eye(2), np.ones(2)), message)


def test_the_refusal_says_what_to_write(tmp_path):
    f = returning(tmp_path, "x, v", "np.sum(np.linalg.eig(x))")
    with pytest.raises(pyad.PyadError) as info:
        pyad.jit_grad(f)(np.eye(2), np.ones(2))
    assert "use np.linalg.eigh for a symmetric matrix" in str(info.value)
    assert "^" in str(info.value)


def test_complete_qr_of_a_tall_matrix_is_a_value_error_naming_the_line():
    def complete(A):
        Q, R = np.linalg.qr(A, mode="complete")
        return np.sum(Q) + np.sum(R)
    f = pyad.jit_grad(complete)
    assert f(np.eye(3)[:2]) == pytest.approx(complete(np.eye(3)[:2]))
    with pytest.raises(ValueError, match="mode='complete'.*more rows") as info:
        f(np.eye(3)[:, :2])
    assert "test_linalg.py" in str(info.value)


def test_qr_of_a_matrix_with_zero_columns_below_the_diagonal_keeps_numpys_signs():
    """LAPACK leaves a column whose entries below the diagonal are 0 as it is (no
    reflection): R's diagonal then keeps the entry's sign."""
    A = np.array([[-2.0, 1.0, 3.0], [0.0, -1.5, 2.0], [0.0, 0.0, 4.0], [0.0, 0.0, -1.0]])
    f = pyad.jit_grad(lambda A: np.linalg.qr(A))
    for got, want in zip(f(A), np.linalg.qr(A)):
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)
