/* pyad_svd.c: the singular value decomposition of the `svd` row of the op table
 * (pyad/ir/linalg_rows.py; lowered by codegen/lower/linalg.py) by the one-sided Jacobi
 * method (Hestenes), and `svd_back`, its adjoint (of A's shape: A is read for that only).
 *
 * One-sided Jacobi rotates pairs of columns of a copy W of A (of A^T when A has more columns
 * than rows) until every pair is orthogonal to working precision, applying the same
 * rotations to V = I; then the singular values are the column norms of W, U = W diag(1/s)
 * (W scaled by A's largest magnitude first; a nan or inf entry fails, as in LAPACK).
 * It computes even the small singular values to high relative accuracy (Demmel and Veselic
 * 1992), which forming A^T A would lose. Conventions of the packed result are in
 * pyad_rt.h. Scratch memory is malloc'd and freed before returning. */
#include "pyad_rt.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AT(m, i, j) ((m)->data[(i) * (m)->strides[0] + (j) * (m)->strides[1]])

/* The squared norm at or below which a column of the row-major rows x cols matrix w is
 * rounding noise: DBL_EPSILON^2 rows times the squared norm of w (rotations keep it). */
static double negligible(const double *w, int64_t rows, int64_t cols) {
    double small = 0.0;
    for (int64_t i = 0; i < rows * cols; i++) small += w[i] * w[i];
    return small * DBL_EPSILON * DBL_EPSILON * (double)(rows > 1 ? rows : 1);
}

/* Rotate the columns of the row-major rows x cols matrix w (and of the cols x cols matrix
 * v) until all pairs are orthogonal: |w_p . w_q| <= tol ||w_p|| ||w_q||, or one of them is
 * rounding noise (its squared norm at most `small`: a rank-deficient matrix leaves such
 * columns, whose noise the relative test alone never accepts: np.ones((7, 7)) ran out of
 * sweeps; their singular values are 0, pyad_la_svd). Returns 1 when that happened within
 * the sweep limit, 0 otherwise (nan or inf entries). */
static int jacobi(double *w, double *v, int64_t rows, int64_t cols, double small) {
    double tol = DBL_EPSILON * sqrt((double)(rows > 1 ? rows : 1));
    for (int sweep = 0; sweep < 100; sweep++) {
        int rotated = 0;
        for (int64_t p = 0; p < cols; p++)
            for (int64_t q = p + 1; q < cols; q++) {
                double alpha = 0.0, beta = 0.0, gamma = 0.0;
                for (int64_t i = 0; i < rows; i++) {
                    double a = w[i * cols + p], b = w[i * cols + q];
                    alpha += a * a;
                    beta += b * b;
                    gamma += a * b;
                }
                if (!isfinite(alpha) || !isfinite(beta) || !isfinite(gamma)) return 0;
                if (gamma == 0.0 || fabs(gamma) <= tol * sqrt(alpha) * sqrt(beta)
                    || alpha <= small || beta <= small) continue;
                rotated = 1;
                double zeta = (beta - alpha) / (2.0 * gamma);
                double t = fabs(zeta) > 1e150 ? 0.5 / zeta
                         : copysign(1.0, zeta) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
                double c = 1.0 / sqrt(1.0 + t * t), s = c * t;
                for (int64_t i = 0; i < rows; i++) {
                    double a = w[i * cols + p], b = w[i * cols + q];
                    w[i * cols + p] = c * a - s * b;
                    w[i * cols + q] = s * a + c * b;
                }
                for (int64_t i = 0; i < cols; i++) {
                    double a = v[i * cols + p], b = v[i * cols + q];
                    v[i * cols + p] = c * a - s * b;
                    v[i * cols + q] = s * a + c * b;
                }
            }
        if (!rotated) return 1;
    }
    return 0;
}

/* Column j of the row-major rows x k matrix u becomes a unit vector orthogonal to columns
 * 0..j-1 (Gram-Schmidt, twice, of the first unit vector e_i that keeps enough of its norm):
 * the left singular vector of a zero singular value. */
