"""A corpus of realistic numerical functions over NumPy arrays (the contract: docs/arrays.md).

Two styles, both plain Python that CPython runs unchanged:

  * loop style: `for i in range(n)` over float64/int64/bool arrays indexed element by element,
    local arrays made with np.zeros/np.empty/..., element assignment and augmented element
    assignment, in-place updates, views (`a[lo:hi]`, `a[i]` of 2-D/3-D, `a[:, j]`, `a.T`),
    buffers swapped in time-stepping loops;
  * array style: whole-array arithmetic with broadcasting, np.exp/log/..., reductions with and
    without `axis`, np.dot / @ / np.outer / np.linalg.norm.

tests/arrays/test_corpus.py compiles every function with `pyad.jit_grad` and checks values
against CPython + NumPy, gradients against the reference interpreter and central finite
differences, and pullbacks of array-valued functions with a dot-product test. The functions never write
into their array arguments (docs/arrays.md forbids it; they copy first).

Samples are built from `numpy.random.default_rng(seed)`, are small (the interpreter is the
oracle and it is slow), include negative values where the function allows, and stay away
from kinks (branch decisions, max/min/abs/where/sort decisions do not flip within a
finite-difference step; checked in CPython by
tests/arrays/test_corpus.py::test_corpus_samples_are_away_from_kinks).

CASES = [(function, [argument tuple, ...]), ...]
"""
import math

import numpy as np


# =========================================================================== sums and scans
def dot_loop(x, y):
    """Dot product of two vectors, element by element."""
    s = 0.0
    for i in range(len(x)):
        s += x[i] * y[i]
    return s


def kahan_sum(x):
    """Compensated (Kahan) summation of a vector."""
    s = 0.0
    c = 0.0
    for i in range(len(x)):
        y = x[i] - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


def weighted_prefix_sums(x, w):
    """Prefix sums computed in place in a local copy (c[i] += c[i - 1]), then weighted."""
    c = x.copy()
    for i in range(1, len(c)):
        c[i] += c[i - 1]
    s = 0.0
    for i in range(len(c)):
        s += w[i] * c[i]
    return s


def cumsum_array(x):
    """Cumulative sum into np.empty_like(x), returned as an array."""
    out = np.empty_like(x)
    s = 0.0
    for i in range(len(x)):
        s += x[i]
        out[i] = s
    return out


def cumprod_sum(x):
    """Cumulative product in a np.ones buffer; the sum of the partial products."""
    p = np.ones(len(x))
    p[0] = x[0]
    for i in range(1, len(x)):
        p[i] = p[i - 1] * x[i]
    return np.sum(p)


def trapezoid(y, dx):
    """Trapezoidal rule with a float step; the end points read with len(y) - 1."""
    n = len(y)
    s = 0.5 * (y[0] + y[n - 1])
    for i in range(1, n - 1):
        s += y[i]
    return s * dx


def simpson(y, h):
    """Composite Simpson's rule (odd number of samples); the ends read as y[0] and y[-1]."""
    s = y[0] + y[-1]
    for i in range(1, len(y) - 1):
        if i % 2 == 1:
            s += 4.0 * y[i]
        else:
            s += 2.0 * y[i]
    return s * h / 3.0


def moving_average(x, w):
    """Moving average with an int window: np.mean of slice views x[i:i + w]."""
    n = len(x) - w + 1
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.mean(x[i:i + w])
    return out


def conv1d_valid(x, k):
    """'valid' 1-D correlation of a signal with a kernel, into a new array."""
    n = len(x) - len(k) + 1
    out = np.zeros(n)
    for i in range(n):
        for j in range(len(k)):
            out[i] += x[i + j] * k[j]
    return out


# =========================================================================== polynomials
def horner(coef, x):
    """Polynomial value by Horner's rule, coefficients highest degree first."""
    p = 0.0
    for i in range(len(coef)):
        p = p * x + coef[i]
    return p


def horner_with_derivative(coef, x):
    """Value and derivative of a polynomial in one Horner pass (a tuple result)."""
    p = coef[0]
    dp = 0.0
    for i in range(1, len(coef)):
        dp = dp * x + p
        p = p * x + coef[i]
    return p, dp


def poly_eval_many(coef, xs):
    """A polynomial evaluated at many points into a new array (nested loops)."""
    out = np.zeros(len(xs))
    for j in range(len(xs)):
        p = 0.0
        for i in range(len(coef)):
            p = p * xs[j] + coef[i]
        out[j] = p
    return out


def clenshaw_chebyshev(c, x):
    """Clenshaw's recurrence for sum_k c[k] T_k(x), iterating k downwards."""
    b1 = 0.0
    b2 = 0.0
    for k in range(len(c) - 1, 0, -1):
        b1, b2 = 2.0 * x * b1 - b2 + c[k], b1
    return x * b1 - b2 + c[0]


# =========================================================================== linear algebra
def matvec_loop(A, x):
    """Matrix-vector product with two nested loops (augmented element assignment)."""
    m = A.shape[0]
    n = A.shape[1]
    y = np.zeros(m)
    for i in range(m):
        for j in range(n):
            y[i] += A[i, j] * x[j]
    return y


