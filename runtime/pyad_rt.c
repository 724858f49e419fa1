/* pyad_rt.c: implementation of the pyad C runtime (see pyad_rt.h for the contract). */
#include "pyad_rt.h"

#include <math.h>
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

void *pyad_pullback_alloc(size_t size) {
    /* calloc(0) may return NULL; a pullback must be a valid unique pointer. */
    return calloc(1, size ? size : 1);
}

void pyad_pullback_free(void *pb) { free(pb); }

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

int32_t pyad_rt_version(void) { return 1; }
