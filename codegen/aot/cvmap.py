"""The C source of the batched functions of `pyad compile --vmap` (capi.BATCHED): each fills
the slots of the runtime's `pyad_batch_run` (runtime/pyad_rt.h) over the caller's buffers and
runs a kernel's uniform entry (codegen/entry.py) for items 0..nbatch-1 on native threads.

    LIB_f_vmap           the primal per item; array results in one block the library
                         allocates, after item 0 ran alone for their shape (the runner's probe)
    LIB_f_vmap_grad      the fused value-and-gradient kernel per item: array gradients
                         accumulate into the caller's per-item buffers, zeroed first
    LIB_f_vmap_grad_sum  the same summed in item order: per-item buffers for a chunk of
                         items at a time (batch_sum), added into the caller's buffers

A gradient kernel is given a zeroed shadow for every item, never an accumulator shared by
several items: a call that finds a nan in its gradient zeroes the shadow and runs again with
strong zeros (`fused` in pyad/ad/gradient.py), which would drop what earlier items had added.

The items and workers are the runner's (pyad_batch.c), so an item computes exactly what the
non-batched function computes for it. This file adds a C prelude of slot helpers to the
wrappers of cwrap.py and reuses its `_Body` (argument checks, names, the status path).
"""
from __future__ import annotations

from pyad.ir.nodes import elem_type, is_array, ndim_of

from .. import abi
from .capi import CFunction
from .cwrap import Kernel, _Body, _c_string