def matmul_loop(A, B):
    """Matrix product with three nested loops; shape tuple unpacking; a 2-D result."""
    m, k = A.shape
    n = B.shape[1]
    C = np.zeros((m, n))
    for i in range(m):
        for j in range(n):
            s = 0.0
            for p in range(k):
                s += A[i, p] * B[p, j]
            C[i, j] = s
    return C


def bilinear_form(x, A, y):
    """x^T A y with two nested loops."""
    s = 0.0
    for i in range(len(x)):
        for j in range(len(y)):
            s += x[i] * A[i, j] * y[j]
    return s


def thomas_solve(lower, diag, upper, rhs):
    """Tridiagonal solve (Thomas algorithm): forward sweep into local arrays, back substitution
    iterating downwards. lower[0] and upper[-1] are not used."""
    n = len(diag)
    c = np.zeros(n)
    d = np.zeros(n)
    c[0] = upper[0] / diag[0]
    d[0] = rhs[0] / diag[0]
    for i in range(1, n):
        m = diag[i] - lower[i] * c[i - 1]
        if i < n - 1:
            c[i] = upper[i] / m
        d[i] = (rhs[i] - lower[i] * d[i - 1]) / m
    x = np.zeros(n)
    x[n - 1] = d[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = d[i] - c[i] * x[i + 1]
    return x


def thomas_inplace_energy(lower, diag, upper, rhs):
    """Thomas algorithm overwriting copies of the coefficients in place (every d[i] written
    twice); returns x . x."""
    n = len(diag)
    c = upper.copy()
    d = rhs.copy()
    b = diag.copy()
    for i in range(1, n):
        w = lower[i] / b[i - 1]
        b[i] -= w * c[i - 1]
        d[i] -= w * d[i - 1]
    d[n - 1] = d[n - 1] / b[n - 1]
    for i in range(n - 2, -1, -1):
        d[i] = (d[i] - c[i] * d[i + 1]) / b[i]
    return np.dot(d, d)


def cholesky_factor(A):
    """Cholesky factor L of an SPD matrix (reads the lower triangle only), as an array."""
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        L[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            t = A[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / L[j, j]
    return L


def cholesky_logdet(A):
    """log det of an SPD matrix: Cholesky in place in a copy, then 2 sum log L[i, i]."""
    L = A.copy()
    n = L.shape[0]
    for j in range(n):
        for k in range(j):
            L[j, j] -= L[j, k] * L[j, k]
        L[j, j] = math.sqrt(L[j, j])
        for i in range(j + 1, n):
            for k in range(j):
                L[i, j] -= L[i, k] * L[j, k]
            L[i, j] /= L[j, j]
    ld = 0.0
    for i in range(n):
        ld += 2.0 * math.log(L[i, i])
    return ld


def lu_det(A):
    """Determinant by Doolittle LU without pivoting (diagonally dominant A), overwriting a
    copy in place: elements are rewritten once per elimination step."""
    U = A.copy()
    n = U.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            f = U[i, k] / U[k, k]
            for j in range(k, n):
                U[i, j] -= f * U[k, j]
    det = 1.0
    for i in range(n):
        det *= U[i, i]
    return det


def forward_substitution(L, b):
    """Solve L x = b for lower-triangular L, x computed in place over a copy of b."""
    x = b.copy()
    n = len(x)
    for i in range(n):
        for j in range(i):
            x[i] -= L[i, j] * x[j]
        x[i] /= L[i, i]
    return x


def gram_schmidt(A):
    """Modified Gram-Schmidt on the columns of a copy of A, each column updated in place
    through its `Q[:, j]` view (the writes show up in Q, which is returned)."""
    m, n = A.shape
    Q = A.copy()
    for j in range(n):
        q = Q[:, j]
        for k in range(j):
            prev = Q[:, k]
            r = 0.0
            for i in range(m):
                r += prev[i] * q[i]
            for i in range(m):
                q[i] -= r * prev[i]
        nrm = 0.0
        for i in range(m):
            nrm += q[i] * q[i]
        nrm = math.sqrt(nrm)
        for i in range(m):
            q[i] /= nrm
    return Q


def power_iteration(A, v0, iters):
    """Rayleigh quotient after `iters` power-iteration steps; v rebound to A @ v / ||A @ v||."""
    v = v0.copy()
    for _ in range(iters):
        w = A @ v
        v = w / np.linalg.norm(w)
    return np.dot(v, A @ v)


def jacobi_solve(A, b, iters):
    """Jacobi iterations for a diagonally dominant system; two buffers swapped every sweep."""
    n = len(b)
    x = np.zeros(n)
    x_new = np.zeros(n)
    for _ in range(iters):
        for i in range(n):
            s = b[i]
            for j in range(n):
                if j != i:
                    s -= A[i, j] * x[j]
            x_new[i] = s / A[i, i]
        x, x_new = x_new, x
    return x


def transpose_gram_trace(A):
    """trace(A^T A) plus a column of A read through the A.T view."""
    At = A.T
    G = At @ A
    s = 0.0
    for i in range(G.shape[0]):
        s += G[i, i] + 0.5 * At[i, 0]
    return s


def row_views(A, x):
    """a[i] of 2-D arrays as row views: rows of A read, rows of a local B written through
    their views."""
    B = np.zeros_like(A)
    for i in range(A.shape[0]):
        r = A[i]
        out = B[i]
        for j in range(len(r)):
            out[j] = r[j] * x[j]
    return np.sum(B * B) + np.sum(B[1])


def column_update(A, v):
    """a[:, j] read and written: each column of a copy updated through its view, reading the
    previous column (B[i, -1] for j = 0) through the base."""
    B = A.copy()
    n = B.shape[1]
    for j in range(n):
        col = B[:, j]
        for i in range(len(col)):
            col[i] = col[i] * v[i] + 0.5 * B[i, j - 1]
    return B


def tensor_contract(T, u, v, w):
    """sum_ijk T[i, j, k] u[i] v[j] w[k] over a 3-D array, negative-free triple loop."""
    s = 0.0
    for i in range(T.shape[0]):
        for j in range(T.shape[1]):
            for k in range(T.shape[2]):
                s += T[i, j, k] * u[i] * v[j] * w[k]
    return s


def slices_of_3d(T, w):
    """a[i] of a 3-D array is a 2-D view and its a[j] a 1-D view."""
    s = 0.0
    for i in range(T.shape[0]):
        M = T[i]
        for j in range(M.shape[0]):
            r = M[j]
            for k in range(len(r)):
                s += r[k] * w[k] * (i + 1)
    return s


# =========================================================================== stencils, ODEs
def heat_stencil(u0, alpha, steps):
    """Explicit 1-D heat equation with fixed ends: two buffers swapped every step."""
    n = len(u0)
    u = u0.copy()
    v = u0.copy()
    for _ in range(steps):
        for i in range(1, n - 1):
            v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u, v = v, u
    return u


def heat_energy(u0, alpha, steps):
    """The heat stencil with np.zeros buffers and ends copied each step; returns sum u^2."""
    n = len(u0)
    u = u0.copy()
    v = np.zeros(n)
    for _ in range(steps):
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        tmp = u
        u = v
        v = tmp
    return np.sum(u * u)


def wave_leapfrog(u0, c, steps):
    """Leapfrog for the periodic 1-D wave equation, three rotating buffers; the left
    neighbour of cell 0 is cur[-1]."""
    n = len(u0)
    prev = u0.copy()
    cur = u0.copy()
    nxt = np.zeros(n)
    c2 = c * c
    for _ in range(steps):
        for i in range(n):
            nxt[i] = 2.0 * cur[i] - prev[i] + c2 * (cur[i - 1] - 2.0 * cur[i] + cur[(i + 1) % n])
        prev, cur, nxt = cur, nxt, prev
    s = 0.0
    for i in range(n):
        s += cur[i] * cur[i]
    return s


def diffusion_2d(u0, k, steps):
    """2-D explicit diffusion (5-point stencil) with swapped 2-D buffers; returns the field."""
    m, n = u0.shape
    u = u0.copy()
    v = u0.copy()
    for _ in range(steps):
        for i in range(1, m - 1):
            for j in range(1, n - 1):
                v[i, j] = u[i, j] + k * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1]
                                         + u[i, j + 1] - 4.0 * u[i, j])
        u, v = v, u
    return u


def lorenz96(x0, forcing, dt, steps):
    """Lorenz-96, forward Euler; cyclic neighbours x[i - 1], x[i - 2] via negative indices."""
    n = len(x0)
    x = x0.copy()
    dx = np.zeros(n)
    for _ in range(steps):
        for i in range(n):
            dx[i] = (x[(i + 1) % n] - x[i - 2]) * x[i - 1] - x[i] + forcing
        for i in range(n):
            x[i] += dt * dx[i]
    return np.sum(x * x)


# =========================================================================== in-place updates
def repeated_square(x, reps):
    """a[i] = a[i] * a[i] repeated: every element overwritten `reps` times."""
    a = x.copy()
    for _ in range(reps):
        for i in range(len(a)):
            a[i] = a[i] * a[i]
    s = 0.0
    for i in range(len(a)):
        s += a[i]
    return s


def overwrite_chain(x):
    """The same element overwritten three times in one iteration, reading its left
    neighbour (a[-1], not yet overwritten, for i = 0)."""
    a = x.copy()
    n = len(a)
    for i in range(n):
        a[i] = math.sin(a[i])
        a[i] = a[i] * a[i - 1] + 0.5
        a[i] += math.exp(-a[i])
    return np.sum(a) + a[0] * a[-1]


def bubble_sort_weighted(x, w):
    """Bubble sort of a copy by element swaps, then a weighted sum (distinct values)."""
    a = x.copy()
    n = len(a)
    for i in range(n):
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                t = a[j]
                a[j] = a[j + 1]
                a[j + 1] = t
    s = 0.0
    for i in range(n):
        s += w[i] * a[i]
    return s


def insertion_sort(x):
    """Insertion sort of a copy (a while loop shifting elements); the sorted array."""
    a = x.copy()
    for i in range(1, len(a)):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def slice_write_aliasing(x):
    """Writes through the view mid = a[1:-1] alias reads of the base a (mid[i] is a[i + 1];
    a[i] was overwritten through mid one step earlier)."""
    a = x.copy()
    mid = a[1:-1]
    for i in range(len(mid)):
        mid[i] = mid[i] * a[i] + 0.25
    return a


# =========================================================================== int and bool arrays
def scatter_add(x, idx, nbins):
    """Histogram-like scatter-add of x[i]^2 into bins given by an int64 array (negative bins
    count from the end)."""
    out = np.zeros(nbins)
    for i in range(len(x)):
        out[idx[i]] += x[i] * x[i]
    return out


def gather_weighted(x, idx, w):
    """Gather x[idx[k]] through an int64 index array (negative entries allowed)."""
    s = 0.0
    for k in range(len(idx)):
        s += w[k] * x[idx[k]]
    return s


def masked_mean(x, mask):
    """Mean of the entries selected by a bool array."""
    s = 0.0
    c = 0
    for i in range(len(x)):
        if mask[i]:
            s += x[i]
            c += 1
    return s / c


def logistic_loss(X, y, w, b):
    """Mean logistic loss over the rows of X; labels in {0, 1} as an int64 array."""
    n, d = X.shape
    total = 0.0
    for i in range(n):
        z = b
        for j in range(d):
            z += X[i, j] * w[j]
        s = 1.0 if y[i] == 1 else -1.0
        total += math.log1p(math.exp(-s * z))
    return total / n


def argmax_and_count(x):
    """Index of the largest element and the number of positive entries (int results)."""
    best = 0
    count = 0
    for i in range(len(x)):
        if x[i] > x[best]:
            best = i
        if x[i] > 0.0:
            count += 1
    return best, count


def int_histogram(k, nbins):
    """Counts of the values of an int64 array in an np.zeros(..., dtype=int) table."""
    h = np.zeros(nbins, dtype=int)
    for i in range(len(k)):
        h[k[i] % nbins] += 1
    return h


def shape_queries(A, T):
    """len, a.shape[k], shape tuple unpacking, a.size and a.ndim (int results)."""
    m, n = A.shape
    return len(A), A.shape[1], A.size, A.ndim, T.ndim, T.size, T.shape[2], m * n


# =========================================================================== data fitting, ML
def least_squares_residuals(A, x, b):
    """0.5 ||A x - b||^2 with the residuals in a local array."""
    m, n = A.shape
    r = np.zeros(m)
    for i in range(m):
        r[i] = -b[i]
        for j in range(n):
            r[i] += A[i, j] * x[j]
    s = 0.0
    for i in range(m):
        s += r[i] * r[i]
    return 0.5 * s


def pairwise_distance_sum(P):
    """Sum of Euclidean distances between all pairs of points (rows of P), in loops."""
    n, d = P.shape
    s = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d2 = 0.0
            for k in range(d):
                diff = P[i, k] - P[j, k]
                d2 += diff * diff
            s += math.sqrt(d2)
    return s


def pairwise_sq_dists(X):
    """Squared distance matrix from row norms with np.outer and X @ X.T (array style)."""
    sq = np.sum(X * X, axis=1)
    ones = np.ones(X.shape[0])
    return np.outer(sq, ones) + np.outer(ones, sq) - 2.0 * (X @ X.T)


def rnn_final_state(Wx, Wh, b, xs, h0):
    """Elman RNN over the rows of xs (a[i] of 2-D), the hidden state rebound every step."""
    h = h0.copy()
    for t in range(xs.shape[0]):
        h = np.tanh(Wx @ xs[t] + Wh @ h + b)
    return h


def rnn_loss_loop(Wx, Wh, b, xs):
    """The same Elman RNN written with scalar loops into swapped buffers; sum of h^2."""
    hdim = Wh.shape[0]
    h = np.zeros(hdim)
    hn = np.zeros(hdim)
    for t in range(xs.shape[0]):
        for i in range(hdim):
            z = b[i]
            for j in range(xs.shape[1]):
                z += Wx[i, j] * xs[t, j]
            for j in range(hdim):
                z += Wh[i, j] * h[j]
            hn[i] = math.tanh(z)
        h, hn = hn, h
    s = 0.0
    for i in range(hdim):
        s += h[i] * h[i]
    return s


def mlp_loss(X, W1, b1, W2, b2, y):
    """Two-layer tanh MLP with mean squared error: X @ W1 + b1 broadcasts the bias row."""
    H = np.tanh(X @ W1 + b1)
    out = H @ W2 + b2
    return np.mean((out - y) ** 2)


def softmax(x):
    """Numerically stable softmax, array style."""
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def softmax_loop(x):
    """Softmax with a max shift in loops, into a new array."""
    n = len(x)
    m = x[0]
    for i in range(1, n):
        if x[i] > m:
            m = x[i]
    out = np.zeros(n)
    total = 0.0
    for i in range(n):
        out[i] = math.exp(x[i] - m)
        total += out[i]
    for i in range(n):
        out[i] /= total
    return out


def logsumexp(x):
    """Max-shifted log-sum-exp, array style."""
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def logsumexp_rows(A):
    """Row-wise log-sum-exp: the row maxima broadcast against the rows of A.T."""
    mx = np.max(A, axis=1)
    E = np.exp(A.T - mx)
    return np.sum(mx + np.log(np.sum(E, axis=0)))


def attention(Q, K, V):
    """Single-head attention: row softmax of Q K^T / sqrt(d) (broadcast through .T) times V."""
    S = (Q @ K.T) / math.sqrt(Q.shape[1])
    mx = np.max(S, axis=1)
    E = np.exp((S.T - mx).T)
    P = (E.T / np.sum(E, axis=1)).T
    return P @ V


def gaussian_nll(x, mu, log_sigma):
    """Negative log-likelihood of a diagonal Gaussian."""
    z = (x - mu) * np.exp(-log_sigma)
    return 0.5 * np.sum(z * z) + np.sum(log_sigma) + 0.5 * len(x) * math.log(2.0 * math.pi)


def ridge_loss(A, x, b, lam):
    """Ridge objective ||A x - b||^2 + lam x.x with @ and np.dot."""
    r = A @ x - b
    return np.dot(r, r) + lam * np.dot(x, x)


def cosine_similarity(x, y):
    """x.y / (||x|| ||y||) with np.linalg.norm of vectors."""
    return np.dot(x, y) / (np.linalg.norm(x) * np.linalg.norm(y))


def frobenius_ratio(A, B):
    """||A B||_F / (||A||_F ||B||_F): np.dot of matrices, Frobenius norms."""
    return np.linalg.norm(np.dot(A, B)) / (np.linalg.norm(A) * np.linalg.norm(B))


def huber_mean(r, delta):
    """Mean Huber loss with np.abs and np.where (no |r| near delta)."""
    a = np.abs(r)
    return np.mean(np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)))


