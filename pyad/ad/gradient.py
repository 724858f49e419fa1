"""The gradient of a Func: the passes of the AD package in order.

    differentiate(func, wrt) -> Gradient(fwd, bwd)
    fused_parts(gradient)    -> one function: results and gradients (value_and_grad), and
                                its version with strong zeros, run when the first asks
    callee_gradient(callee)  -> forward and backward halves of a natively called function
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.builder import Builder, NameGen
from ..ir.expand import expand
from ..ir.nodes import (BOOL, F64, I64, Block, Func, If, Op, Stmt, Var, blocks_of, callees_of,
                        is_array, ndim_of, walk)
from ..ir.loops import for_each, reduce_each
from ..ir.memory import AliasClasses, final_accesses, final_stores
from ..ir.opt import cse_block, dce_block
from .activity import active_values, is_float_array
from .checkpoint import Budget
from .direct import accumulate_directly
from ..ir.private import private_arrays
from .rerun import loops_written_after
from .close import close, substitute
from .reverser import Reverser
from .shadow import augment
from .snapshot import snapshot_loop_reads, snapshot_reads


@dataclass(frozen=True)
class Gradient:
    primal: Func              # as given (differentiated again without strong zeros)
    fwd: Func
    bwd: Func
    wrt: tuple[int, ...]      # indices of the differentiated params
    n_results: int            # results of the primal (fwd returns these, then the saved values)
    saved: tuple[Var, ...]    # fwd results after the primal ones == first bwd params
    cts: tuple[Var, ...]      # bwd params after the saved ones: one per f64 result
    budget: Budget | None = None  # the tape budget its loops checkpoint under


def differentiate(func: Func, wrt: tuple[int, ...], strong_zeros: bool = True,
                  budget: Budget | None = None) -> Gradient:
    """fwd(params) -> (results..., saved...);  bwd(saved..., cts...) -> (grads...).
    `cts` has one cotangent per f64 result (scalar or array). Without `strong_zeros`, a
    zero cotangent through an inf partial derivative gives nan (see `fused`). Under a
    `budget`, taped loops checkpoint (checkpoint.py)."""
    names = NameGen({v.name for s in walk(func.block) for v in s.outs}
                    | {p.name for s in walk(func.block) for b in blocks_of(s) for p in b.params}
                    | {p.name for p in func.params})
    original, func = func, snapshot_loop_reads(snapshot_reads(func, names), names)
    classes = AliasClasses(func.block)
    seeds = {func.params[i].name for i in wrt
             if func.params[i].type == F64 or is_float_array(func.params[i].type)}
    active = active_values(func.block, seeds, classes)
    rereadable, by_order = final_accesses(func.block, classes)
    aug, shadow, _ = augment(func.block, active,
                             [func.params[i] for i in wrt if is_array(func.params[i].type)],
                             names)
    defs = {o.name: st for st in walk(aug) if isinstance(st, Op) for o in st.outs}
    rv = Reverser(names, active, shadow, classes, defs, rereadable, strong_zeros,
                  stored=final_stores(func.block, classes, by_order), budget=budget,
                  written_after=loops_written_after(aug, classes) if budget else {},
                  private=private_arrays(aug, classes))
    bb = Builder(names)
    adj: dict[str, Var] = {}
    cts = _seed_cotangents(rv, func, adj, bb)
    rv.reverse(aug.body, adj, bb)
    grads = []
    for i in wrt:
        p = func.params[i]
        g = shadow[p.name] if is_array(p.type) else adj.get(p.name)
        grads.append(g if g is not None else bb.const(0.0))
    bwd_block = dce_block(cse_block(Block((), tuple(bb.stmts), tuple(grads))), set())
    primal = substitute(aug, rv.subst)  # loops gain trip counts and tape pushes
    fwd_block, bwd_block, saved = close(primal, bwd_block, names, {c.name for c in cts})
    fwd_block = dce_block(Block(fwd_block.params, fwd_block.body,
                                fwd_block.results + tuple(saved)), set())
    fwd = Func(f"{func.name}.fwd", fwd_block, func.filename, func.arg_names)
    bwd = Func(f"{func.name}.bwd", Block(tuple(saved) + tuple(cts), bwd_block.body,
                                         bwd_block.results), func.filename)
    return Gradient(original, fwd, bwd, tuple(wrt), len(func.results), tuple(saved),
                    tuple(cts), budget)


def _seed_cotangents(rv: Reverser, func: Func, adj: dict[str, Var], b: Builder) -> list[Var]:
    """One cotangent param per float result: a scalar's starts its adjoint, an array's is
    added into the result's shadow element by element."""
    cts: list[Var] = []
    for r in func.results:
        if not (r.type == F64 or is_float_array(r.type)):
            continue
        ct = Var(rv.names.fresh("ct"), r.type)
        cts.append(ct)
        if r.name in rv.active and r.type == F64:
            rv.accumulate(b, adj, r, ct)
        elif r.name in rv.active:
            sh = rv.shadow[r.name]
            dims = [b.emit("dim", r, attrs=(k,), type="i64") for k in range(ndim_of(r.type))]
            for_each(b, dims, lambda b2, idx, sh=sh, ct=ct:
                     b2.emit("accum", sh, *idx, b2.emit("load", ct, *idx)))
    return cts


