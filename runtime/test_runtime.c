/* test_runtime.c: C-level tests of the pyad runtime API (run by ctest, see CMakeLists.txt).
 * Uses its own CHECK macro rather than assert(), so it also checks in Release (NDEBUG) builds. */
#include "pyad_rt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                         \
        }                                                                       \
    } while (0)

static void test_ctx_init(void) {
    pyad_ctx ctx;
    memset(&ctx, 0xAB, sizeof ctx);
    pyad_ctx_init(&ctx);
    CHECK(ctx.err_kind == PYAD_OK);
    CHECK(ctx.err_line == 0);
    CHECK(ctx.err_msg == NULL);
    CHECK(ctx.tape_base == NULL && ctx.tape_top == NULL && ctx.tape_end == NULL);
    CHECK(ctx.arena == NULL);
    /* The layout is part of the ABI (codegen/abi.py: CTX_SIZE = 56 on 64-bit targets). */
    CHECK(sizeof(void *) != 8 || sizeof(pyad_ctx) == 56);
}

static void test_set_error_first_wins(void) {
    static const char first[] = "division by zero";
    static const char second[] = "index out of range";
    pyad_ctx ctx;
    pyad_ctx_init(&ctx);
    CHECK(pyad_set_error(&ctx, PYAD_ERR_ZERO_DIVISION, 12, first) == PYAD_ERR_ZERO_DIVISION);
    CHECK(ctx.err_kind == PYAD_ERR_ZERO_DIVISION);
    CHECK(ctx.err_line == 12);
    CHECK(ctx.err_msg == first);
    /* A second error returns its own kind but leaves the first one in place. */
    CHECK(pyad_set_error(&ctx, PYAD_ERR_INDEX, 40, second) == PYAD_ERR_INDEX);
    CHECK(ctx.err_kind == PYAD_ERR_ZERO_DIVISION);
    CHECK(ctx.err_line == 12);
    CHECK(ctx.err_msg == first);
    /* After re-initialisation the context accepts a new error. */
    pyad_ctx_init(&ctx);
    CHECK(pyad_set_error(&ctx, PYAD_ERR_VALUE, 3, second) == PYAD_ERR_VALUE);
    CHECK(ctx.err_kind == PYAD_ERR_VALUE && ctx.err_line == 3 && ctx.err_msg == second);
}

static void test_pullback_alloc(void) {
    /* Size 0: valid and unique. */
    void *a = pyad_pullback_alloc(0);
    void *b = pyad_pullback_alloc(0);
    CHECK(a != NULL);
    CHECK(b != NULL);
    CHECK(a != b);
    pyad_pullback_free(a);
    pyad_pullback_free(b);

    /* Size N: zeroed, and writable after the header (which the runtime owns). */
    for (size_t n = sizeof(pyad_pullback_header); n <= 4096; n *= 4) {
        unsigned char *p = pyad_pullback_alloc(n);
        CHECK(p != NULL);
        if (!p) continue;
        size_t nonzero = 0;
        for (size_t i = 0; i < n; ++i) nonzero += p[i] != 0;
        CHECK(nonzero == 0);
        memset(p + sizeof(pyad_pullback_header), 0xFF, n - sizeof(pyad_pullback_header));
        pyad_pullback_free(p);
    }

    /* A typed pullback struct, as generated code lays it out. */
    struct { pyad_pullback_header h; double saved[3]; int64_t idx; } *s = pyad_pullback_alloc(sizeof *s);
    CHECK(s != NULL);
    if (s) {
        CHECK(s->h.tape_base == NULL && s->saved[0] == 0.0 && s->saved[2] == 0.0 && s->idx == 0);
        s->saved[1] = 2.5;
        CHECK(s->saved[1] == 2.5);
    }
    pyad_pullback_free(s);

    pyad_pullback_free(NULL); /* must be a no-op */
}

static void test_tape(void) {
    pyad_ctx ctx;
    pyad_ctx_init(&ctx);
    for (int i = 0; i < 10000; ++i) {
        if (ctx.tape_end - ctx.tape_top < (ptrdiff_t)sizeof(double))
            CHECK(pyad_tape_grow(&ctx, sizeof(double)) == PYAD_OK);
        memcpy(ctx.tape_top, &(double){(double)i}, sizeof(double));
        ctx.tape_top += sizeof(double);
    }
    void *pb = pyad_pullback_alloc(sizeof(pyad_pullback_header));
    CHECK(pb != NULL);
    pyad_tape_move_to_pullback(&ctx, pb);
    CHECK(ctx.tape_base == NULL);
    CHECK(pyad_pullback_tape_bytes(pb) == 10000 * sizeof(double));
    double last;
    memcpy(&last, ((pyad_pullback_header *)pb)->tape_top - sizeof(double), sizeof last);
    CHECK(last == 9999.0);
    pyad_pullback_free(pb);
    CHECK(pyad_tape_grow(&ctx, (size_t)1 << 62) == PYAD_ERR_MEMORY);
    CHECK(ctx.err_kind == PYAD_ERR_MEMORY);
    pyad_tape_release(&ctx);
}