def leaky_relu_layer(W, x, b):
    """Leaky ReLU of an affine map: np.where on a bool array from a comparison."""
    z = W @ x + b
    return np.where(z > 0.0, z, 0.1 * z)


def clip_smooth(x, lo, hi):
    """np.minimum(np.maximum(x, lo), hi) with float scalar bounds, then a smooth function."""
    c = np.minimum(np.maximum(x, lo), hi)
    return np.sum(np.sin(c) * np.cos(x))


def elementwise_zoo(x, y):
    """np.exp/log/sqrt/sin/cos/tanh/abs, - * / ** and unary minus on arrays (x > 0)."""
    return np.sum(np.exp(-x) * np.log(x) + np.sqrt(x) * np.sin(y)
                  - np.cos(x * y) / (2.0 + np.tanh(y)) + np.abs(y) ** 1.5 - (-x) ** 2)


def broadcast_zoo(A, row, col, s):
    """Broadcasting: (m, n) with (n,), (m, n) with (m, 1), (m, 1) with (n,), and a scalar."""
    B = A * row + col - s
    C = col * row
    return np.sum(B * C) + np.sum((s - A) / (2.0 + row * row))


def broadcast_3d(T, M, v):
    """3-D broadcasting: (p, m, n) with (m, n) and with (n,)."""
    return np.sum(T * M + v) - 0.5 * np.sum(T ** 2 * v)


