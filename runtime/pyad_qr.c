/* pyad_qr.c: the QR factorization of the `qr` row of the op table (pyad/ir/linalg_rows.py;
 * lowered by codegen/lower/linalg.py) by Householder reflections, LAPACK's dgeqr2 and dorg2r
 * (so the signs are NumPy's: R[j][j] = -sign(a) ||column|| where a is the column's leading
 * entry, and the column is left as it is when the entries below it are zero), and `qr_back`,
 * its adjoint (Liao et al. 2019). Conventions of the packed result are in pyad_rt.h.
 * Scratch memory is malloc'd and freed before returning. */
#include "pyad_rt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AT(m, i, j) ((m)->data[(i) * (m)->strides[0] + (j) * (m)->strides[1]])

/* The Householder reflector of column j of the row-major m x n matrix w, below row j - 1
 * (LAPACK's dlarfg): w[j][j] becomes beta, the entries below it v[1:] (v[0] = 1), and the
 * return value is tau, H = I - tau v v^T; 0 (H = I) when the entries below are all 0. */
static double reflector(double *w, int64_t m, int64_t n, int64_t j) {
    double scale = 0.0, ssq = 1.0;   /* ||w[j+1:, j]|| without overflow (dnrm2) */
    for (int64_t i = j + 1; i < m; i++) {
        double x = fabs(w[i * n + j]);
        if (x == 0.0) continue;
        if (scale < x) {
            ssq = 1.0 + ssq * (scale / x) * (scale / x);
            scale = x;
        } else {
            ssq += (x / scale) * (x / scale);
        }
    }
    double xnorm = scale * sqrt(ssq), alpha = w[j * n + j];
    if (xnorm == 0.0) return 0.0;
    double beta = -copysign(hypot(alpha, xnorm), alpha);
    double inv = 1.0 / (alpha - beta);
    for (int64_t i = j + 1; i < m; i++) w[i * n + j] *= inv;
    w[j * n + j] = beta;
    return (beta - alpha) / beta;
}

/* Apply H = I - tau v v^T (v = [1; w[j+1:, j]]) from the left to columns c0..n-1 of the
 * row-major m x n matrix q, rows j..m-1, reading v from the row-major matrix w (width wn). */
static void reflect(double *q, int64_t m, int64_t n, int64_t c0, const double *w, int64_t wn,
                    int64_t j, double tau) {
    if (tau == 0.0) return;
    for (int64_t c = c0; c < n; c++) {
        double s = q[j * n + c];
        for (int64_t i = j + 1; i < m; i++) s += w[i * wn + j] * q[i * n + c];
        s *= tau;
        q[j * n + c] -= s;
        for (int64_t i = j + 1; i < m; i++) q[i * n + c] -= s * w[i * wn + j];
    }
}

int32_t pyad_la_qr(const pyad_mat *a, pyad_mat *out) {
    int64_t m = a->shape[0], n = a->shape[1], k = m < n ? m : n;
    double *w = malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof(double));
    double *tau = malloc((size_t)(k > 0 ? k : 1) * sizeof(double));
    double *q = malloc((size_t)(m * k > 0 ? m * k : 1) * sizeof(double));
    if (!w || !tau || !q) {
        free(w);
        free(tau);
        free(q);
        return PYAD_ERR_MEMORY;
    }
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) w[i * n + j] = AT(a, i, j);
    for (int64_t j = 0; j < k; j++) {          /* dgeqr2: R in w's upper triangle */
        tau[j] = reflector(w, m, n, j);
        reflect(w, m, n, j + 1, w, n, j, tau[j]);
    }
    memset(q, 0, (size_t)(m * k) * sizeof(double));
    for (int64_t j = k - 1; j >= 0; j--) {     /* dorg2r: Q = H_0 ... H_{k-1} [I; 0] */
        reflect(q, m, k, j + 1, w, n, j, tau[j]);
        for (int64_t i = j + 1; i < m; i++) q[i * k + j] = -tau[j] * w[i * n + j];
        q[j * k + j] = 1.0 - tau[j];
    }
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) AT(out, i, j) = j < k ? q[i * k + j] : 0.0;
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < n; j++) AT(out, m + i, j) = j >= i ? w[i * n + j] : 0.0;
    free(w);
    free(tau);
    free(q);
    return PYAD_OK;
}

/* x = b r^-T for the row-major rows x k matrix b (in place) and the k x k upper triangle
 * of r: each row x of the result solves r x^T = b's row by back substitution. */
static void right_solve_transposed(double *b, int64_t rows, int64_t k, const double *r) {
    for (int64_t row = 0; row < rows; row++) {
        double *x = b + row * k;
        for (int64_t i = k - 1; i >= 0; i--) {
            double s = x[i];
            for (int64_t j = i + 1; j < k; j++) s -= r[i * k + j] * x[j];
            x[i] = s / r[i * k + i];
        }
    }
}

int32_t pyad_la_qr_back(const pyad_mat *p, const pyad_mat *ct, const pyad_mat *a,
                        pyad_mat *out) {
    int64_t m = a->shape[0], n = a->shape[1], k = m < n ? m : n;
    double *r = malloc((size_t)(k * k > 0 ? k * k : 1) * sizeof(double));
    double *mid = malloc((size_t)(k * k > 0 ? k * k : 1) * sizeof(double));
    double *qb = malloc((size_t)(m * k > 0 ? m * k : 1) * sizeof(double));
    double *row = malloc((size_t)(k > 0 ? k : 1) * sizeof(double));
    if (!r || !mid || !qb || !row) {
        free(r);
        free(mid);
        free(qb);
        free(row);
        return PYAD_ERR_MEMORY;
    }
#define Q(i, j) AT(p, i, j)
#define R(i, j) AT(p, m + (i), j)
#define QB(i, j) AT(ct, i, j)
#define RB(i, j) AT(ct, m + (i), j)
    /* A = [X | Y] with X m x k, R = [U | V]: Qbar' = Qbar + Y Vbar^T, and Ybar = Q Vbar
     * (nothing when m >= n: then X = A and U = R) */
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < k; j++) {
            double s = QB(i, j);
            for (int64_t c = k; c < n; c++) s += AT(a, i, c) * RB(j, c);
            qb[i * k + j] = s;
        }
    for (int64_t i = 0; i < m; i++)
        for (int64_t c = k; c < n; c++) {
            double s = 0.0;
            for (int64_t j = 0; j < k; j++) s += Q(i, j) * RB(j, c);
            AT(out, i, c) = s;
        }
    /* M = U Ubar^T - Qbar'^T Q, then its lower triangle copied to the upper one */
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j <= i; j++) {
            double s = 0.0;
            for (int64_t c = i; c < k; c++) s += R(i, c) * RB(j, c);   /* U upper */
            for (int64_t c = 0; c < m; c++) s -= qb[c * k + i] * Q(c, j);
            mid[i * k + j] = mid[j * k + i] = s;
        }
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < k; j++) r[i * k + j] = R(i, j);
    /* Xbar = (Qbar' + Q copyltu(M)) U^-T, built in qb */
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < k; j++) {
            double s = qb[i * k + j];
            for (int64_t c = 0; c < k; c++) s += Q(i, c) * mid[c * k + j];
            row[j] = s;
        }
        memcpy(qb + i * k, row, (size_t)k * sizeof(double));
    }
    right_solve_transposed(qb, m, k, r);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < k; j++) AT(out, i, j) = qb[i * k + j];
#undef Q
#undef R
#undef QB
#undef RB
    free(r);
    free(mid);
    free(qb);
    free(row);
    return PYAD_OK;
}
