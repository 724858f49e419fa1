/* pyad_linalg.c: the dense linear-algebra kernels of the `np.linalg` rows of the op table
 * (pyad/ir/linalg_rows.py; lowered by codegen/lower/linalg.py): LU with partial pivoting
 * (solve, inv, det, slogdet), Cholesky, triangular solves, the cyclic Jacobi eigenvalue
 * method for symmetric matrices, and the small elementwise helpers their adjoints use.
 *
 * Operands are strided matrix descriptors (pyad_mat: any layout, transposed views
 * included); results are written through descriptors the caller allocated with the right
 * shape. Every kernel returns PYAD_OK, PYAD_ERR_LINALG (the numerical failure its contract
 * names) or PYAD_ERR_MEMORY (scratch allocation failed); the caller turns the status into
 * the error of the user's line. Scratch memory is malloc'd and freed before returning. */
#include "pyad_rt.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AT(m, i, j) ((m)->data[(i) * (m)->strides[0] + (j) * (m)->strides[1]])

/* y[j] -= a * x[j] for j < n (y and x contiguous, not overlapping): the row update of LU and
 * of the substitutions, most of their time. Eight elements at a time in vector registers,
 * with AVX-512 or AVX2 where the CPU has them (chosen at run time): a multiply, then a
 * subtract, for each element, as the scalar loop does (C11 does not contract them into a
 * fused multiply-add), so every path gives the same bits. */
#if defined(__GNUC__) && defined(__x86_64__)
#define PYAD_ROW_UPDATE_VECTORS 1
typedef double pyad_v8 __attribute__((vector_size(64), aligned(8)));
#define PYAD_ROW_UPDATE(NAME, ATTRS)                                                     \
    ATTRS static void NAME(double *y, const double *x, double a, int64_t n) {           \
        int64_t j = 0;                                                                   \
        for (; j + 8 <= n; j += 8) {                                                     \
            pyad_v8 vy, vx;                                                              \
            memcpy(&vy, y + j, sizeof vy);                                               \
            memcpy(&vx, x + j, sizeof vx);                                               \
            vy -= a * vx;                                                                \
            memcpy(y + j, &vy, sizeof vy);                                               \
        }                                                                                \
        for (; j < n; j++) y[j] -= a * x[j];                                             \
    }
PYAD_ROW_UPDATE(row_update_512, __attribute__((target("avx512f"))))
PYAD_ROW_UPDATE(row_update_256, __attribute__((target("avx2"))))
#endif

static void row_update_c(double *y, const double *x, double a, int64_t n) {
    for (int64_t j = 0; j < n; j++) y[j] -= a * x[j];
}

typedef void (*row_update_fn)(double *, const double *, double, int64_t);

static row_update_fn row_update_for_cpu(void) {
#ifdef PYAD_ROW_UPDATE_VECTORS
    if (__builtin_cpu_supports("avx512f")) return row_update_512;
    if (__builtin_cpu_supports("avx2")) return row_update_256;
#endif
    return row_update_c;
}

/* Row i of x minus a times row p (i != p), for an x of any strides. */
static void sub_row(pyad_mat *x, int64_t i, int64_t p, double a, row_update_fn update) {
    int64_t k = x->shape[1];
    if (x->strides[1] == 1 && x->strides[0] >= k) {   /* rows of contiguous, apart elements */
        update(x->data + i * x->strides[0], x->data + p * x->strides[0], a, k);
        return;
    }
    for (int64_t j = 0; j < k; j++) AT(x, i, j) -= a * AT(x, p, j);
}

/* Row-major contiguous copy of the n x n matrix a (NULL when out of memory). */
static double *dense_copy(const pyad_mat *a, int64_t n) {
    double *lu = malloc((size_t)(n > 0 ? n * n : 1) * sizeof(double));
    if (!lu) return NULL;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) lu[i * n + j] = AT(a, i, j);
    return lu;
}

/* LU factorization with partial pivoting (LAPACK dgetrf's algorithm) of the row-major n x n
 * matrix lu, in place: piv[k] is the row swapped with row k at step k, *swaps the number of
 * actual swaps. A zero pivot is skipped (its column below is already zero). Returns 1 if a
 * pivot was exactly zero (the matrix is singular), else 0. */