static void complete(double *u, int64_t rows, int64_t k, int64_t j) {
    for (int64_t e = 0; e < rows; e++) {
        for (int64_t i = 0; i < rows; i++) u[i * k + j] = i == e ? 1.0 : 0.0;
        for (int pass = 0; pass < 2; pass++)
            for (int64_t l = 0; l < j; l++) {
                double d = 0.0;
                for (int64_t i = 0; i < rows; i++) d += u[i * k + l] * u[i * k + j];
                for (int64_t i = 0; i < rows; i++) u[i * k + j] -= d * u[i * k + l];
            }
        double norm = 0.0;
        for (int64_t i = 0; i < rows; i++) norm += u[i * k + j] * u[i * k + j];
        if (norm > 0.25) {
            norm = sqrt(norm);
            for (int64_t i = 0; i < rows; i++) u[i * k + j] /= norm;
            return;
        }
    }
}

int32_t pyad_la_svd(const pyad_mat *a, pyad_mat *out) {
    int64_t m = a->shape[0], n = a->shape[1];
    int wide = n > m;                        /* work on A^T: rows >= cols */
    int64_t rows = wide ? n : m, k = wide ? m : n;
    double *w = malloc((size_t)(rows * k > 0 ? rows * k : 1) * sizeof(double));
    double *v = calloc((size_t)(k * k > 0 ? k * k : 1), sizeof(double));
    double *s = malloc((size_t)(k > 0 ? k : 1) * sizeof(double));
    if (!w || !v || !s) {
        free(w);
        free(v);
        free(s);
        return PYAD_ERR_MEMORY;
    }
    /* scaled by the largest magnitude, so that the squared column norms do not overflow */
    double big = 0.0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            if (!(fabs(AT(a, i, j)) <= big)) big = fabs(AT(a, i, j));
    double scale = big > 0.0 && isfinite(big) ? big : 1.0;   /* nan or inf: no SVD */
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < k; j++)
            w[i * k + j] = (wide ? AT(a, j, i) : AT(a, i, j)) / scale;
    for (int64_t j = 0; j < k; j++) v[j * k + j] = 1.0;
    double small = negligible(w, rows, k);
    int ok = isfinite(big) && jacobi(w, v, rows, k, small);
    if (ok) {
        for (int64_t j = 0; j < k; j++) {
            double t = 0.0;
            for (int64_t i = 0; i < rows; i++) t += w[i * k + j] * w[i * k + j];
            /* of the scaled matrix: U = w / s, then s times the scale; a column of rounding
             * noise is a zero singular value (its U column completed, orthonormal) */
            s[j] = t > small ? sqrt(t) : 0.0;
        }
        /* descending singular values (a stable selection sort moving the vectors along) */
        for (int64_t j = 0; j < k; j++) {
            int64_t big = j;
            for (int64_t i = j + 1; i < k; i++)
                if (s[i] > s[big]) big = i;
            if (big == j) continue;
            double t = s[big];
            memmove(s + j + 1, s + j, (size_t)(big - j) * sizeof(double));
            s[j] = t;
            double *mats[2] = {w, v};
            int64_t heights[2] = {rows, k};
            for (int x = 0; x < 2; x++)
                for (int64_t i = 0; i < heights[x]; i++) {
                    double *row = mats[x] + i * k, c = row[big];
                    memmove(row + j + 1, row + j, (size_t)(big - j) * sizeof(double));
                    row[j] = c;
                }
        }
        for (int64_t j = 0; j < k; j++) {
            if (s[j] > 0.0)
                for (int64_t i = 0; i < rows; i++) w[i * k + j] /= s[j];
            else
                complete(w, rows, k, j);
            /* the sign: A's right singular vector's largest-magnitude component (the first
             * of equals) positive; for a wide A that vector is the column of w */
            const double *r = wide ? w : v;
            int64_t h = wide ? rows : k, top = 0;
            for (int64_t i = 1; i < h; i++)
                if (fabs(r[i * k + j]) > fabs(r[top * k + j])) top = i;
            if (r[top * k + j] < 0.0) {
                for (int64_t i = 0; i < rows; i++) w[i * k + j] = -w[i * k + j];
                for (int64_t i = 0; i < k; i++) v[i * k + j] = -v[i * k + j];
            }
        }
        /* out: row 0 the singular values, rows 1..m U (m x k), rows m+1..m+n V (n x k) */
        const double *u_of_a = wide ? v : w, *v_of_a = wide ? w : v;
        for (int64_t j = 0; j < k; j++) {
            AT(out, 0, j) = s[j] * scale;
            for (int64_t i = 0; i < m; i++) AT(out, 1 + i, j) = u_of_a[i * k + j];
            for (int64_t i = 0; i < n; i++) AT(out, 1 + m + i, j) = v_of_a[i * k + j];
        }
    }
    free(w);
    free(v);
    free(s);
    return ok ? PYAD_OK : PYAD_ERR_LINALG;
}

