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
 * On CPUs with AVX-512F (gemm512) the tiles are 8 x 16 (16 zmm accumulators, k blocks of
 * 512): A is read in place when one of its strides is 1 (only the broadcast operand), B when
 * its rows are contiguous and it is small, and edge tiles use masked loads and stores instead
 * of padding and a copy; the same chains, so the same bits as the AVX2 path.
 *
 * The SIMD code is compiled for AVX2+FMA and AVX-512F+FMA through function attributes and
 * chosen at run time (__builtin_cpu_supports), so the library stays built for the baseline
 * ISA and self-contained; other compilers and CPUs get the portable C path. */
#include "pyad_rt.h"
#include "pyad_pool.h"

#include <stdlib.h>
#include <stdint.h>
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

/* ap[panel][p][r] = a[i0 + panel*mr + r][p0 + p] for mc rows and kc columns (0 past row mc). */
static void pack_a(const pyad_mat *a, int64_t i0, int64_t p0, int64_t mc, int64_t kc,
                   int64_t mr, double *ap) {
    int64_t s0 = a->strides[0], s1 = a->strides[1];
    for (int64_t ir = 0; ir < mc; ir += mr, ap += mr * kc) {
        int64_t rows = min64(mr, mc - ir);
        for (int64_t r = 0; r < mr; r++) {
            if (r >= rows) {
                for (int64_t p = 0; p < kc; p++) ap[p * mr + r] = 0.0;
                continue;
            }
            const double *src = a->data + (i0 + ir + r) * s0 + p0 * s1;
            for (int64_t p = 0; p < kc; p++) ap[p * mr + r] = src[p * s1];
        }
    }
}