def reductions_2d(A):
    """np.sum/np.mean/np.max/np.min with and without axis, also as methods."""
    r = np.sum(A, axis=0) * np.max(A, axis=0)
    return np.sum(r) - np.mean(A, axis=1).sum() + A.min(axis=1).max() + A.mean() \
        - np.min(A) + 0.5 * A.max() + np.sum(np.min(A, axis=0) ** 2)


def reductions_3d(T):
    """Axis reductions of a 3-D array along axes 0, 1 and 2."""
    return np.sum(np.sum(T, axis=0) ** 2) + np.sum(np.mean(T, axis=2) * 2.0) \
        + np.sum(np.max(T, axis=1)) - np.sum(np.min(T, axis=0))


def dot_combos(u, A, v, B):
    """np.dot and @ in all four combinations: vector-vector, matrix-vector, vector-matrix and
    matrix-matrix."""
    a = np.dot(u @ A, v) + u @ (A @ v)
    M = np.dot(A, B) + A @ B
    w = np.dot(u, A) - v @ B.T
    return a + np.sum(M * M) * 0.25 + np.dot(w, w) + np.dot(np.dot(u, A), np.dot(B, B[0]))


def rank_one_update_norm(u, v, M):
    """||M + u v^T||_F with np.outer and np.linalg.norm."""
    return np.linalg.norm(M + np.outer(u, v))