static int lu_factor(double *lu, int64_t n, int64_t *piv, int64_t *swaps) {
    row_update_fn update = row_update_for_cpu();
    int singular = 0;
    *swaps = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t p = k;
        double best = fabs(lu[k * n + k]);
        for (int64_t i = k + 1; i < n; i++) {
            if (fabs(lu[i * n + k]) > best) {
                best = fabs(lu[i * n + k]);
                p = i;
            }
        }
        piv[k] = p;
        if (p != k) {
            ++*swaps;
            for (int64_t j = 0; j < n; j++) {
                double t = lu[k * n + j];
                lu[k * n + j] = lu[p * n + j];
                lu[p * n + j] = t;
            }
        }
        double pivot = lu[k * n + k];
        if (pivot == 0.0) {
            singular = 1;
            continue;
        }
        for (int64_t i = k + 1; i < n; i++) {
            double l = lu[i * n + k] /= pivot;
            if (l != 0.0) update(lu + i * n + k + 1, lu + k * n + k + 1, l, n - k - 1);
        }
    }
    return singular;
}

/* x <- A^-1 x for the factorization (lu, piv) of A and the n x k matrix x. */
static void lu_solve_in_place(const double *lu, const int64_t *piv, int64_t n, pyad_mat *x) {
    int64_t k = x->shape[1];
    row_update_fn update = row_update_for_cpu();
    for (int64_t i = 0; i < n; i++) {
        if (piv[i] != i)
            for (int64_t j = 0; j < k; j++) {
                double t = AT(x, i, j);
                AT(x, i, j) = AT(x, piv[i], j);
                AT(x, piv[i], j) = t;
            }
    }
    for (int64_t i = 0; i < n; i++)          /* L y = P b, L unit lower */
        for (int64_t p = 0; p < i; p++) {
            double l = lu[i * n + p];
            if (l != 0.0) sub_row(x, i, p, l, update);
        }
    for (int64_t i = n - 1; i >= 0; i--) {   /* U x = y */
        for (int64_t p = i + 1; p < n; p++) {
            double u = lu[i * n + p];
            if (u != 0.0) sub_row(x, i, p, u, update);
        }
        double d = lu[i * n + i];
        for (int64_t j = 0; j < k; j++) AT(x, i, j) /= d;
    }
}

/* x (n x k) = A^-1 b, where b is given in x already. */
static int32_t solve_into(const pyad_mat *a, pyad_mat *x) {
    int64_t n = a->shape[0];
    double *lu = dense_copy(a, n);
    int64_t *piv = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    int32_t status = PYAD_OK;
    int64_t swaps;
    if (!lu || !piv)
        status = PYAD_ERR_MEMORY;
    else if (lu_factor(lu, n, piv, &swaps))
        status = PYAD_ERR_LINALG;
    else
        lu_solve_in_place(lu, piv, n, x);
    free(lu);
    free(piv);
    return status;
}

int32_t pyad_la_solve(const pyad_mat *a, const pyad_mat *b, pyad_mat *x) {
    for (int64_t i = 0; i < b->shape[0]; i++)
        for (int64_t j = 0; j < b->shape[1]; j++) AT(x, i, j) = AT(b, i, j);
    return solve_into(a, x);
}

int32_t pyad_la_inv(const pyad_mat *a, pyad_mat *x) {
    for (int64_t i = 0; i < a->shape[0]; i++)
        for (int64_t j = 0; j < a->shape[0]; j++) AT(x, i, j) = i == j ? 1.0 : 0.0;
    return solve_into(a, x);
}

/* out[0] = sign, out[1] = log|det|, and out[2] = det (the product of the pivots, as NumPy
 * computes it) of the LU factorization of a. */
static int32_t lu_det(const pyad_mat *a, double *out) {
    int64_t n = a->shape[0];
    double *lu = dense_copy(a, n);
    int64_t *piv = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    int64_t swaps = 0;
    if (!lu || !piv) {
        free(lu);
        free(piv);
        return PYAD_ERR_MEMORY;
    }
    lu_factor(lu, n, piv, &swaps);
    double sign = swaps % 2 ? -1.0 : 1.0, logabs = 0.0, det = sign;
    for (int64_t i = 0; i < n; i++) {
        double d = lu[i * n + i];
        det *= d;
        if (d < 0.0) sign = -sign;
        logabs += log(fabs(d));
    }
    if (det == 0.0 && logabs == -INFINITY) sign = 0.0;
    out[0] = sign;
    out[1] = logabs;
    out[2] = det;
    free(lu);
    free(piv);
    return PYAD_OK;
}