def fused_parts(g: Gradient, seed: float, inline: bool = False) -> tuple[Func, Func | None]:
    """(first, safe): functions computing the (single) result and the gradients, the
    cotangent being the constant `seed`: the value-and-gradient kernel.

    Strong zeros cost a compare and a select per contribution, on the hot path; they only
    matter where a partial derivative is inf or nan. So `first` computes the gradient
    without them and, when a gradient it computed holds a nan (which strong zeros may
    remove), raises StrongZeros (pyad/errors.py); the caller then runs `safe`, the gradient
    with them, from the start (same params). Compiled apart, `safe` costs nothing until a
    nan appears (it is about half the compile time of both). `safe` is None when the
    gradient needs no strong zeros or has a custom rule (`first` is then the gradient with
    them: `_has_custom_rule`), or with `inline`:
    `first` then runs the strong-zero gradient itself, array gradients zeroed first."""
    safe = _glue(g, seed)
    if not any(isinstance(s, Op) and s.op == "strongzero"
               for blk in (g.fwd.block, g.bwd.block) for s in walk(blk)) \
            or _has_custom_rule(g.primal):
        return safe, None
    fast = _glue(differentiate(g.primal, g.wrt, strong_zeros=False, budget=g.budget), seed)
    return _with_fallback(fast, safe if inline else None), None if inline else safe


def _has_custom_rule(f: Func) -> bool:
    """Whether `f` or a function it calls natively has a `pyad.custom_vjp` rule. Its
    backward function is the user's code, which may turn the nan of a gradient computed
    without strong zeros into a number (`max(-1.0, min(1.0, ct))`), so the nan that calls
    for strong zeros would not show: such a gradient always runs with them."""
    return any(isinstance(s, Op) and s.op == "custom_vjp"
               for fn in (f, *(c.func for c in callees_of(f) if c.func is not None))
               for s in walk(fn.block))


def _glue(g: Gradient, seed: float) -> Func:
    body: list[Stmt] = list(g.fwd.block.body)
    for ct in g.cts:
        body.append(Op((ct,), "const", (), (float(seed),)))
    body.extend(g.bwd.block.body)
    results = g.fwd.results[:g.n_results] + g.bwd.results
    glued = Func(f"{g.primal.name}.vg", Block(g.fwd.params, tuple(body), results),
                 g.primal.filename, g.primal.arg_names)
    if seed != 1.0:
        return glued
    shadows = {p.name for p in g.fwd.params[len(g.primal.params):]}  # zeroed by the callers
    return accumulate_directly(glued, shadows)


def _with_fallback(fast: Func, safe: Func | None) -> Func:
    """`fast`, then, if one of its gradients holds a nan, `safe` instead (same params), or
    without `safe` a StrongZeros error (the caller runs `safe`)."""
    names = NameGen({v.name for s in walk(fast.block) for v in s.outs}
                    | {p.name for s in walk(fast.block) for b in blocks_of(s) for p in b.params}
                    | {p.name for p in fast.params})
    b = Builder(names, fast.block.body[-1].loc if fast.block.body else None)
    grads = fast.results[1:]
    bad = b.const(False, BOOL)
    for g in grads:
        if is_array(g.type):
            dims = [b.emit("dim", g, attrs=(k,), type=I64) for k in range(ndim_of(g.type))]
            bad = reduce_each(b, dims, [bad], lambda bb, idx, acc, g=g: [
                bb.select(bb.ne(*(2 * [bb.emit("load", g, *idx)])), bb.const(True, BOOL),
                          acc[0])])[0]
        else:
            bad = b.select(b.ne(g, g), b.const(True, BOOL), bad)
    if safe is None:
        b.emit("raise_if", bad, attrs=("StrongZeros", "nan_in_a_gradient"))  # a word: never shown
        return Func(fast.name, Block(fast.params, fast.block.body + tuple(b.stmts),
                                     fast.results), fast.filename, fast.arg_names)
    rerun = Builder(names, b.loc)
    for g in grads:
        if is_array(g.type):
            dims = [rerun.emit("dim", g, attrs=(k,), type=I64) for k in range(ndim_of(g.type))]
            for_each(rerun, dims, lambda bb, idx, g=g: bb.emit("store", g, *idx,
                                                               bb.const(0.0)))
    again = rerun.inline(Block(safe.params, safe.block.body, safe.results), list(fast.params))
    outs = tuple(Var(names.fresh("r"), r.type) for r in fast.results)
    choose = If(outs, bad, Block((), tuple(rerun.stmts), tuple(again)),
                Block((), (), fast.results), b.loc)
    body = fast.block.body + tuple(b.stmts) + (choose,)
    return Func(fast.name, Block(fast.params, body, outs), fast.filename, fast.arg_names)


def callee_gradient(callee) -> tuple[Func, Func]:
    """The forward and backward halves of a natively called function (`ir.Callee`), with
    respect to all its f64 params and f64 array params:
    fwd(params, shadows of the f64 array params) -> results, pushing the saved values
    (the shadows among them) on the tape;
    bwd(cotangents of the f64 results and f64 array results) -> cotangents of the f64
    params, popping them, and adding the f64 array params' cotangents into their shadows.
    Made once per callee (its own calls refer back to it by the Callee)."""
    if callee.gradient is None:
        f = callee.func
        g = differentiate(f, tuple(i for i, p in enumerate(f.params)
                                   if p.type == F64 or is_float_array(p.type)))
        scalar_grads = tuple(r for r, i in zip(g.bwd.results, g.wrt) if f.params[i].type == F64)
        pushes = tuple(Op((), "push", (v,)) for v in g.saved)
        pops = tuple(Op((v,), "pop") for v in reversed(g.saved))
        fwd = Func(g.fwd.name, Block(g.fwd.params, g.fwd.block.body + pushes,
                                     g.fwd.results[:g.n_results]), f.filename, f.arg_names)
        bwd = Func(g.bwd.name, Block(g.cts, pops + g.bwd.block.body, scalar_grads),
                   f.filename)
        # the callee's func is native already, but for the kernel rows (matmul, linalg),
        # which AD differentiates at the array level into loops rows (addto, outer, ...)
        callee.gradient = (expand(fwd), expand(bwd))
    return callee.gradient