def floordiv_and_pow(x, y):
    """// (piecewise constant), ** with array and scalar exponents, on positive x."""
    q = x // y
    return np.sum(q * x + x ** y + 2.0 ** x + x ** 3)


def slice_views(x):
    """Slice views with omitted, negative and clamped bounds, and an empty one (x[5:2])."""
    a = x[2:]
    b = x[:-1]
    c = x[-3:]
    d = x[1:100]
    e = x[5:2]
    return np.sum(a * a) + np.dot(b, x[1:]) + np.sum(c) * 2.0 + np.mean(d) + np.sum(e) + len(e)


def creation_functions(x, v, n):
    """np.zeros/ones/empty/full (int and tuple shapes), the *_like functions, dtype=...,
    np.copy and a.copy()."""
    a = np.zeros(n)
    b = np.ones((2, n))
    c = np.empty(n)
    for i in range(n):
        c[i] = x[i % len(x)]
    d = np.full((n, 2), v)
    e = np.full(n, 2.5)
    z = np.zeros_like(x)
    o = np.ones_like(x)
    emp = np.empty_like(x)
    for i in range(len(x)):
        emp[i] = x[i] * v
        z[i] += o[i] * x[i]
    k = np.zeros(n, dtype=int)
    k2 = np.ones((n,), dtype=np.int64)
    mask = np.full(n, True, dtype=bool)
    mask2 = np.zeros(n, dtype=np.bool_)
    f64 = np.ones(3, dtype=np.float64)
    fl = np.zeros(2, dtype=float)
    cp = np.copy(x)
    cp2 = x.copy()
    ks = 0
    for i in range(n):
        k[i] += i * k2[i]
        ks += k[i]
        if mask[i] and not mask2[i]:
            a[i] = c[i] * e[i]
    return np.sum(a) + np.sum(b) * v + np.sum(d) + np.dot(z, emp) + ks + np.sum(f64) \
        + np.sum(fl) + np.dot(cp, cp2)