int32_t pyad_la_det(const pyad_mat *a, double *det) {
    double out[3];
    int32_t status = lu_det(a, out);
    *det = out[2];
    return status;
}

int32_t pyad_la_slogdet(const pyad_mat *a, double *sign_logabs) {
    double out[3];
    int32_t status = lu_det(a, out);
    sign_logabs[0] = out[0];
    sign_logabs[1] = out[1];
    return status;
}

int32_t pyad_la_cholesky(const pyad_mat *a, pyad_mat *l) {
    /* Right-looking, on u = L^T (row-major): when column j of L is known, every later row k
     * of u loses L[k][j] times row j. Each element receives the same subtractions, in the
     * same order (of j), as in the dot products of the left-looking algorithm, so the bits
     * are the same; the updates are row updates, which vectorize. */
    int64_t n = a->shape[0];
    double *u = malloc((size_t)(n > 0 ? n * n : 1) * sizeof(double));
    if (!u) return PYAD_ERR_MEMORY;
    row_update_fn update = row_update_for_cpu();
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j <= i; j++) u[j * n + i] = AT(a, i, j);
    for (int64_t j = 0; j < n; j++) {
        double s = u[j * n + j];
        if (!(s > 0.0)) {   /* also nan */
            free(u);
            return PYAD_ERR_LINALG;
        }
        double d = sqrt(s);
        u[j * n + j] = d;
        for (int64_t k = j + 1; k < n; k++) u[j * n + k] /= d;
        for (int64_t k = j + 1; k < n; k++)
            update(u + k * n + k, u + j * n + k, u[j * n + k], n - k);
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) AT(l, i, j) = j <= i ? u[j * n + i] : 0.0;
    free(u);
    return PYAD_OK;
}

int32_t pyad_la_trisolve(const pyad_mat *t, const pyad_mat *b, pyad_mat *x, int32_t lower) {
    int64_t n = t->shape[0], k = b->shape[1];
    row_update_fn update = row_update_for_cpu();
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < k; j++) AT(x, i, j) = AT(b, i, j);
    for (int64_t s = 0; s < n; s++) {
        int64_t i = lower ? s : n - 1 - s;
        int64_t lo = lower ? 0 : i + 1, hi = lower ? i : n;
        for (int64_t p = lo; p < hi; p++) {
            double c = AT(t, i, p);
            if (c != 0.0) sub_row(x, i, p, c, update);
        }
        double d = AT(t, i, i);
        for (int64_t j = 0; j < k; j++) AT(x, i, j) /= d;
    }
    return PYAD_OK;
}

/* One Jacobi rotation J(p, q) of the symmetric row-major n x n matrix s, chosen to zero
 * s[p][q]: s <- J^T s J, v <- v J (Golub & Van Loan, Algorithm 8.5.1). */
