/* pyad_rt.h: the public contract of the pyad C runtime.
 *
 * The runtime holds what generated code cannot keep in registers: the per-call context
 * (error channel), pullback structs that carry saved values from a forward sweep to a
 * later backward sweep, and (later) the tape. There is no global state: everything goes
 * through an explicit pyad_ctx pointer that the caller owns (usually on its stack), except a
 * per-thread cache of released large buffers that the next call reuses (pyad_pool.c).
 * Allocation failure is reported as an error code, never by aborting.
 */
#ifndef PYAD_RT_H
#define PYAD_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PYAD_API __attribute__((visibility("default")))
#else
#define PYAD_API
#endif

/* Error kinds. Generated code returns a non-zero status after storing one of these
 * (and a static message) into its context. The Python wrapper maps them onto the
 * exception of the same name. Keep in sync with codegen/abi.py (ERROR_KINDS). */
enum pyad_error_kind {
    PYAD_OK = 0,
    PYAD_ERR_ZERO_DIVISION = 1,
    PYAD_ERR_VALUE = 2,
    PYAD_ERR_INDEX = 3,
    PYAD_ERR_MEMORY = 4,
    PYAD_ERR_RECURSION = 5,
    PYAD_ERR_OVERFLOW = 6,
    PYAD_ERR_RUNTIME = 7,
    PYAD_ERR_LINALG = 8,  /* numpy.linalg.LinAlgError: singular, not positive definite, ... */
    /* raised by the user's own `assert` and `raise` statements */
    PYAD_ERR_ASSERTION = 9,
    PYAD_ERR_TYPE = 10,
    PYAD_ERR_NOT_IMPLEMENTED = 11,
    PYAD_ERR_ARITHMETIC = 12,
    PYAD_ERR_FLOATING_POINT = 13,
    PYAD_ERR_LOOKUP = 14,
    PYAD_ERR_KEY = 15,
    /* a value-and-gradient kernel without strong zeros found a nan in a gradient: the
     * Python wrapper runs the one with them (pyad/ad/gradient.py); never in a C library */
    PYAD_ERR_STRONG_ZEROS = 16
};

/* The per-call context. Generated code reads and writes these fields directly, so the
 * layout is part of the ABI (codegen/abi.py declares the same struct). A context must be
 * zero-initialised before a call (pyad_ctx_init does that). */
typedef struct pyad_ctx {
    int32_t err_kind;     /* enum pyad_error_kind; PYAD_OK while no error happened */
    int32_t err_line;     /* source line of the failing statement, 0 if unknown */
    const char *err_msg;  /* static, NUL-terminated message; NULL while no error */
    char *tape_base;      /* the AD tape: a malloc'd buffer, NULL until the first push */
    char *tape_top;       /* next free byte; generated code pushes and pops inline */
    char *tape_end;       /* one past the end of the buffer */
    void *arena;          /* arrays the call allocated (pyad_alloc): a list, NULL if none */
    size_t tape_peak;     /* the most bytes the tape held before a pyad_tape_cut (0: none) */
} pyad_ctx;

/* Every pullback struct starts with this header: the tape and the arrays of the forward
 * sweep that made it, moved out of the context (pyad_tape_move_to_pullback), followed by
 * saved values. */
typedef struct pyad_pullback_header {
    char *tape_base;
    char *tape_top;
    char *tape_end;
    void *arena;
    size_t tape_peak;     /* ctx.tape_peak of the forward sweep */
} pyad_pullback_header;

/* Zero a context so it can be passed to a generated function. */
PYAD_API void pyad_ctx_init(pyad_ctx *ctx);

/* Record an error in ctx (first error wins). Returns kind, so generated code may
 * `return pyad_set_error(...)`. msg must outlive the context (a static string). */
PYAD_API int32_t pyad_set_error(pyad_ctx *ctx, int32_t kind, int32_t line, const char *msg);

/* Make room for `need` more bytes on ctx's tape (amortised doubling, at least 4 KiB).
 * Returns PYAD_OK, or records and returns PYAD_ERR_MEMORY leaving the tape as it was. */
PYAD_API int32_t pyad_tape_grow(pyad_ctx *ctx, size_t need);

/* Checkpointing (pyad/ad/checkpoint.py): note the bytes on ctx's tape in ctx->tape_peak
 * (a maximum), then drop everything above the first `offset` bytes (offset <= bytes held). */
