/* pyad_matmul.c: the matrix product kernel of the `matmul` row of the op table (`@`,
 * np.dot, np.matmul, and the products of their adjoints), lowered by codegen/lower/matmul.py.
 *
 * The arithmetic is fixed, whatever the shapes, strides and blocking: every element of the
 * result is the sequential sum over p of a[i][p] * b[p][j], starting from 0.0 and adding the
 * products in the order p = 0, 1, ..., k-1, each step one fused multiply-add on a machine
 * with FMA (x86-64 with AVX2 and FMA) and a multiply then an add elsewhere. So a product gives
 * the same bits in every function that computes it (primal, gradient, pullback, the AOT
 * library), for any layout of its operands, and 2-D products with one row or column give
 * the bits of the matrix-vector product.
 *
 * Speed comes from the classic structure of BLAS (Goto, BLIS): B is packed, a block of k
 * rows at a time, into panels of NR columns, A into panels of MR rows, and a register-blocked
 * micro-kernel computes an MR x NR tile of C over a block of k. Blocks of k continue the
 * running sums through C (a double store and load: exact), so blocking does not change the
 * order. Padding rows and columns of the panels are zero and their results are dropped.
 * Matrix-vector products (a 1-D operand, or one row or column) run without packing.
 *
 * The SIMD code is compiled for AVX2+FMA through function attributes and chosen at run time
 * (__builtin_cpu_supports), so the library stays built for the baseline ISA and
 * self-contained; other compilers and CPUs get the portable C path. */
#include "pyad_rt.h"
#include "pyad_pool.h"

#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define PYAD_HAVE_X86_FMA 1
#else
#define PYAD_HAVE_X86_FMA 0
#endif

enum {
    MR = 6,      /* rows of a micro-tile (6 x 2 AVX2 accumulators) */
    NR = 8,      /* columns of a micro-tile */
    KC = 256,    /* rows of B in a packed block: an NR-column panel (16 KiB) stays in L1 */
    MC = 96,     /* rows of A in a packed block (192 KiB, in L2) */
    NC = 4096,   /* columns of B in a packed block (in L3) */
    SMALL = 4096 /* packing buffers up to this many doubles live on the stack */
};

#define EL(m, i, j) ((m)->data[(i) * (m)->strides[0] + (j) * (m)->strides[1]])

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t round_up(int64_t a, int64_t r) { return (a + r - 1) / r * r; }

/* ---- packing ----------------------------------------------------------------------------- */

/* ap[panel][p][r] = a[i0 + panel*MR + r][p0 + p] for mc rows and kc columns (0 past row mc). */
static void pack_a(const pyad_mat *a, int64_t i0, int64_t p0, int64_t mc, int64_t kc,
                   double *ap) {
    int64_t s0 = a->strides[0], s1 = a->strides[1];
    for (int64_t ir = 0; ir < mc; ir += MR, ap += MR * kc) {
        int64_t rows = min64(MR, mc - ir);
        for (int64_t r = 0; r < MR; r++) {
            if (r >= rows) {
                for (int64_t p = 0; p < kc; p++) ap[p * MR + r] = 0.0;
                continue;
            }
            const double *src = a->data + (i0 + ir + r) * s0 + p0 * s1;
            for (int64_t p = 0; p < kc; p++) ap[p * MR + r] = src[p * s1];
        }
    }
}

/* bp[panel][p][c] = b[p0 + p][j0 + panel*NR + c] for kc rows and nc columns (0 past nc). */
static void pack_b(const pyad_mat *b, int64_t p0, int64_t j0, int64_t kc, int64_t nc,
                   double *bp) {
    int64_t s0 = b->strides[0], s1 = b->strides[1];
    for (int64_t jr = 0; jr < nc; jr += NR, bp += NR * kc) {
        int64_t cols = min64(NR, nc - jr);
        const double *src = b->data + p0 * s0 + (j0 + jr) * s1;
        if (cols == NR && s1 == 1) {
            for (int64_t p = 0; p < kc; p++) memcpy(bp + p * NR, src + p * s0, NR * sizeof(double));
            continue;
        }
        for (int64_t p = 0; p < kc; p++)
            for (int64_t c = 0; c < NR; c++)
                bp[p * NR + c] = c < cols ? src[p * s0 + c * s1] : 0.0;
    }
}

/* ---- micro-kernels: c[MR][NR] (row stride rs) = (first ? 0 : c) + ap-panel x bp-panel ----- */

static void micro_c(int64_t kc, const double *ap, const double *bp, double *c, int64_t rs,
                    int first) {
    double acc[MR][NR];
    for (int r = 0; r < MR; r++)
        for (int j = 0; j < NR; j++) acc[r][j] = first ? 0.0 : c[r * rs + j];
    for (int64_t p = 0; p < kc; p++, ap += MR, bp += NR)
        for (int r = 0; r < MR; r++)
            for (int j = 0; j < NR; j++) {
                double t = ap[r] * bp[j];
                acc[r][j] = acc[r][j] + t;
            }
    for (int r = 0; r < MR; r++)
        for (int j = 0; j < NR; j++) c[r * rs + j] = acc[r][j];
}