def stats_tuple(x):
    """Arrays returned inside a tuple: (standardized x, mean, std)."""
    mu = np.mean(x)
    d = x - mu
    sd = math.sqrt(np.mean(d * d))
    return d / sd, mu, sd


def split_sign(x, y):
    """A tuple of two arrays built elementwise (np.maximum, np.minimum), no kinks at samples."""
    return np.maximum(x, y) * 2.0, np.minimum(x, y) - y * x


def sign_mask(x):
    """A comparison returned as a bool array (and a float array from np.where on it)."""
    m = x > 0.25
    return m, np.where(m, x, -x)


def int_array_arith(k, j):
    """Whole-array arithmetic on int64 arrays: + - * //, unary minus, comparisons, np.sum."""
    a = k * 3 - j // 2 + (-k)
    return a, np.sum(a), np.max(k - j), k < j


# =========================================================================== the corpus
def _rng(seed):
    return np.random.default_rng(seed)


def _spd(seed, n):
    m = _rng(seed).normal(size=(n, n))
    return m @ m.T + n * np.eye(n)


def _diag_dominant(seed, n):
    a = _rng(seed).uniform(-1.0, 1.0, size=(n, n))
    return a + np.diag(np.full(n, 2.0 * n)) * np.sign(_rng(seed + 1).uniform(-1, 1, n) + 0.3)


def _distinct(seed, n, lo=-2.0, hi=2.0, gap=0.05):
    """n values spread over [lo, hi] with pairwise gaps >= `gap`, in random order."""
    g = _rng(seed)
    v = np.linspace(lo, hi, n) + g.uniform(-gap, gap, n) * 0.4
    return g.permutation(v)


def _tridiag(seed, n):
    g = _rng(seed)
    lower = g.uniform(-1, 1, n)
    upper = g.uniform(-1, 1, n)
    diag = g.uniform(3.0, 4.0, n) * np.where(g.uniform(size=n) < 0.3, -1.0, 1.0)
    rhs = g.normal(size=n)
    return lower, diag, upper, rhs


def _attention_args(seed, n, d, dv):
    g = _rng(seed)
    return g.normal(size=(n, d)), g.normal(size=(n + 1, d)), g.normal(size=(n + 1, dv))


def _mlp_args(seed):
    g = _rng(seed)
    return (g.normal(size=(5, 3)), g.normal(size=(3, 4)) * 0.5, g.normal(size=4) * 0.1,
            g.normal(size=4), 0.3, g.normal(size=5))


def _rnn_args(seed, T, din, h):
    g = _rng(seed)
    return (g.normal(size=(h, din)) * 0.5, g.normal(size=(h, h)) * 0.4, g.normal(size=h) * 0.1,
            g.normal(size=(T, din)))


def _huber_r(seed, n, delta):
    r = _rng(seed).uniform(-3, 3, n)
    return np.where(np.abs(np.abs(r) - delta) < 0.05, r * 1.3, r)


def _away(x, points, margin=0.05):
    """Push values of x that lie within `margin` of any of `points` away from them."""
    x = np.array(x, dtype=float)
    for p in points:
        near = np.abs(x - p) < margin
        x[near] = p + np.where(x[near] >= p, margin, -margin) * 2.0
    return x


def _floordiv_args(seed, n):
    g = _rng(seed)
    x = g.uniform(0.5, 3.0, n)
    y = g.uniform(0.4, 1.5, n)
    frac = x / y - np.floor(x / y)
    x = np.where((frac < 0.05) | (frac > 0.95), x + 0.2 * y, x)
    return x, y


def _leaky_args(seed, m, n):
    g = _rng(seed)
    W, x, b = g.normal(size=(m, n)), g.normal(size=n), g.normal(size=m)
    z = W @ x + b
    b = np.where(np.abs(z) < 0.05, b + 0.3, b)
    return W, x, b


def _split_args(seed, n):
    g = _rng(seed)
    x = g.normal(size=n)
    y = g.normal(size=n)
    y = np.where(np.abs(x - y) < 0.05, y + 0.3, y)
    return x, y


def _clip_args(seed, n):
    x = _away(_rng(seed).uniform(-1.5, 1.5, n), (-0.7, 0.8))
    return x, -0.7, 0.8


def _mask(seed, n):
    m = _rng(seed).uniform(size=n) < 0.6
    m[0] = True
    return m


_r = _rng  # short alias for the table below