PYAD_API void pyad_tape_cut(pyad_ctx *ctx, int64_t offset);

/* Give ctx a tape of its own holding a copy of pullback `pb`'s tape, so that a backward
 * sweep that pushes (re-runs a checkpointed segment) never overwrites what a later call of
 * the same pullback pops. Returns PYAD_OK, or records and returns PYAD_ERR_MEMORY. */
PYAD_API int32_t pyad_tape_copy_from_pullback(pyad_ctx *ctx, const void *pb);

/* Free ctx's tape (if any) and reset its pointers. */
PYAD_API void pyad_tape_release(pyad_ctx *ctx);

/* Allocate `bytes` bytes (16-byte aligned) for an array that lives until the call ends: the
 * block joins ctx's arena, freed by pyad_ctx_release or, once moved, with the pullback.
 * `kind` (enum pyad_alloc_kind): zeroed; a zeroed adjoint array
 * (pyad_pullback_zero_shadows zeroes it again); or not zeroed, for a kernel that writes
 * every element before anything reads it (a matrix product's result). NULL when out of
 * memory (the caller raises MemoryError). */
enum pyad_alloc_kind { PYAD_ALLOC_ZEROED = 0, PYAD_ALLOC_SHADOW = 1, PYAD_ALLOC_WRITTEN = 2 };
PYAD_API void *pyad_alloc(pyad_ctx *ctx, size_t bytes, int32_t kind);

/* Free ctx's tape and arena (after a call whose results have been copied out). */
PYAD_API void pyad_ctx_release(pyad_ctx *ctx);

/* Record an IndexError for `index` on `axis` of size `size` in NumPy's words, followed by
 * `where` (" (line N of file.py)", static). The message lives in a per-thread buffer until the
 * thread's next index error. Returns PYAD_ERR_INDEX. */
PYAD_API int32_t pyad_index_error(pyad_ctx *ctx, int32_t line, int64_t index, int64_t axis,
                                  int64_t size, const char *where);

/* Zero every shadow array of pullback `pb`: a backward sweep starts from zero adjoints. */
PYAD_API void pyad_pullback_zero_shadows(void *pb);

/* Move ctx's tape and arena into the header of pullback struct `pb`; ctx is left without
 * them. They are freed with the pullback (pyad_pullback_free). */
PYAD_API void pyad_tape_move_to_pullback(pyad_ctx *ctx, void *pb);

/* Bytes of tape held by pullback struct `pb` (what its forward sweep pushed), or, when
 * checkpointing cut the tape, the most it held (its tape_peak) if that is more. A backward
 * sweep never holds more: its re-runs push again what the cuts dropped, over fewer
 * checkpoints. */
PYAD_API size_t pyad_pullback_tape_bytes(const void *pb);

/* Allocate a zeroed pullback struct of `size` bytes, header included (smaller sizes are
 * rounded up to the header). Returns NULL on allocation failure. Release it with
 * pyad_pullback_free exactly once. */
PYAD_API void *pyad_pullback_alloc(size_t size);

/* Release a struct from pyad_pullback_alloc, and the tape and arena in its header. NULL is
 * ignored. */
PYAD_API void pyad_pullback_free(void *pb);

/* psi(x), the derivative of lgamma (libm has none). nan at the poles 0, -1, -2, ...
 * Same algorithm as pyad.ops.digamma: reflection for x < 0, recurrence up to x >= 10,
 * then the asymptotic series. */
PYAD_API double pyad_digamma(double x);

/* ---- Dense linear algebra (pyad_linalg.c): the kernels of the np.linalg rows of the op
 * table. A matrix operand is a strided descriptor with the layout of a generated 2-D array
 * value (strides in elements; a 1-D array is passed as an n x 1 matrix). Results are
 * written through descriptors of the right shape that the caller allocated. Each returns
 * PYAD_OK, PYAD_ERR_LINALG for the numerical failure named in its contract, or
 * PYAD_ERR_MEMORY when its scratch memory cannot be allocated; it records nothing in a
 * context (the caller raises the error of the user's line). Square shapes and matching
 * dimensions are preconditions (checked by the generated code). */
typedef struct pyad_mat {
    double *data;
    int64_t shape[2];
    int64_t strides[2];
} pyad_mat;

/* x (n x k) = a^-1 b by LU with partial pivoting; PYAD_ERR_LINALG when a pivot is exactly
 * zero (a singular matrix, as LAPACK's dgesv reports it). */
