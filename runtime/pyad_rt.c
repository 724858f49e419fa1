/* pyad_rt.c: implementation of the pyad C runtime (see pyad_rt.h for the contract). */
#include "pyad_rt.h"
#include "pyad_pool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pyad_ctx_init(pyad_ctx *ctx) { memset(ctx, 0, sizeof *ctx); }

int32_t pyad_set_error(pyad_ctx *ctx, int32_t kind, int32_t line, const char *msg) {
    if (ctx->err_kind == PYAD_OK) {
        ctx->err_kind = kind;
        ctx->err_line = line;
        ctx->err_msg = msg;
    }
    return kind;
}

int32_t pyad_tape_grow(pyad_ctx *ctx, size_t need) {
    size_t used = (size_t)(ctx->tape_top - ctx->tape_base);
    size_t cap = (size_t)(ctx->tape_end - ctx->tape_base);
    size_t want = cap < 4096 ? 4096 : cap;
    char *p;
    if (used + need < used) /* overflow */
        return pyad_set_error(ctx, PYAD_ERR_MEMORY, 0, "AD tape size overflow");
    while (want < used + need) {
        if (want > SIZE_MAX / 2)
            return pyad_set_error(ctx, PYAD_ERR_MEMORY, 0, "AD tape size overflow");
        want *= 2;
    }
    if (want <= cap) return PYAD_OK;
    if (!ctx->tape_base) { /* the thread's last tape, if it is large enough */
        size_t got = 0;
        p = pyad_pool_take_tape(&got);
        if (p && got >= used + need) {
            ctx->tape_base = ctx->tape_top = p;
            ctx->tape_end = p + got;
            return PYAD_OK;
        }
        pyad_pool_give_tape(p, got);
    }
    p = realloc(ctx->tape_base, want);
    if (!p) return pyad_set_error(ctx, PYAD_ERR_MEMORY, 0, "out of memory growing the AD tape");
    ctx->tape_base = p;
    ctx->tape_top = p + used;
    ctx->tape_end = p + want;
    return PYAD_OK;
}

void pyad_tape_cut(pyad_ctx *ctx, int64_t offset) {
    size_t used = (size_t)(ctx->tape_top - ctx->tape_base);
    if (used > ctx->tape_peak) ctx->tape_peak = used;
    ctx->tape_top = ctx->tape_base + offset;
}

int32_t pyad_tape_copy_from_pullback(pyad_ctx *ctx, const void *pb) {
    const pyad_pullback_header *h = pb;
    size_t used = (size_t)(h->tape_top - h->tape_base);
    ctx->tape_top = ctx->tape_base;  /* an empty tape of ctx's own, then the copy */
    if (used && pyad_tape_grow(ctx, used) != PYAD_OK) return ctx->err_kind;
    if (used) memcpy(ctx->tape_base, h->tape_base, used);
    ctx->tape_top = ctx->tape_base + used;
    ctx->tape_peak = h->tape_peak;
    return PYAD_OK;
}

void pyad_tape_release(pyad_ctx *ctx) {
    pyad_pool_give_tape(ctx->tape_base, (size_t)(ctx->tape_end - ctx->tape_base));
    ctx->tape_base = ctx->tape_top = ctx->tape_end = NULL;
}

int32_t pyad_index_error(pyad_ctx *ctx, int32_t line, int64_t index, int64_t axis,
                         int64_t size, const char *where) {
    static _Thread_local char buf[256];
    if (ctx->err_kind != PYAD_OK) return ctx->err_kind;
    snprintf(buf, sizeof buf, "index %lld is out of bounds for axis %lld with size %lld%s",
             (long long)index, (long long)axis, (long long)size, where ? where : "");
    return pyad_set_error(ctx, PYAD_ERR_INDEX, line, buf);
}

/* An arena block: this header, then the array's bytes. */
typedef struct arena_block {
    struct arena_block *next;
    size_t bytes;   /* the array's bytes */
    size_t cap;     /* the block's, header included (pyad_pool_give) */
    int32_t shadow;
    int32_t pad_;
} arena_block;

void *pyad_alloc(pyad_ctx *ctx, size_t bytes, int32_t kind) {
    arena_block *blk;
    size_t cap;
    int zero = kind != PYAD_ALLOC_WRITTEN;
    if (bytes > SIZE_MAX - sizeof(arena_block)) return NULL;
    cap = sizeof(arena_block) + bytes;
    blk = pyad_pool_take(cap, &cap);
    if (blk) {
        if (zero) memset(blk + 1, 0, bytes);
    } else if (!(blk = zero ? calloc(1, cap) : malloc(cap))) {
        return NULL;
    }
    blk->cap = cap;
    blk->next = ctx->arena;
    blk->bytes = bytes;
    blk->shadow = kind == PYAD_ALLOC_SHADOW;
    ctx->arena = blk;
    return blk + 1;
}

static void arena_free(void *arena) {
    arena_block *blk = arena;
    while (blk) {
        arena_block *next = blk->next;
        pyad_pool_give(blk, blk->cap);
        blk = next;
    }
}

void pyad_ctx_release(pyad_ctx *ctx) {
    pyad_tape_release(ctx);
    arena_free(ctx->arena);
    ctx->arena = NULL;
}

void pyad_ctx_reset(pyad_ctx *ctx) {
    arena_free(ctx->arena);
    ctx->arena = NULL;
    ctx->tape_top = ctx->tape_base;
    ctx->tape_peak = 0;
    ctx->err_kind = PYAD_OK;
    ctx->err_line = 0;
    ctx->err_msg = NULL;
}

void pyad_pullback_zero_shadows(void *pb) {
    arena_block *blk = ((pyad_pullback_header *)pb)->arena;
    for (; blk; blk = blk->next)
        if (blk->shadow) memset(blk + 1, 0, blk->bytes);
}

void pyad_tape_move_to_pullback(pyad_ctx *ctx, void *pb) {
    pyad_pullback_header *h = pb;
    h->tape_base = ctx->tape_base;
    h->tape_top = ctx->tape_top;
    h->tape_end = ctx->tape_end;
    h->arena = ctx->arena;
    h->tape_peak = ctx->tape_peak;
    ctx->tape_base = ctx->tape_top = ctx->tape_end = NULL;
    ctx->arena = NULL;
}

size_t pyad_pullback_tape_bytes(const void *pb) {
    const pyad_pullback_header *h = pb;
    size_t used = (size_t)(h->tape_top - h->tape_base);
    return used > h->tape_peak ? used : h->tape_peak;
}

void *pyad_pullback_alloc(size_t size) {
    return calloc(1, size < sizeof(pyad_pullback_header) ? sizeof(pyad_pullback_header) : size);
}

void pyad_pullback_free(void *pb) {
    if (pb) {
        pyad_pullback_header *h = pb;
        pyad_pool_give_tape(h->tape_base, (size_t)(h->tape_end - h->tape_base));
        arena_free(h->arena);
    }
    free(pb);
}

double pyad_digamma(double x) {
    const double pi = 3.14159265358979323846;
    double result = 0.0, f, series;
    if (x <= 0.0 && x == floor(x)) return NAN;
    if (x < 0.0) {
        result -= pi / tan(pi * x);
        x = 1.0 - x;
    }
    while (x < 10.0) {
        result -= 1.0 / x;
        x += 1.0;
    }
    f = 1.0 / (x * x);
    series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (
        1.0 / 132 - f * (691.0 / 32760 - f / 12.0))))));
    return result + log(x) - 0.5 / x - series;
}

int32_t pyad_rt_version(void) { return 7; }