CASES = [
    (dot_loop, [(_r(1).normal(size=6), _r(2).normal(size=6)),
                (_r(3).normal(size=1), _r(4).normal(size=1))]),
    (kahan_sum, [(_r(5).normal(size=9),)]),
    (weighted_prefix_sums, [(_r(6).normal(size=7), _r(7).normal(size=7))]),
    (cumsum_array, [(_r(8).normal(size=6),)]),
    (cumprod_sum, [(_r(9).uniform(-1.5, 1.5, 6),)]),
    (trapezoid, [(_r(10).normal(size=8), 0.125), (_r(11).normal(size=2), -0.5)]),
    (simpson, [(_r(12).normal(size=9), 0.25)]),
    (moving_average, [(_r(13).normal(size=9), 3), (_r(14).normal(size=4), 4)]),
    (conv1d_valid, [(_r(15).normal(size=8), _r(16).normal(size=3))]),
    (horner, [(_r(17).normal(size=6), -0.7), (_r(18).normal(size=1), 1.3)]),
    (horner_with_derivative, [(_r(19).normal(size=5), 0.9)]),
    (poly_eval_many, [(_r(20).normal(size=4), _r(21).uniform(-1.5, 1.5, 5))]),
    (clenshaw_chebyshev, [(_r(22).normal(size=6), 0.37), (_r(23).normal(size=3), -0.81)]),
    (matvec_loop, [(_r(24).normal(size=(3, 4)), _r(25).normal(size=4))]),
    (matmul_loop, [(_r(26).normal(size=(2, 3)), _r(27).normal(size=(3, 4)))]),
    (bilinear_form, [(_r(28).normal(size=3), _r(29).normal(size=(3, 4)), _r(30).normal(size=4))]),
    (thomas_solve, [_tridiag(31, 6), _tridiag(32, 2)]),
    (thomas_inplace_energy, [_tridiag(33, 5)]),
    (cholesky_factor, [(_spd(34, 4),)]),
    (cholesky_logdet, [(_spd(35, 4),), (_spd(36, 2),)]),
    (lu_det, [(_diag_dominant(37, 4),)]),
    (forward_substitution, [(np.tril(_r(38).normal(size=(4, 4))) + 3.0 * np.eye(4),
                             _r(39).normal(size=4))]),
    (gram_schmidt, [(_r(40).normal(size=(4, 3)),)]),
    (power_iteration, [(_spd(41, 3), _r(42).normal(size=3), 6)]),
    (jacobi_solve, [(_diag_dominant(43, 4), _r(44).normal(size=4), 5)]),
    (transpose_gram_trace, [(_r(45).normal(size=(4, 3)),)]),
    (row_views, [(_r(46).normal(size=(3, 4)), _r(47).normal(size=4))]),
    (column_update, [(_r(48).normal(size=(3, 4)), _r(49).normal(size=3))]),
    (tensor_contract, [(_r(50).normal(size=(2, 3, 4)), _r(51).normal(size=2),
                        _r(52).normal(size=3), _r(53).normal(size=4))]),
    (slices_of_3d, [(_r(54).normal(size=(2, 3, 2)), _r(55).normal(size=2))]),
    (heat_stencil, [(_r(56).normal(size=7), 0.3, 4), (_r(57).normal(size=3), 0.2, 1)]),
    (heat_energy, [(_r(58).normal(size=6), 0.25, 5)]),
    (wave_leapfrog, [(_r(59).normal(size=6), 0.4, 5)]),
    (diffusion_2d, [(_r(60).normal(size=(4, 5)), 0.15, 3)]),
    (lorenz96, [(_r(61).normal(size=5) + 8.0, 8.0, 0.01, 10)]),
    (repeated_square, [(_r(62).uniform(0.6, 1.1, 5), 3), (_r(63).uniform(-1.1, -0.6, 3), 2)]),
    (overwrite_chain, [(_r(64).normal(size=5),)]),
    (bubble_sort_weighted, [(_distinct(65, 6), _r(66).normal(size=6))]),
    (insertion_sort, [(_distinct(67, 6),)]),
    (slice_write_aliasing, [(_r(68).normal(size=6),)]),
    (scatter_add, [(_r(69).normal(size=7), np.array([0, 2, -1, 1, 2, -3, 0]), 4)]),
    (gather_weighted, [(_r(70).normal(size=5), np.array([4, -1, 0, 2, -5, 2]),
                        _r(71).normal(size=6))]),
    (masked_mean, [(_r(72).normal(size=7), _mask(73, 7))]),
    (logistic_loss, [(_r(74).normal(size=(6, 3)), np.array([0, 1, 1, 0, 1, 0]),
                      _r(75).normal(size=3), 0.2)]),
    (argmax_and_count, [(_distinct(76, 6),), (np.array([-1.0, -2.0]),)]),
    (int_histogram, [(np.array([3, -1, 4, 1, -5, 9, 2, 6]), 4)]),
    (shape_queries, [(np.zeros((3, 4)), np.zeros((2, 3, 5)))]),
    (least_squares_residuals, [(_r(77).normal(size=(5, 3)), _r(78).normal(size=3),
                                _r(79).normal(size=5))]),
    (pairwise_distance_sum, [(_r(80).normal(size=(4, 3)),)]),
    (pairwise_sq_dists, [(_r(81).normal(size=(4, 2)),)]),
    (rnn_final_state, [_rnn_args(82, 4, 2, 3) + (_r(83).normal(size=3) * 0.1,)]),
    (rnn_loss_loop, [_rnn_args(84, 4, 2, 3)]),
    (mlp_loss, [_mlp_args(85)]),
    (softmax, [(_distinct(86, 5),)]),
    (softmax_loop, [(_distinct(87, 5),)]),
    (logsumexp, [(_distinct(88, 6),)]),
    (logsumexp_rows, [(_r(89).normal(size=(3, 4)),)]),
    (attention, [_attention_args(90, 3, 2, 2)]),
    (gaussian_nll, [(_r(91).normal(size=5), _r(92).normal(size=5), _r(93).normal(size=5) * 0.3)]),
    (ridge_loss, [(_r(94).normal(size=(5, 3)), _r(95).normal(size=3), _r(96).normal(size=5),
                   0.1)]),
    (cosine_similarity, [(_r(97).normal(size=4), _r(98).normal(size=4))]),
    (frobenius_ratio, [(_r(99).normal(size=(3, 2)), _r(100).normal(size=(2, 4)))]),
    (huber_mean, [(_huber_r(101, 8, 1.0), 1.0)]),
    (leaky_relu_layer, [_leaky_args(102, 4, 3)]),
    (clip_smooth, [_clip_args(103, 8)]),
    (elementwise_zoo, [(_r(104).uniform(0.2, 2.0, 5), _away(_r(105).normal(size=5), (0.0,)))]),
    (broadcast_zoo, [(_r(106).normal(size=(3, 4)), _r(107).normal(size=4),
                      _r(108).normal(size=(3, 1)), 0.7)]),
    (broadcast_3d, [(_r(109).normal(size=(2, 3, 4)), _r(110).normal(size=(3, 4)),
                     _r(111).normal(size=4))]),
    (reductions_2d, [(_r(112).normal(size=(3, 4)),)]),
    (reductions_3d, [(_r(113).normal(size=(2, 3, 4)),)]),
    (dot_combos, [(_r(114).normal(size=3), _r(115).normal(size=(3, 4)), _r(116).normal(size=4),
                   _r(117).normal(size=(4, 4)))]),
    (rank_one_update_norm, [(_r(118).normal(size=3), _r(119).normal(size=4),
                             _r(120).normal(size=(3, 4)))]),
    (floordiv_and_pow, [_floordiv_args(121, 6)]),
    (slice_views, [(_r(122).normal(size=7),)]),
    (creation_functions, [(_r(123).normal(size=4), -0.6, 5)]),
    (stats_tuple, [(_r(124).normal(size=6),)]),
    (split_sign, [_split_args(125, 5)]),
    (sign_mask, [(_away(_r(126).normal(size=6), (0.25,)),)]),
    (int_array_arith, [(np.array([3, -7, 0, 12, 5]), np.array([-2, 4, 9, -11, 5]))]),
]

