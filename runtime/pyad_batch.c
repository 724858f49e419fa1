/* pyad_batch.c: one call of a kernel per element of a batch, split over native threads
 * (pyad.vmap, `pyad compile --vmap`). See pyad_rt.h for the contract.
 *
 * Worker t of T runs the contiguous range [begin + t*n/T, begin + (t+1)*n/T) in order, with
 * one context of its own whose tape buffer is reused from element to element (its arena is
 * freed after each). Nothing is shared between workers but the read-only slots, the
 * disjoint destination bytes they write and one atomic: the first failing index, which tells
 * the workers whose remaining elements all come after it to stop. Every element before the
 * first failure has run, so the failure reported is the same whatever the thread count.
 */
#include "pyad_rt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct worker {
    pyad_entry_fn fn;
    int64_t lo, hi, worker;
    int32_t nparams, nouts;
    const pyad_batch_slot *params, *outs;
    int64_t *first_failure;     /* shared: the least failing index so far (INT64_MAX: none) */
    pyad_batch_error err;       /* this worker's first failure */
    pthread_t thread;
} worker;

static int64_t descriptor_words(const pyad_batch_slot *s, int32_t n) {
    int64_t w = 0;
    for (int32_t k = 0; k < n; k++)
        if (s[k].ndim) w += 1 + 2 * (int64_t)s[k].ndim;
    return w;
}

/* Copy the kernel's array result `d` (data, shape, strides in elements) to the C-contiguous
 * block `dst` of shape `want`; 0, or -1 when the shapes differ. */
static int copy_out(const int64_t *d, int32_t ndim, int32_t itemsize, const int64_t *want,
                    char *dst) {
    int64_t idx[8] = {0}, total = 1;
    const char *src = (const char *)(intptr_t)d[0];
    for (int32_t a = 0; a < ndim; a++) {
        if (d[1 + a] != want[a]) return -1;
        total *= want[a];
    }
    for (int64_t e = 0; e < total; e++) {
        int64_t off = 0;
        for (int32_t a = 0; a < ndim; a++) off += idx[a] * d[1 + ndim + a];
        memcpy(dst + e * itemsize, src + off * itemsize, (size_t)itemsize);
        for (int32_t a = ndim - 1; a >= 0; a--) {
            if (++idx[a] < want[a]) break;
            idx[a] = 0;
        }
    }
    return 0;
}