/* bp[panel][p][c] = b[p0 + p][j0 + panel*nr + c] for kc rows and nc columns (0 past nc). */
static void pack_b(const pyad_mat *b, int64_t p0, int64_t j0, int64_t kc, int64_t nc,
                   int64_t nr, double *bp) {
    int64_t s0 = b->strides[0], s1 = b->strides[1];
    for (int64_t jr = 0; jr < nc; jr += nr, bp += nr * kc) {
        int64_t cols = min64(nr, nc - jr);
        const double *src = b->data + p0 * s0 + (j0 + jr) * s1;
        if (cols == nr && s1 == 1) {
            for (int64_t p = 0; p < kc; p++) memcpy(bp + p * nr, src + p * s0, nr * sizeof(double));
            continue;
        }
        for (int64_t p = 0; p < kc; p++)
            for (int64_t c = 0; c < nr; c++)
                bp[p * nr + c] = c < cols ? src[p * s0 + c * s1] : 0.0;
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
    /* contiguous columns (A^T v of a row-major A): sixteen rows at a time, four chains of
     * fma in flight instead of two (each chain waits for its previous fma) */
    for (; s0 == 1 && i + 16 <= rows; i += 16) {
        __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
        __m256d acc2 = _mm256_setzero_pd(), acc3 = _mm256_setzero_pd();
        const double *a = m->data + i;
        for (int64_t p = 0; p < k; p++) {
            const double *col = a + p * s1;
            __m256d xv = _mm256_set1_pd(x[p * xs]);
            acc0 = _mm256_fmadd_pd(_mm256_loadu_pd(col), xv, acc0);
            acc1 = _mm256_fmadd_pd(_mm256_loadu_pd(col + 4), xv, acc1);
            acc2 = _mm256_fmadd_pd(_mm256_loadu_pd(col + 8), xv, acc2);
            acc3 = _mm256_fmadd_pd(_mm256_loadu_pd(col + 12), xv, acc3);
        }
        double out[16];
        _mm256_storeu_pd(out, acc0);
        _mm256_storeu_pd(out + 4, acc1);
        _mm256_storeu_pd(out + 8, acc2);
        _mm256_storeu_pd(out + 12, acc3);
        for (int q = 0; q < 16; q++) y[(i + q) * ys] = out[q];
    }
    for (; i + 8 <= rows; i += 8) {
        __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
        const double *a = m->data + i * s0;
        int64_t p = 0;
        if (s1 == 1 && s0 != 1) {
            /* the loops below are unrolled (pragmas): at -O2 GCC kept xv in memory and
             * switched between acc0 and acc1 by a branch, half the speed */
            for (; p + 4 <= k; p += 4) {
                __m256d xv[4];
                _Pragma("GCC unroll 4") for (int q = 0; q < 4; q++)
                    xv[q] = _mm256_set1_pd(x[(p + q) * xs]);
                _Pragma("GCC unroll 2") for (int g = 0; g < 2; g++) {
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

/* ---- AVX-512F: 8 x 16 tiles of zmm accumulators ----------------------------------------- */

#if PYAD_HAVE_X86_FMA
enum {
    MR5 = 8,            /* rows of an AVX-512 micro-tile (8 x 2 zmm accumulators) */
    NR5 = 16,           /* columns of an AVX-512 micro-tile */
    KC5 = 512,          /* rows of B in a block (fewer passes over C; measured best 256..768) */
    MC5 = 96,           /* rows of A in a packed block */
    NC5 = 2048,         /* columns of B in a packed block (8 MiB) */
    B_DIRECT = 65536    /* B (rows contiguous) is read in place up to this many doubles */
};

/* c[r][0..cols) (row stride rs, columns contiguous) = (first ? 0 : c) + sum over p < kc of
 * a[r * ars + p * aps] * b[p * bps + 0..cols), for r < ROWS: lane j of acc[r][h] is the chain
 * of c[r][8h + j], one FMA per p in the order of p. W = 1 when cols <= 8 (acc[r][1] unused);
 * MASK: the tile has fewer than 16 columns, loads and stores of b and c are masked to them
 * (m0 for columns 0..7, m1 for 8..15; masked-off lanes read nothing and are never stored),
 * so edges need neither padding nor a copy. */
#define K512_BODY(ROWS, W, ARS, APS, MASK)                                                  \
    __m512d acc[MR5][2];                                                                    \
    _Pragma("GCC unroll 8") for (int r = 0; r < ROWS; r++) {                               \
        acc[r][0] = first ? _mm512_setzero_pd()                                             \
                          : MASK ? _mm512_maskz_loadu_pd(m0, c + r * rs)                    \
                                 : _mm512_loadu_pd(c + r * rs);                             \
        if (W == 2)                                                                         \
            acc[r][1] = first ? _mm512_setzero_pd()                                         \
                              : MASK ? _mm512_maskz_loadu_pd(m1, c + r * rs + 8)            \
                                     : _mm512_loadu_pd(c + r * rs + 8);                     \
    }                                                                                       \
    for (int64_t p = 0; p < kc; p++, a += (APS), b += bps) {                                \
        __m512d b0 = MASK ? _mm512_maskz_loadu_pd(m0, b) : _mm512_loadu_pd(b);              \
        __m512d b1 = _mm512_setzero_pd();                                                   \
        if (W == 2) b1 = MASK ? _mm512_maskz_loadu_pd(m1, b + 8) : _mm512_loadu_pd(b + 8);  \
        _Pragma("GCC unroll 8") for (int r = 0; r < ROWS; r++) {                           \
            __m512d x = _mm512_set1_pd(a[r * (ARS)]);                                       \
            acc[r][0] = _mm512_fmadd_pd(x, b0, acc[r][0]);                                  \
            if (W == 2) acc[r][1] = _mm512_fmadd_pd(x, b1, acc[r][1]);                      \
        }                                                                                   \
    }                                                                                       \
    _Pragma("GCC unroll 8") for (int r = 0; r < ROWS; r++) {                               \
        if (MASK) _mm512_mask_storeu_pd(c + r * rs, m0, acc[r][0]);                         \
        else _mm512_storeu_pd(c + r * rs, acc[r][0]);                                       \
        if (W == 2) {                                                                       \
            if (MASK) _mm512_mask_storeu_pd(c + r * rs + 8, m1, acc[r][1]);                 \
            else _mm512_storeu_pd(c + r * rs + 8, acc[r][1]);                               \
        }                                                                                   \
    }

typedef void k512_fn(int64_t kc, const double *a, int64_t ars, int64_t aps, const double *b,
                     int64_t bps, double *c, int64_t rs, __mmask8 m0, __mmask8 m1, int first);

#define K512_DEF(NAME, ROWS, W, ARS, APS, MASK)                                             \
    __attribute__((target("avx512f,fma"))) static void NAME(                                \
        int64_t kc, const double *a, int64_t ars, int64_t aps, const double *b,             \
        int64_t bps, double *c, int64_t rs, __mmask8 m0, __mmask8 m1, int first) {          \
        (void)ars; (void)aps; (void)m0; (void)m1;                                           \
        K512_BODY(ROWS, W, ARS, APS, MASK)                                                  \
    }
/* full tiles: A packed (ars = 1, aps = MR5: constant offsets) or read in place */
K512_DEF(k512_packed, MR5, 2, 1, MR5, 0)
K512_DEF(k512_strided, MR5, 2, ars, aps, 0)
/* edge tiles (fewer rows or columns), any strides of A: k512_edge[rows][cols > 8] */
#define K512_EDGE(R) \
    K512_DEF(k512_e##R##_1, R, 1, ars, aps, 1) K512_DEF(k512_e##R##_2, R, 2, ars, aps, 1)
K512_EDGE(1) K512_EDGE(2) K512_EDGE(3) K512_EDGE(4)
K512_EDGE(5) K512_EDGE(6) K512_EDGE(7) K512_EDGE(8)
static k512_fn *const k512_edge[MR5 + 1][2] = {
    {0, 0}, {k512_e1_1, k512_e1_2}, {k512_e2_1, k512_e2_2}, {k512_e3_1, k512_e3_2},
    {k512_e4_1, k512_e4_2}, {k512_e5_1, k512_e5_2}, {k512_e6_1, k512_e6_2},
    {k512_e7_1, k512_e7_2}, {k512_e8_1, k512_e8_2}};


/* c = a @ b with AVX-512F tiles; m, n, k > 0 (the blocking of gemm with MR5 x NR5 tiles).
 * A is read in place when one of its strides is 1 (the micro-kernel broadcasts its elements:
 * 8 row streams, or one when A is column-major), else packed. B is read in place when its
 * rows are contiguous and it fits in L2 (k * n <= B_DIRECT doubles); else packed into
 * NR5-column panels (a large B read in place costs a TLB miss per row of a micro-panel). */
static int32_t gemm512(const pyad_mat *a, const pyad_mat *b, pyad_mat *c) {
    int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
    int64_t as0 = a->strides[0], as1 = a->strides[1], bs0 = b->strides[0], bs1 = b->strides[1];
    int64_t cs0 = c->strides[0], cs1 = c->strides[1];
    int direct_a = as0 == 1 || as1 == 1;
    int direct_b = bs1 == 1 && k * n <= B_DIRECT;
    int64_t kc_max = min64(k, KC5);
    int64_t a_size = direct_a ? 0 : round_up(min64(m, MC5), MR5) * kc_max;
    int64_t b_size = direct_b ? 0 : round_up(min64(n, NC5), NR5) * kc_max;
    double small[SMALL] __attribute__((aligned(64)));
    double *buf = small, *mem = NULL;
    size_t cap = (size_t)(a_size + b_size + 8) * sizeof(double);   /* + 64 bytes to align */
    if (a_size + b_size > SMALL) {
        if (!(mem = pyad_pool_take(cap, &cap)) && !(mem = malloc(cap))) return PYAD_ERR_MEMORY;
        buf = (double *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    }
    double *ap = buf, *bp = buf + a_size;   /* a_size is a multiple of 8: bp is aligned too */
    double tile[MR5 * NR5] __attribute__((aligned(64)));
    for (int64_t jc = 0; jc < n; jc += NC5) {
        int64_t nc = min64(NC5, n - jc);
        for (int64_t pc = 0; pc < k; pc += KC5) {
            int64_t kc = min64(KC5, k - pc);
            int first = pc == 0;
            if (!direct_b) pack_b(b, pc, jc, kc, nc, NR5, bp);
            for (int64_t ic = 0; ic < m; ic += MC5) {
                int64_t mc = min64(MC5, m - ic);
                if (!direct_a) pack_a(a, ic, pc, mc, kc, MR5, ap);
                for (int64_t jr = 0; jr < nc; jr += NR5) {
                    int64_t cols = min64(NR5, nc - jr);
                    int w = cols > 8;
                    __mmask8 m0 = cols >= 8 ? 0xff : (__mmask8)((1u << cols) - 1);
                    __mmask8 m1 = cols >= 16 ? 0xff : w ? (__mmask8)((1u << (cols - 8)) - 1) : 0;
                    const double *bt = direct_b ? b->data + pc * bs0 + jc + jr : bp + jr * kc;
                    int64_t bps = direct_b ? bs0 : NR5;
                    for (int64_t ir = 0; ir < mc; ir += MR5) {
                        int64_t rows = min64(MR5, mc - ir), ars = 1, aps = MR5;
                        const double *at = ap + ir * kc;
                        k512_fn *fn = k512_edge[rows][w];
                        if (direct_a) {
                            at = a->data + (ic + ir) * as0 + pc * as1, ars = as0, aps = as1;
                            if (rows == MR5 && cols == NR5) fn = k512_strided;
                        } else if (rows == MR5 && cols == NR5) {
                            fn = k512_packed;
                        }
                        double *ct = c->data + (ic + ir) * cs0 + (jc + jr) * cs1;
                        if (cs1 == 1) {
                            fn(kc, at, ars, aps, bt, bps, ct, cs0, m0, m1, first);
                            continue;
                        }
                        for (int64_t r = 0; r < rows && !first; r++)
                            for (int64_t j = 0; j < cols; j++) tile[r * NR5 + j] = ct[r * cs0 + j * cs1];
                        fn(kc, at, ars, aps, bt, bps, tile, NR5, m0, m1, first);
                        for (int64_t r = 0; r < rows; r++)
                            for (int64_t j = 0; j < cols; j++) ct[r * cs0 + j * cs1] = tile[r * NR5 + j];
                    }
                }
            }
        }
    }
    if (mem) pyad_pool_give(mem, cap);
    return PYAD_OK;
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
            pack_b(b, pc, jc, kc, nc, NR, bp);
            for (int64_t ic = 0; ic < m; ic += MC) {
                int64_t mc = min64(MC, m - ic);
                pack_a(a, ic, pc, mc, kc, MR, ap);
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
    if (fma && __builtin_cpu_supports("avx512f")) return gemm512(a, b, c);
    if (fma) return gemm(a, b, c, micro_fma);
#endif
    return gemm(a, b, c, micro_c);
}