#if PYAD_HAVE_X86_FMA
__attribute__((target("avx2,fma")))
static void micro_fma(int64_t kc, const double *ap, const double *bp, double *c, int64_t rs,
                      int first) {
    __m256d acc[MR][2];
#pragma GCC unroll 6
    for (int r = 0; r < MR; r++) {
        acc[r][0] = first ? _mm256_setzero_pd() : _mm256_loadu_pd(c + r * rs);
        acc[r][1] = first ? _mm256_setzero_pd() : _mm256_loadu_pd(c + r * rs + 4);
    }
#pragma GCC unroll 2
    for (int64_t p = 0; p < kc; p++, ap += MR, bp += NR) {
        __m256d b0 = _mm256_loadu_pd(bp), b1 = _mm256_loadu_pd(bp + 4);
#pragma GCC unroll 6
        for (int r = 0; r < MR; r++) {
            __m256d x = _mm256_broadcast_sd(ap + r);
            acc[r][0] = _mm256_fmadd_pd(x, b0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_pd(x, b1, acc[r][1]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < MR; r++) {
        _mm256_storeu_pd(c + r * rs, acc[r][0]);
        _mm256_storeu_pd(c + r * rs + 4, acc[r][1]);
    }
}
#endif

typedef void micro_fn(int64_t, const double *, const double *, double *, int64_t, int);

/* ---- matrix-vector: y[i * ys] = sum_p m[i][p] * x[p * xs], in the order of p ------------- */

static void gemv_c(const pyad_mat *m, const double *x, int64_t xs, double *y, int64_t ys) {
    for (int64_t i = 0; i < m->shape[0]; i++) {
        double acc = 0.0;
        for (int64_t p = 0; p < m->shape[1]; p++) {
            double t = EL(m, i, p) * x[p * xs];
            acc = acc + t;
        }
        y[i * ys] = acc;
    }
}

#if PYAD_HAVE_X86_FMA
/* Four rows at a time, one per lane: lane q of acc runs the chain of row i + q. Columns of m
 * that are contiguous load directly; rows that are contiguous are read 4 x 4 and transposed
 * in registers; other layouts gather. The remaining rows are scalar chains (fma: the same
 * rounding as a lane). */
__attribute__((target("avx2,fma")))
static void gemv_fma(const pyad_mat *m, const double *x, int64_t xs, double *y, int64_t ys) {
    int64_t rows = m->shape[0], k = m->shape[1], s0 = m->strides[0], s1 = m->strides[1];
    int64_t i = 0;
    for (; i + 8 <= rows; i += 8) {
        __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
        const double *a = m->data + i * s0;
        int64_t p = 0;
        if (s1 == 1 && s0 != 1) {
            for (; p + 4 <= k; p += 4) {
                __m256d xv[4];
                for (int q = 0; q < 4; q++) xv[q] = _mm256_set1_pd(x[(p + q) * xs]);
                for (int g = 0; g < 2; g++) {
                    const double *r0 = a + (4 * g) * s0 + p;
                    __m256d v0 = _mm256_loadu_pd(r0), v1 = _mm256_loadu_pd(r0 + s0);
                    __m256d v2 = _mm256_loadu_pd(r0 + 2 * s0), v3 = _mm256_loadu_pd(r0 + 3 * s0);
                    __m256d t0 = _mm256_unpacklo_pd(v0, v1), t1 = _mm256_unpackhi_pd(v0, v1);
                    __m256d t2 = _mm256_unpacklo_pd(v2, v3), t3 = _mm256_unpackhi_pd(v2, v3);
                    __m256d c0 = _mm256_permute2f128_pd(t0, t2, 0x20);
                    __m256d c1 = _mm256_permute2f128_pd(t1, t3, 0x20);
                    __m256d c2 = _mm256_permute2f128_pd(t0, t2, 0x31);
                    __m256d c3 = _mm256_permute2f128_pd(t1, t3, 0x31);
                    __m256d acc = g ? acc1 : acc0;
                    acc = _mm256_fmadd_pd(c0, xv[0], acc);
                    acc = _mm256_fmadd_pd(c1, xv[1], acc);
                    acc = _mm256_fmadd_pd(c2, xv[2], acc);
                    acc = _mm256_fmadd_pd(c3, xv[3], acc);
                    if (g) acc1 = acc; else acc0 = acc;
                }
            }
        }
        for (; p < k; p++) {
            const double *col = a + p * s1;
            __m256d xv = _mm256_set1_pd(x[p * xs]), c0, c1;
            if (s0 == 1) {
                c0 = _mm256_loadu_pd(col);
                c1 = _mm256_loadu_pd(col + 4);
            } else {
                c0 = _mm256_set_pd(col[3 * s0], col[2 * s0], col[s0], col[0]);
                c1 = _mm256_set_pd(col[7 * s0], col[6 * s0], col[5 * s0], col[4 * s0]);
            }
            acc0 = _mm256_fmadd_pd(c0, xv, acc0);
            acc1 = _mm256_fmadd_pd(c1, xv, acc1);
        }
        double out[8];
        _mm256_storeu_pd(out, acc0);
        _mm256_storeu_pd(out + 4, acc1);
        for (int q = 0; q < 8; q++) y[(i + q) * ys] = out[q];
    }
    for (; i < rows; i++) {
        double acc = 0.0;
        for (int64_t p = 0; p < k; p++) acc = __builtin_fma(EL(m, i, p), x[p * xs], acc);
        y[i * ys] = acc;
    }
}
#endif

/* ---- the blocked product ----------------------------------------------------------------- */

/* c = a @ b, packed and blocked; m, n, k > 0. */
static int32_t gemm(const pyad_mat *a, const pyad_mat *b, pyad_mat *c, micro_fn *micro) {
    int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
    int64_t kc_max = min64(k, KC);
    int64_t a_size = round_up(min64(m, MC), MR) * kc_max;
    int64_t b_size = round_up(min64(n, NC), NR) * kc_max;
    double small[SMALL];
    double *buf = small;
    size_t cap = (size_t)(a_size + b_size) * sizeof(double);
    if (a_size + b_size > SMALL && !(buf = pyad_pool_take(cap, &cap)) && !(buf = malloc(cap)))
        return PYAD_ERR_MEMORY;
    double *ap = buf, *bp = buf + a_size;
    double tile[MR * NR];
    int64_t cs0 = c->strides[0], cs1 = c->strides[1];
    for (int64_t jc = 0; jc < n; jc += NC) {
        int64_t nc = min64(NC, n - jc);
        for (int64_t pc = 0; pc < k; pc += KC) {
            int64_t kc = min64(KC, k - pc);
            int first = pc == 0;
            pack_b(b, pc, jc, kc, nc, bp);
            for (int64_t ic = 0; ic < m; ic += MC) {
                int64_t mc = min64(MC, m - ic);
                pack_a(a, ic, pc, mc, kc, ap);
                for (int64_t jr = 0; jr < nc; jr += NR) {
                    int64_t cols = min64(NR, nc - jr);
                    for (int64_t ir = 0; ir < mc; ir += MR) {
                        int64_t rows = min64(MR, mc - ir);
                        double *ct = c->data + (ic + ir) * cs0 + (jc + jr) * cs1;
                        if (rows == MR && cols == NR && cs1 == 1) {
                            micro(kc, ap + ir * kc, bp + jr * kc, ct, cs0, first);
                            continue;
                        }
                        for (int64_t r = 0; r < rows && !first; r++)
                            for (int64_t j = 0; j < cols; j++) tile[r * NR + j] = ct[r * cs0 + j * cs1];
                        micro(kc, ap + ir * kc, bp + jr * kc, tile, NR, first);
                        for (int64_t r = 0; r < rows; r++)
                            for (int64_t j = 0; j < cols; j++) ct[r * cs0 + j * cs1] = tile[r * NR + j];
                    }
                }
            }
        }
    }
    if (buf != small) pyad_pool_give(buf, cap);
    return PYAD_OK;
}

static int use_fma(void) {
#if PYAD_HAVE_X86_FMA
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

static void gemv(const pyad_mat *m, const double *x, int64_t xs, double *y, int64_t ys,
                 int fma) {
#if PYAD_HAVE_X86_FMA
    if (fma) {
        gemv_fma(m, x, xs, y, ys);
        return;
    }
#endif
    (void)fma;
    gemv_c(m, x, xs, y, ys);
}

int32_t pyad_matmul(const pyad_mat *a, const pyad_mat *b, pyad_mat *c) {
    int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
    int fma = use_fma();
    if (m == 0 || n == 0) return PYAD_OK;
    if (k == 0) {
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) EL(c, i, j) = 0.0;
        return PYAD_OK;
    }
    if (n == 1) {   /* c[:, 0] = a @ b[:, 0] */
        gemv(a, b->data, b->strides[0], c->data, c->strides[0], fma);
        return PYAD_OK;
    }
    if (m == 1) {   /* c[0, :] = b^T @ a[0, :] */
        pyad_mat bt = {b->data, {n, k}, {b->strides[1], b->strides[0]}};
        gemv(&bt, a->data, a->strides[1], c->data, c->strides[1], fma);
        return PYAD_OK;
    }
#if PYAD_HAVE_X86_FMA
    if (fma) return gemm(a, b, c, micro_fma);
#endif
    return gemm(a, b, c, micro_c);
}