PRELUDE = r"""
/* ---- Batches (--vmap): the slots of pyad_batch_run (pyad_rt.h) over the caller's buffers. */
#include <unistd.h>

typedef struct {
    int64_t n;
    int32_t threads;
    double *sink; /* one double per worker: where results nobody wants go */
} batch;

/* Start a batch of n items on nthreads threads (<= 0: $PYAD_NUM_THREADS, else the CPUs
 * online), at most one per item. */
HELPER int batch_begin(pyad_ctx *ctx, batch *b, int64_t n, int32_t nthreads) {
    long t = nthreads;
    b->n = n;
    if (n < 1)
        return failf(ctx, PYAD_ERR_VALUE, "the batch size is %lld; it must be at least 1",
                     (long long)n);
    if (t < 1) {
        const char *env = getenv("PYAD_NUM_THREADS");
        if (env && *env) {
            char *end;
            t = strtol(env, &end, 10);
            while (*end == ' ' || *end == '\t' || *end == '\n') end++;
            if (end == env || *end)
                return failf(ctx, PYAD_ERR_VALUE, "PYAD_NUM_THREADS='%.64s' is not a number of "
                             "threads", env);
            if (t < 1)
                return failf(ctx, PYAD_ERR_VALUE, "PYAD_NUM_THREADS='%.64s': the number of "
                             "threads must be >= 1", env);
        } else {
            t = sysconf(_SC_NPROCESSORS_ONLN);
        }
    }
    if (t < 1) t = 1;
    if (t > INT32_MAX) t = INT32_MAX;
    b->threads = (int32_t)((int64_t)t < n ? (int64_t)t : n);
    b->sink = calloc((size_t)b->threads, sizeof(double));
    if (!b->sink) return failf(ctx, PYAD_ERR_MEMORY, "out of memory starting a batch");
    return 0;
}

HELPER void batch_end(batch *b) { free(b->sink); }

/* Run fn for the slots' items 0..end-1, items first..first+end-1 of the batch; a failure
 * names its item. */
HELPER int batch_go(pyad_ctx *ctx, const batch *b, pyad_entry_fn fn, int64_t end, int64_t first,
                    int np, const pyad_batch_slot *in, int no, const pyad_batch_slot *out) {
    pyad_batch_error err;
    int st = pyad_batch_run(fn, 0, end, b->threads, np, in, no, out, &err);
    if (st == 0) return 0;
    return failf(ctx, err.kind ? err.kind : st, "%s (batch element %lld)", err.msg,
                 (long long)(first + err.index));
}

HELPER int64_t desc_size(const desc *d, int nd) {
    int64_t size = 1;
    int k;
    for (k = 0; k < nd; k++) size *= d->v[k];
    return size;
}

/* An array argument checked into d by arg_array: item i's data at bstep * i elements on. */
HELPER pyad_batch_slot array_slot(desc *d, int nd, int itemsize, int64_t bstep) {
    return (pyad_batch_slot){(char *)d->data, bstep * itemsize, 0, nd, itemsize, d->v};
}

/* A scalar argument: item i's value at data[bstep * i]. */
HELPER int scalar_slot(pyad_ctx *ctx, pyad_batch_slot *s, const void *data, int itemsize,
                       int64_t bstep, const char *name) {
    if (!data) return failf(ctx, PYAD_ERR_VALUE, "%s is NULL", name);
    *s = (pyad_batch_slot){(char *)data, bstep * itemsize, 0, 0, itemsize, NULL};
    return 0;
}

/* A scalar result of every item: into out[0..n), or into the sink when out is NULL. */
HELPER void result_slot(const batch *b, pyad_batch_slot *s, void *out, int itemsize) {
    *s = out ? (pyad_batch_slot){(char *)out, itemsize, 0, 0, itemsize, NULL}
             : (pyad_batch_slot){(char *)b->sink, 0, sizeof(double), 0, itemsize, NULL};
}

/* The gradient of the array argument d for every item: into grad[n][size of d], zeroed. */
HELPER int grad_slot(pyad_ctx *ctx, const batch *b, pyad_batch_slot *s, double *grad,
                     desc *d, int nd, const char *name) {
    int64_t size = desc_size(d, nd);
    if (size && b->n > INT64_MAX / 16 / size)
        return failf(ctx, PYAD_ERR_VALUE, "%s is too large", name);
    if (!grad && size)
        return failf(ctx, PYAD_ERR_VALUE, "%s is NULL but has %lld elements", name,
                     (long long)(size * b->n));
    if (size) memset(grad, 0, (size_t)(size * b->n) * sizeof(double));
    *s = (pyad_batch_slot){(char *)grad, size * (int64_t)sizeof(double), 0, nd, sizeof(double),
                           d->v};
    return 0;
}

/* A sum over the batch: the kernel's parameter or out `slot` receives each item's part (a
 * gradient of `size` elements, or a number), added in item order into dst. */
typedef struct {
    pyad_batch_slot *slot; /* NULL: nobody wants this sum */
    double *dst;
    int64_t size;
    double *items; /* a chunk of items' parts, allocated by batch_sum */
} sum_part;

/* The sum of an array argument d's gradients, into grad (the shape of d). */
HELPER int sum_array(pyad_ctx *ctx, sum_part *part, pyad_batch_slot *s, double *grad, desc *d,
                     int nd, const char *name) {
    int64_t size = desc_size(d, nd);
    if (!grad && size)
        return failf(ctx, PYAD_ERR_VALUE, "%s is NULL but has %lld elements", name,
                     (long long)size);
    *s = (pyad_batch_slot){NULL, size * (int64_t)sizeof(double), 0, nd, sizeof(double), d->v};
    *part = (sum_part){s, grad, size, NULL};
    return 0;
}

/* The sum of a double result into *dst (the sink when dst is NULL). */
HELPER void sum_number(const batch *b, sum_part *part, pyad_batch_slot *s, double *dst) {
    if (dst) *s = (pyad_batch_slot){NULL, sizeof(double), 0, 0, sizeof(double), NULL};
    else result_slot(b, s, NULL, sizeof(double));
    *part = (sum_part){dst ? s : NULL, dst, 1, NULL};
}

/* Run fn for every item and add the parts up in item order. A gradient kernel needs a zeroed
 * gradient buffer for each call (a call whose gradient has a nan zeroes it and runs again),
 * so every item gets its own, in chunks of items that take about 4 MB (at least one item
 * per thread). The arguments' slots in[0..nargs) move along the chunks. */
HELPER int batch_sum(pyad_ctx *ctx, const batch *b, pyad_entry_fn fn, int np,
                     pyad_batch_slot *in, int nargs, int no, const pyad_batch_slot *out,
                     int nparts, sum_part *parts) {
    int64_t per_item = 0, chunk, start, m, j, k;
    int p, st = 0;
    for (p = 0; p < nparts; p++)
        if (parts[p].slot) per_item += parts[p].size;
    chunk = per_item ? ((int64_t)1 << 19) / per_item : b->n;
    if (chunk < b->threads) chunk = b->threads;
    if (chunk > b->n) chunk = b->n;
    if (per_item && chunk > INT64_MAX / 16 / per_item)
        return failf(ctx, PYAD_ERR_MEMORY, "the gradients of %lld items are too large",
                     (long long)chunk);
    for (p = 0; p < nparts && st == 0; p++) {
        if (!parts[p].slot) continue;
        parts[p].items = malloc(parts[p].size ? (size_t)(chunk * parts[p].size) * sizeof(double)
                                              : 1);
        if (!parts[p].items)
            st = failf(ctx, PYAD_ERR_MEMORY, "out of memory summing over a batch");
        parts[p].slot->base = (char *)parts[p].items;
    }
    for (start = 0; st == 0 && start < b->n; start += m) {
        m = b->n - start < chunk ? b->n - start : chunk;
        for (p = 0; p < nparts; p++)
            if (parts[p].slot && parts[p].size)
                memset(parts[p].items, 0, (size_t)(m * parts[p].size) * sizeof(double));
        if ((st = batch_go(ctx, b, fn, m, start, np, in, no, out)) != 0) break;
        for (p = 0; p < nparts; p++) {
            const double *it = parts[p].items;
            if (!parts[p].slot) continue;
            for (j = 0; j < m; j++, it += parts[p].size)
                for (k = 0; k < parts[p].size; k++)
                    parts[p].dst[k] = start + j ? parts[p].dst[k] + it[k] : it[k];
        }
        for (k = 0; k < nargs; k++) in[k].base += m * in[k].step;
    }
    for (p = 0; p < nparts; p++) free(parts[p].items);
    return st;
}

/* An array result while item 0 runs alone: the runner writes its shape into shape[nd]. */
HELPER void probe_slot(pyad_batch_slot *s, int nd, int itemsize, int64_t *shape) {
    *s = (pyad_batch_slot){NULL, 0, 0, nd, itemsize, shape};
}

/* After the probe: a new block *out of n items of the shape found, or (out == NULL) a result
 * nobody wants. */
HELPER int block_slot(pyad_ctx *ctx, const batch *b, pyad_batch_slot *s, void **out,
                      const char *name) {
    int64_t size = 1;
    int k;
    if (!out) {
        *s = (pyad_batch_slot){NULL, 0, 0, s->ndim, s->itemsize, NULL};
        return 0;
    }
    for (k = 0; k < s->ndim; k++) size *= s->dims[k];
    if (size && b->n > INT64_MAX / 16 / size)
        return failf(ctx, PYAD_ERR_MEMORY, "the results %s of %lld items are too large", name,
                     (long long)b->n);
    *out = malloc(size ? (size_t)(size * b->n * s->itemsize) : 1);
    if (!*out) return failf(ctx, PYAD_ERR_MEMORY, "out of memory allocating the result %s", name);
    s->base = (char *)*out;
    s->step = size * s->itemsize;
    return 0;
}
"""