PYAD_API int32_t pyad_la_solve(const pyad_mat *a, const pyad_mat *b, pyad_mat *x);

/* x (n x n) = a^-1; PYAD_ERR_LINALG for a singular matrix. */
PYAD_API int32_t pyad_la_inv(const pyad_mat *a, pyad_mat *x);

/* *det = the determinant of a: the product of its LU pivots with the permutation's sign
 * (0 for a singular matrix, never an error). */
PYAD_API int32_t pyad_la_det(const pyad_mat *a, double *det);

/* sign_logabs[0] = the sign of det(a) (0 when singular), sign_logabs[1] = log|det(a)|
 * (-inf when singular), from the LU pivots, as numpy.linalg.slogdet. */
PYAD_API int32_t pyad_la_slogdet(const pyad_mat *a, double *sign_logabs);

/* l = the lower Cholesky factor of the symmetric matrix whose lower triangle is a's (the
 * upper triangle is not read; l's upper triangle is set to 0); PYAD_ERR_LINALG when a is
 * not positive definite (a pivot <= 0 or nan). */
PYAD_API int32_t pyad_la_cholesky(const pyad_mat *a, pyad_mat *l);

/* x (n x k) = t^-1 b for t lower (lower != 0) or upper triangular, by substitution; only
 * that triangle of t is read. No check: a zero diagonal gives inf/nan. */
PYAD_API int32_t pyad_la_trisolve(const pyad_mat *t, const pyad_mat *b, pyad_mat *x,
                                  int32_t lower);

/* The eigen-decomposition of the symmetric matrix whose lower triangle is a's, by the
 * cyclic Jacobi method: out ((n+1) x n) gets the eigenvalues, ascending, in row 0 and the
 * unit eigenvectors as the columns of rows 1..n, each signed so that its largest-magnitude
 * component (the first of equals) is positive. PYAD_ERR_LINALG when it does not converge
 * (nan or inf entries). */
PYAD_API int32_t pyad_la_eigh(const pyad_mat *a, pyad_mat *out);

/* out = the lower triangle of x with its diagonal halved (0 above): Phi in the adjoint of
 * the Cholesky factorization. */
PYAD_API int32_t pyad_la_tril_half(const pyad_mat *x, pyad_mat *out);

/* out = the lower triangle of x + x^T with x's own diagonal (0 above): the gradient with
 * respect to a matrix of which only the lower triangle is read, from a symmetric one. */
PYAD_API int32_t pyad_la_tril_fold(const pyad_mat *x, pyad_mat *out);

/* out[i][j] = x[i][j] / (w[j] - w[i]) for i != j (0 where w[i] == w[j]), out[i][i] =
 * wbar[i]; w and wbar are n x 1: the middle factor of the adjoint of eigh. */
PYAD_API int32_t pyad_la_eigh_mid(const pyad_mat *w, const pyad_mat *wbar,
                                  const pyad_mat *x, pyad_mat *out);

/* The singular value decomposition of the m x n matrix a (runtime/pyad_svd.c: one-sided
 * Jacobi), k = min(m, n): out ((1 + m + n) x k) gets the singular values, descending, in
 * row 0, the left singular vectors U (m x k) in rows 1..m and the right ones V (n x k, so
 * a = U diag(s) V^T) in rows m+1..m+n, each pair signed so that the largest-magnitude
 * component of V's column (the first of equals) is positive; the left vector of a zero
 * singular value completes U's columns to an orthonormal set. PYAD_ERR_LINALG when it
 * does not converge (nan or inf entries). */
PYAD_API int32_t pyad_la_svd(const pyad_mat *a, pyad_mat *out);

/* out (m x n, a's shape; a is not read otherwise) = the adjoint of svd at its packed
 * result p for the packed cotangent ct (p's shape): U J V^T + (I - U U^T) Ubar S^-1 V^T + U S^-1 Vbar^T (I - V V^T), J's off-
 * diagonal terms over s[j]^2 - s[i]^2 taken as 0 where the two are equal and 1 / s as 0
 * where s is 0 (see pyad/ir/linalg_rows.py). */
PYAD_API int32_t pyad_la_svd_back(const pyad_mat *p, const pyad_mat *ct, const pyad_mat *a,
                                  pyad_mat *out);