static void rotate(double *s, double *v, int64_t n, int64_t p, int64_t q) {
    double apq = s[p * n + q];
    double tau = (s[q * n + q] - s[p * n + p]) / (2.0 * apq);
    double t = (tau >= 0.0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
    double c = 1.0 / sqrt(1.0 + t * t), sn = t * c;
    for (int64_t r = 0; r < n; r++) {        /* columns: s J */
        double x = s[r * n + p], y = s[r * n + q];
        s[r * n + p] = c * x - sn * y;
        s[r * n + q] = sn * x + c * y;
    }
    for (int64_t r = 0; r < n; r++) {        /* rows: J^T s */
        double x = s[p * n + r], y = s[q * n + r];
        s[p * n + r] = c * x - sn * y;
        s[q * n + r] = sn * x + c * y;
    }
    s[p * n + q] = s[q * n + p] = 0.0;
    for (int64_t r = 0; r < n; r++) {
        double x = v[r * n + p], y = v[r * n + q];
        v[r * n + p] = c * x - sn * y;
        v[r * n + q] = sn * x + c * y;
    }
}

int32_t pyad_la_eigh(const pyad_mat *a, pyad_mat *out) {
    int64_t n = a->shape[0];
    size_t nn = (size_t)(n > 0 ? n * n : 1);
    double *s = malloc(nn * sizeof(double)), *v = calloc(nn, sizeof(double));
    if (!s || !v) {
        free(s);
        free(v);
        return PYAD_ERR_MEMORY;
    }
    for (int64_t i = 0; i < n; i++) {        /* the symmetric matrix of a's lower triangle */
        v[i * n + i] = 1.0;
        for (int64_t j = 0; j <= i; j++) s[i * n + j] = s[j * n + i] = AT(a, i, j);
    }
    int converged = 0;
    for (int sweep = 0; sweep < 64 && !converged; sweep++) {
        double off = 0.0;
        for (int64_t p = 0; p < n; p++)
            for (int64_t q = p + 1; q < n; q++) off += fabs(s[p * n + q]);
        if (off == 0.0) {
            converged = 1;
            break;
        }
        if (!(off == off) || isinf(off)) break;
        for (int64_t p = 0; p < n; p++)
            for (int64_t q = p + 1; q < n; q++) {
                double apq = s[p * n + q];
                if (apq == 0.0) continue;
                /* after a few sweeps an element negligible next to both diagonal entries is
                 * set to zero (Numerical Recipes' test): it no longer changes them */
                double g = 100.0 * fabs(apq);
                if (sweep > 3 && fabs(s[p * n + p]) + g == fabs(s[p * n + p])
                    && fabs(s[q * n + q]) + g == fabs(s[q * n + q]))
                    s[p * n + q] = s[q * n + p] = 0.0;
                else
                    rotate(s, v, n, p, q);
            }
    }
    if (converged) {
        /* ascending eigenvalues (a stable selection sort moving the vectors along); each
         * vector's largest-magnitude component (the first of equals) made positive */
        for (int64_t j = 0; j < n; j++) {
            int64_t m = j;
            for (int64_t i = j + 1; i < n; i++)
                if (s[i * n + i] < s[m * n + m]) m = i;
            AT(out, 0, j) = s[m * n + m];
            s[m * n + m] = s[j * n + j];
            s[j * n + j] = AT(out, 0, j);
            int64_t big = 0;
            for (int64_t r = 0; r < n; r++) {
                double t = v[r * n + m];
                v[r * n + m] = v[r * n + j];
                v[r * n + j] = t;
                if (fabs(t) > fabs(v[big * n + j])) big = r;
            }
            double flip = v[big * n + j] < 0.0 ? -1.0 : 1.0;
            for (int64_t r = 0; r < n; r++) AT(out, 1 + r, j) = flip * v[r * n + j];
        }
    }
    free(s);
    free(v);
    return converged ? PYAD_OK : PYAD_ERR_LINALG;
}

int32_t pyad_la_tril_half(const pyad_mat *x, pyad_mat *out) {
    for (int64_t i = 0; i < x->shape[0]; i++)
        for (int64_t j = 0; j < x->shape[1]; j++)
            AT(out, i, j) = j < i ? AT(x, i, j) : j == i ? 0.5 * AT(x, i, j) : 0.0;
    return PYAD_OK;
}

int32_t pyad_la_tril_fold(const pyad_mat *x, pyad_mat *out) {
    for (int64_t i = 0; i < x->shape[0]; i++)
        for (int64_t j = 0; j < x->shape[1]; j++)
            AT(out, i, j) = j < i ? AT(x, i, j) + AT(x, j, i) : j == i ? AT(x, i, j) : 0.0;
    return PYAD_OK;
}

int32_t pyad_la_eigh_mid(const pyad_mat *w, const pyad_mat *wbar, const pyad_mat *x,
                         pyad_mat *out) {
    int64_t n = x->shape[0];
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            double gap = AT(w, j, 0) - AT(w, i, 0);
            AT(out, i, j) = i == j ? AT(wbar, i, 0) : gap == 0.0 ? 0.0 : AT(x, i, j) / gap;
        }
    return PYAD_OK;
}