def entry_declaration(k: Kernel) -> str:
    return (f"extern KERNEL int32_t {_entry_c(k)}(pyad_ctx *, void *const *, void *const *) "
            f"__asm__(\"{k.entry}\");")


def _entry_c(k: Kernel) -> str:
    return "e_" + k.symbol.replace(".", "_")


def _batched_args(b: _Body) -> list[str]:
    """Fill in[0..) with the arguments' slots; returns their kernel expressions (`&aN` for
    an array described in aN, the data pointer for a scalar)."""
    exprs = b.args()
    for k, (v, e) in enumerate(zip(b.values("arg"), exprs)):
        ps, size = b.p(v), abi.ITEMSIZE[elem_type(v.type) if is_array(v.type) else v.type]
        if is_array(v.type):
            b.stmts.append(f"in[{k}] = array_slot({e}, {ndim_of(v.type)}, {size}, {ps[-1]});")
        else:
            b.check(f"scalar_slot(&ctx, &in[{k}], {ps[0]}, {size}, {ps[-1]}, "
                    f"{_c_string(v.name)})")
    return exprs


def _slots(b: _Body, nin: int, nout: int) -> None:
    b.decls += ["batch bt = {0, 0, NULL};",
                f"pyad_batch_slot in[{max(1, nin)}], out[{max(1, nout)}];"]
    b.cleanup.append("batch_end(&bt);")
    b.check("batch_begin(&ctx, &bt, nb, nt)")