/* The QR factorization of the m x n matrix a (runtime/pyad_qr.c: Householder reflections as
 * LAPACK's dgeqrf and dorgqr, so with NumPy's signs), k = min(m, n): out ((m + k) x n) gets
 * the reduced Q (m x k, orthonormal columns) in rows 0..m-1, columns 0..k-1 (the columns
 * after them 0), and R (k x n, upper triangular) in rows m..m+k-1; a = Q R. Never fails
 * (a rank-deficient a gives a zero on R's diagonal). */
PYAD_API int32_t pyad_la_qr(const pyad_mat *a, pyad_mat *out);

/* out (m x n, a's shape) = the adjoint of qr at a, its packed result p, for the packed
 * cotangent ct (p's shape) (Liao et al. 2019): with a = [X | Y] (X m x k) and R = [U | V],
 * Xbar = (Qbar' + Q copyltu(U Ubar^T - Qbar'^T Q)) U^-T where Qbar' = Qbar + Y Vbar^T, and
 * Ybar = Q Vbar; copyltu(M) is the symmetric matrix of M's lower triangle. A zero on R's
 * diagonal gives inf or nan. */
PYAD_API int32_t pyad_la_qr_back(const pyad_mat *p, const pyad_mat *ct, const pyad_mat *a,
                                 pyad_mat *out);

/* c (m x n) = a (m x k) @ b (k x n), any strides (a 1-D operand is passed as an n x 1 or
 * 1 x n matrix). Every element is the sequential sum over p = 0..k-1 of a[i][p] * b[p][j]
 * from 0.0, one fused multiply-add per step where the CPU has AVX2+FMA (chosen at run time,
 * the same on every call), a multiply and an add elsewhere: the same inputs give the same
 * bits whatever the layouts. c must not overlap a or b. Returns PYAD_OK, or PYAD_ERR_MEMORY
 * when the packing buffers cannot be allocated (pyad_matmul.c). */
PYAD_API int32_t pyad_matmul(const pyad_mat *a, const pyad_mat *b, pyad_mat *c);

/* ---- Batches (pyad_batch.c): pyad.vmap and the `--vmap` entry points of a C library. ---- */

/* Free ctx's arena, empty its tape (keeping the buffer) and clear its error: ready for the
 * next call on the same thread. */
PYAD_API void pyad_ctx_reset(pyad_ctx *ctx);

/* The uniform entry of a generated kernel: args[k] points to parameter k's value (a double,
 * int64_t or a bool byte) or is an array descriptor pointer; outs[k] is passed on as the
 * kernel's out pointer k. */
typedef int32_t (*pyad_entry_fn)(pyad_ctx *ctx, void *const *args, void *const *outs);

/* Where a parameter or result of batch element i lives: at base + i*step + worker*wstep
 * (step 0: the same value for every element; wstep: a copy per worker, e.g. a gradient
 * accumulator). ndim 0: a scalar there. ndim > 0: an array; for a parameter its data starts
 * there and `dims` holds its shape[ndim] then strides[ndim] (in elements); for a result the
 * kernel's array is copied there as a C-contiguous block of shape dims[0..ndim) of items of
 * `itemsize` bytes (a different shape is a ValueError). An array result with a NULL base is
 * not copied: its shape is stored into `dims`, or nothing is done if `dims` is NULL too. */
typedef struct pyad_batch_slot {
    char *base;
    int64_t step;
    int64_t wstep;
    int32_t ndim;
    int32_t itemsize;
    int64_t *dims;
} pyad_batch_slot;

/* The first failing element of a batch: its index, error kind, line and message (copied). */
typedef struct pyad_batch_error {
    int64_t index;
    int32_t kind;
    int32_t line;
    char msg[512];
} pyad_batch_error;

/* Run fn for the elements begin..end-1 on up to `nthreads` threads (this one included), each
 * worker a contiguous range in order with its own context. Returns PYAD_OK, or the kind of
 * the failure of the least failing index (every element before it has run), described in
 * *err. Results of elements after a failure are unspecified. */
PYAD_API int32_t pyad_batch_run(pyad_entry_fn fn, int64_t begin, int64_t end,
                                int32_t nthreads, int32_t nparams,
                                const pyad_batch_slot *params, int32_t nouts,
                                const pyad_batch_slot *outs, pyad_batch_error *err);

/* Runtime ABI version; bumped when pyad_ctx or any signature above changes. */
PYAD_API int32_t pyad_rt_version(void);

#ifdef __cplusplus
}
#endif
#endif /* PYAD_RT_H */