static void fail(worker *w, int64_t i, const pyad_ctx *ctx, const char *msg) {
    w->err.index = i;
    w->err.kind = ctx ? ctx->err_kind : PYAD_ERR_VALUE;
    w->err.line = ctx ? ctx->err_line : 0;
    snprintf(w->err.msg, sizeof w->err.msg, "%s", msg ? msg : "");
    int64_t seen = __atomic_load_n(w->first_failure, __ATOMIC_RELAXED);
    while (i < seen && !__atomic_compare_exchange_n(w->first_failure, &seen, i, 0,
                                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

static void *run_worker(void *arg) {
    worker *w = arg;
    int64_t words = descriptor_words(w->params, w->nparams) + descriptor_words(w->outs, w->nouts);
    void **ptrs = calloc((size_t)(w->nparams + w->nouts) + 1, sizeof(void *));
    int64_t *desc = calloc((size_t)words + 1, sizeof(int64_t));
    pyad_ctx ctx;
    pyad_ctx_init(&ctx);
    if (!ptrs || !desc) {
        ctx.err_kind = PYAD_ERR_MEMORY;
        fail(w, w->lo, &ctx, "out of memory starting a batch worker");
        free(ptrs);
        free(desc);
        return NULL;
    }
    /* each array slot gets a descriptor: the data pointer set per element, shape and strides
     * once; array results get one for the kernel to write */
    int64_t *d = desc;
    for (int32_t k = 0; k < w->nparams + w->nouts; k++) {
        const pyad_batch_slot *s = k < w->nparams ? &w->params[k] : &w->outs[k - w->nparams];
        if (!s->ndim) continue;
        if (k < w->nparams) memcpy(d + 1, s->dims, 2 * (size_t)s->ndim * sizeof(int64_t));
        ptrs[k] = d;
        d += 1 + 2 * s->ndim;
    }
    for (int64_t i = w->lo; i < w->hi; i++) {
        if (__atomic_load_n(w->first_failure, __ATOMIC_RELAXED) < i) break;
        for (int32_t k = 0; k < w->nparams + w->nouts; k++) {
            const pyad_batch_slot *s = k < w->nparams ? &w->params[k] : &w->outs[k - w->nparams];
            char *p = s->base + i * s->step + w->worker * s->wstep;
            if (!s->ndim) ptrs[k] = p;
            else if (k < w->nparams) ((int64_t *)ptrs[k])[0] = (int64_t)(intptr_t)p;
        }
        int32_t status = w->fn(&ctx, ptrs, ptrs + w->nparams);
        if (status != PYAD_OK) {
            fail(w, i, &ctx, ctx.err_msg);
            break;
        }
        for (int32_t k = 0; k < w->nouts; k++) {
            const pyad_batch_slot *s = &w->outs[k];
            const int64_t *got = ptrs[w->nparams + k];
            if (!s->ndim || (!s->base && !s->dims)) continue;  /* a scalar, or not wanted */
            if (!s->base) {  /* wanted: its shape */
                memcpy(s->dims, got + 1, (size_t)s->ndim * sizeof(int64_t));
                continue;
            }
            if (copy_out(got, s->ndim, s->itemsize, s->dims, s->base + i * s->step) != 0) {
                ctx.err_kind = PYAD_ERR_VALUE;
                ctx.err_line = 0;
                fail(w, i, &ctx, "the shape of result array differs from the first "
                                 "element's: a batched function must return results of one "
                                 "shape");
                status = PYAD_ERR_VALUE;
                break;
            }
        }
        pyad_ctx_reset(&ctx);
        if (status != PYAD_OK) break;
    }
    pyad_ctx_release(&ctx);
    free(ptrs);
    free(desc);
    return NULL;
}

int32_t pyad_batch_run(pyad_entry_fn fn, int64_t begin, int64_t end, int32_t nthreads,
                       int32_t nparams, const pyad_batch_slot *params, int32_t nouts,
                       const pyad_batch_slot *outs, pyad_batch_error *err) {
    int64_t n = end > begin ? end - begin : 0, first = INT64_MAX;
    int32_t t, T = nthreads < 1 ? 1 : nthreads;
    worker *ws;
    memset(err, 0, sizeof *err);
    err->index = -1;
    if (n == 0) return PYAD_OK;
    if (T > n) T = (int32_t)n;
    ws = calloc((size_t)T, sizeof *ws);
    if (!ws) {
        err->kind = PYAD_ERR_MEMORY;
        err->index = begin;
        snprintf(err->msg, sizeof err->msg, "out of memory starting a batch");
        return PYAD_ERR_MEMORY;
    }
    for (t = 0; t < T; t++) {
        worker *w = &ws[t];
        w->fn = fn;
        w->lo = begin + n * t / T;
        w->hi = begin + n * (t + 1) / T;
        w->worker = t;
        w->nparams = nparams;
        w->nouts = nouts;
        w->params = params;
        w->outs = outs;
        w->first_failure = &first;
        w->err.index = -1;
    }
    /* workers 1.. on threads of their own (run on this one when a thread cannot start) */
    for (t = 1; t < T; t++)
        if (pthread_create(&ws[t].thread, NULL, run_worker, &ws[t]) != 0) ws[t].worker = -1 - t;
    run_worker(&ws[0]);
    for (t = 1; t < T; t++) {
        if (ws[t].worker < 0) {
            ws[t].worker = -1 - ws[t].worker;
            run_worker(&ws[t]);
        } else {
            pthread_join(ws[t].thread, NULL);
        }
    }
    for (t = 0; t < T; t++)
        if (ws[t].err.kind != PYAD_OK && (err->kind == PYAD_OK || ws[t].err.index < err->index))
            *err = ws[t].err;
    free(ws);
    return err->kind;
}