def _vmap(fn: CFunction, k: Kernel) -> str:
    b = _Body(fn)
    results = b.values("result")
    _slots(b, len(b.values("arg")), len(results))
    _batched_args(b)
    arrays = [v for v in results if is_array(v.type)]
    for v in results:
        j, p = v.index, b.p(v)
        if is_array(v.type):
            b.decls += [f"int64_t rs{j}[{ndim_of(v.type)}];", f"void *o{j} = NULL;"]
            b.stmts.append(f"probe_slot(&out[{j}], {ndim_of(v.type)}, "
                           f"{abi.ITEMSIZE[elem_type(v.type)]}, rs{j});")
        else:
            b.stmts.append(f"result_slot(&bt, &out[{j}], {p[0]}, {abi.ITEMSIZE[v.type]});")
    go = (f"batch_go(&ctx, &bt, {_entry_c(k)}, {{end}}, 0, {len(k.params)}, in, "
          f"{len(results)}, out)")
    if arrays:  # item 0 alone first: the shapes of the blocks
        b.check(go.format(end=1))
        for v in arrays:
            j, (data, _shape) = v.index, b.p(v)
            b.check(f"block_slot(&ctx, &bt, &out[{j}], {data} ? &o{j} : NULL, "
                    f"{_c_string(v.name)})")
            b.cleanup.append(f"free(o{j});")
    b.check(go.format(end="nb"))
    for v in arrays:
        j, (data, shape) = v.index, b.p(v)
        b.stmts.append(f"if ({data}) {{ *{data} = o{j}; o{j} = NULL; }}")
        b.stmts.append(f"if ({shape}) memcpy({shape}, rs{j}, sizeof rs{j});")
    return b.render()


def _vmap_grad(fn: CFunction, k: Kernel, total: bool) -> str:
    """Per item, or summed over the batch (`total`)."""
    b = _Body(fn)
    nargs, nouts = len(b.values("arg")), len(k.outs)
    _slots(b, len(k.params), nouts)
    if total:
        b.decls.append(f"sum_part parts[{nouts}];")
    exprs = _batched_args(b)
    shadows = [g for g in b.values("grad") if is_array(g.type)]
    for s, g in enumerate(shadows):
        gp, nd, name = b.p(g)[0], ndim_of(g.type), _c_string(g.name)
        d, slot = exprs[g.index], f"&in[{nargs + s}]"
        b.check(f"sum_array(&ctx, &parts[{s}], {slot}, {gp}, {d}, {nd}, {name})" if total
                else f"grad_slot(&ctx, &bt, {slot}, {gp}, {d}, {nd}, {name})")
    numbers = 0
    for o, v in enumerate(b.values("value") + b.values("grad")):  # the kernel's outs
        p = b.p(v)[0]
        if is_array(v.type):  # accumulated in the shadow above; the out is not copied
            b.stmts.append(f"out[{o}] = (pyad_batch_slot){{NULL, 0, 0, {ndim_of(v.type)}, "
                           f"sizeof(double), NULL}};")
        elif total:
            part = len(shadows) + numbers
            b.stmts.append(f"sum_number(&bt, &parts[{part}], &out[{o}], {p});")
            numbers += 1
        else:
            b.stmts.append(f"result_slot(&bt, &out[{o}], {p}, sizeof(double));")
    entry, np_ = _entry_c(k), len(k.params)
    if total:
        b.check(f"batch_sum(&ctx, &bt, {entry}, {np_}, in, {nargs}, {nouts}, out, "
                f"{len(shadows) + numbers}, parts)")
    else:
        b.check(f"batch_go(&ctx, &bt, {entry}, nb, 0, {np_}, in, {nouts}, out)")
    return b.render()


def render(fns: list[CFunction], kernels: dict[tuple[int, str], Kernel],
           entry_index: dict[int, int]) -> str:
    """The C source of the batched functions `fns` (to follow cwrap.render's), "" if none."""
    if not fns:
        return ""
    used = {(entry_index[id(f.entry)], "primal" if f.kind == "vmap" else "vg") for f in fns}
    out = [PRELUDE] + [entry_declaration(kernels[key]) for key in sorted(used)]
    for fn in fns:
        i = entry_index[id(fn.entry)]
        out.append("")
        if fn.kind == "vmap":
            out.append(_vmap(fn, kernels[(i, "primal")]))
        else:
            out.append(_vmap_grad(fn, kernels[(i, "vg")], fn.kind == "vmap_grad_sum"))
    return "\n".join(out) + "\n"