int32_t pyad_la_svd_back(const pyad_mat *p, const pyad_mat *ct, const pyad_mat *a,
                         pyad_mat *out) {
    int64_t m = a->shape[0], n = a->shape[1], k = p->shape[1];
    size_t kk = (size_t)(k * k > 0 ? k * k : 1);
    double *x = malloc(kk * sizeof(double)), *y = malloc(kk * sizeof(double));
    double *t = malloc((size_t)(m * k > 0 ? m * k : 1) * sizeof(double));
    double *pv = malloc((size_t)(n * k > 0 ? n * k : 1) * sizeof(double));
    if (!x || !y || !t || !pv) {
        free(x);
        free(y);
        free(t);
        free(pv);
        return PYAD_ERR_MEMORY;
    }
#define S(j) AT(p, 0, j)
#define U(i, j) AT(p, 1 + (i), j)
#define V(i, j) AT(p, 1 + m + (i), j)
#define SB(j) AT(ct, 0, j)
#define UB(i, j) AT(ct, 1 + (i), j)
#define VB(i, j) AT(ct, 1 + m + (i), j)
    for (int64_t i = 0; i < k; i++)          /* x = U^T Ubar, y = V^T Vbar */
        for (int64_t j = 0; j < k; j++) {
            double a = 0.0, b = 0.0;
            for (int64_t r = 0; r < m; r++) a += U(r, i) * UB(r, j);
            for (int64_t r = 0; r < n; r++) b += V(r, i) * VB(r, j);
            x[i * k + j] = a;
            y[i * k + j] = b;
        }
    /* t = U J + (Ubar - U x) S^-1 and pv = (Vbar - V y) S^-1, with J[i][j] = (x[i][j] -
     * x[j][i]) s[j] + s[i] (y[i][j] - y[j][i]) over s[j]^2 - s[i]^2 off the diagonal (0
     * where the two are equal) and sbar on it; 1 / s taken as 0 where s is 0 */
    for (int64_t r = 0; r < m; r++)
        for (int64_t j = 0; j < k; j++) {
            double acc = 0.0, proj = UB(r, j);
            for (int64_t i = 0; i < k; i++) {
                double jij = SB(j);
                if (i != j) {
                    double gap = S(j) * S(j) - S(i) * S(i);
                    jij = gap == 0.0 ? 0.0 : ((x[i * k + j] - x[j * k + i]) * S(j)
                                              + S(i) * (y[i * k + j] - y[j * k + i])) / gap;
                }
                acc += U(r, i) * jij;
                proj -= U(r, i) * x[i * k + j];
            }
            t[r * k + j] = acc + (S(j) == 0.0 || proj == 0.0 ? 0.0 : proj / S(j));
        }
    for (int64_t r = 0; r < n; r++)
        for (int64_t j = 0; j < k; j++) {
            double proj = VB(r, j);
            for (int64_t i = 0; i < k; i++) proj -= V(r, i) * y[i * k + j];
            pv[r * k + j] = S(j) == 0.0 || proj == 0.0 ? 0.0 : proj / S(j);
        }
    for (int64_t a = 0; a < m; a++)          /* out = t V^T + U pv^T */
        for (int64_t b = 0; b < n; b++) {
            double acc = 0.0;
            for (int64_t j = 0; j < k; j++)
                acc += t[a * k + j] * V(b, j) + U(a, j) * pv[b * k + j];
            AT(out, a, b) = acc;
        }
#undef S
#undef U
#undef V
#undef SB
#undef UB
#undef VB
    free(x);
    free(y);
    free(t);
    free(pv);
    return PYAD_OK;
}