# Functions whose value is piecewise constant in every float argument (or that have no float
# result): no finite differences (their gradients, if any, are still compared with the
# interpreter).
NO_FINITE_DIFFERENCES = {"argmax_and_count", "int_histogram", "shape_queries",
                         "int_array_arith"}

# Shape-generic functions for the random-shape property test: name -> how to build arguments
# from a random generator and a size n >= 0 (tests/arrays/test_random_programs.py draws n and the layouts).
SHAPE_GENERIC = {
    "dot_loop": lambda g, n: (g.normal(size=n), g.normal(size=n)),
    "kahan_sum": lambda g, n: (g.normal(size=n),),
    "weighted_prefix_sums": lambda g, n: (g.normal(size=n), g.normal(size=n)),
    "cumsum_array": lambda g, n: (g.normal(size=n),),
    "matvec_loop": lambda g, n: (g.normal(size=(n, n % 3 + 1)), g.normal(size=n % 3 + 1)),
    "matmul_loop": lambda g, n: (g.normal(size=(n % 4 + 1, n)), g.normal(size=(n, 2))),
    "bilinear_form": lambda g, n: (g.normal(size=n), g.normal(size=(n, 3)), g.normal(size=3)),
    "least_squares_residuals": lambda g, n: (g.normal(size=(n, 2)), g.normal(size=2),
                                             g.normal(size=n)),
    "heat_stencil": lambda g, n: (g.normal(size=n), 0.2, n % 4),
    "diffusion_2d": lambda g, n: (g.normal(size=(n + 1, 4)), 0.1, 2),
    "tensor_contract": lambda g, n: (g.normal(size=(2, n, 3)), g.normal(size=2),
                                     g.normal(size=n), g.normal(size=3)),
    "ridge_loss": lambda g, n: (g.normal(size=(n, 3)), g.normal(size=3), g.normal(size=n), 0.3),
    "broadcast_zoo": lambda g, n: (g.normal(size=(n, 3)), g.normal(size=3),
                                   g.normal(size=(n, 1)), -0.4),
    "reductions_3d": lambda g, n: (g.normal(size=(n + 1, 2, 3)),),
    "conv1d_valid": lambda g, n: (g.normal(size=n + 2), g.normal(size=3)),
}

BY_NAME = {fn.__name__: fn for fn, _ in CASES}