/* Large arena blocks and tapes of a finished call are reused by the thread's next call
 * (pyad_pool.c), zeroed again; small ones go back to malloc. */
static void test_buffers_are_reused(void) {
    enum { N = 100000 };
    pyad_ctx ctx;
    pyad_ctx_init(&ctx);
    unsigned char *a = pyad_alloc(&ctx, N, 0);
    CHECK(a != NULL);
    if (!a) return;
    memset(a, 0xFF, N);
    CHECK(pyad_tape_grow(&ctx, (size_t)1 << 20) == PYAD_OK);
    char *tape = ctx.tape_base;
    pyad_ctx_release(&ctx);
    CHECK(ctx.arena == NULL && ctx.tape_base == NULL);
    unsigned char *b = pyad_alloc(&ctx, N - 8, 1);
    CHECK(b == a);
    size_t nonzero = 0;
    for (size_t i = 0; b && i < N - 8; ++i) nonzero += b[i] != 0;
    CHECK(nonzero == 0);
    CHECK(pyad_tape_grow(&ctx, 8) == PYAD_OK);
    CHECK(ctx.tape_base == tape && ctx.tape_end - ctx.tape_base >= (ptrdiff_t)1 << 20);
    /* a block far smaller than the cached one does not take it */
    unsigned char *c = pyad_alloc(&ctx, N / 4, 0);
    CHECK(c != NULL && c != a);
    pyad_ctx_release(&ctx);
}

/* A row-major n x m matrix descriptor over `data`. */
static pyad_mat mat(double *data, int64_t n, int64_t m) {
    pyad_mat a = {data, {n, m}, {m, 1}};
    return a;
}

static void test_linalg(void) {
    double a[4] = {4.0, 1.0, 2.0, 3.0}, b[2] = {1.0, 2.0}, x[2], inv[4], l[4], e[6], d, sl[2];
    pyad_mat A = mat(a, 2, 2), B = mat(b, 2, 1), X = mat(x, 2, 1);
    pyad_mat At = {a, {2, 2}, {1, 2}};   /* the transpose, as a strided view */
    CHECK(pyad_la_solve(&A, &B, &X) == PYAD_OK);
    CHECK(fabs(x[0] - 0.1) < 1e-15 && fabs(x[1] - 0.6) < 1e-15);   /* 4x + y = 1, 2x + 3y = 2 */
    pyad_mat I = mat(inv, 2, 2);
    CHECK(pyad_la_inv(&At, &I) == PYAD_OK);
    CHECK(fabs(inv[0] - 0.3) < 1e-15 && fabs(inv[1] + 0.2) < 1e-15);
    CHECK(pyad_la_det(&A, &d) == PYAD_OK && fabs(d - 10.0) < 1e-14);
    CHECK(pyad_la_slogdet(&A, sl) == PYAD_OK && sl[0] == 1.0 && fabs(sl[1] - log(10.0)) < 1e-15);
    double s[4] = {4.0, 99.0, 2.0, 5.0};   /* the upper triangle is not read */
    pyad_mat S = mat(s, 2, 2), L = mat(l, 2, 2), E = mat(e, 3, 2);
    CHECK(pyad_la_cholesky(&S, &L) == PYAD_OK);
    CHECK(l[0] == 2.0 && l[1] == 0.0 && l[2] == 1.0 && l[3] == 2.0);
    CHECK(pyad_la_eigh(&S, &E) == PYAD_OK);   /* [[4, 2], [2, 5]]: (9 -+ sqrt(17)) / 2 */
    CHECK(fabs(e[0] - (9.0 - sqrt(17.0)) / 2) < 1e-14 && fabs(e[1] - (9.0 + sqrt(17.0)) / 2) < 1e-14);
    double z[4] = {1.0, 2.0, 2.0, 4.0};
    pyad_mat Z = mat(z, 2, 2);
    CHECK(pyad_la_solve(&Z, &B, &X) == PYAD_ERR_LINALG);
    CHECK(pyad_la_inv(&Z, &I) == PYAD_ERR_LINALG);
    CHECK(pyad_la_cholesky(&Z, &L) == PYAD_ERR_LINALG);
    CHECK(pyad_la_slogdet(&Z, sl) == PYAD_OK && sl[0] == 0.0 && isinf(sl[1]) && sl[1] < 0);
}

static void test_version(void) {
    CHECK(pyad_rt_version() >= 1);
}

int main(void) {
    test_ctx_init();
    test_set_error_first_wins();
    test_pullback_alloc();
    test_tape();
    test_buffers_are_reused();
    test_linalg();
    test_version();
    if (failures) {
        fprintf(stderr, "test_runtime: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_runtime: all checks passed (runtime version %d)\n", (int)pyad_rt_version());
    return 0;
}
