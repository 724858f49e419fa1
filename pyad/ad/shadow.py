"""Shadow arrays: the adjoint of an active float array lives in memory, in a shadow array of
the same shape that the forward sweep creates next to it (as Enzyme does).

`augment` rewrites a primal block so that every active f64 array value `a` has a shadow
value `shadow[a]`: an allocation (and the new array of a whole-array primitive) gets a
zero-filled shadow allocation, a view the same view of its base's shadow, an If or a loop that yields or carries `a` also yields or carries its
shadow. Differentiated array parameters get shadow parameters (appended to the block's
params; the caller passes zero arrays that end up holding the gradient); other active array
parameters get a zero shadow allocation. The reverse sweep then accumulates into shadows
(`accum`) where the primal loads, and reads and clears them where the primal stores.
"""
from __future__ import annotations

from ..ir.builder import Builder, NameGen
from ..ir.nodes import I64, Block, If, Op, Stmt, Var, While, ndim_of
from ..ir.memory import VIEW_OPS
from ..ir.ops import OPS
from .activity import is_float_array


def augment(block: Block, active: set[str], wrt: list[Var],
            names: NameGen) -> tuple[Block, dict[str, Var], list[Var]]:
    """(augmented block, shadow of each active array, shadow params of the `wrt` arrays)."""
    shadow: dict[str, Var] = {}
    shadow_params: list[Var] = []
    b = Builder(names)
    for p in block.params:
        if not (is_float_array(p.type) and p.name in active):
            continue
        if p in wrt:
            shadow[p.name] = Var(names.fresh(p.name + ".d"), p.type)
            shadow_params.append(shadow[p.name])
        else:
            dims = [b.emit("dim", p, attrs=(k,), type="i64") for k in range(ndim_of(p.type))]
            shadow[p.name] = b.emit("alloc", *dims, attrs=("shadow",), type=p.type)
    body = tuple(b.stmts) + _stmts(block.body, active, shadow, names)
    return Block(block.params + tuple(shadow_params), body, block.results), shadow, shadow_params


def _stmts(body: tuple[Stmt, ...], active: set[str], shadow: dict[str, Var],
           names: NameGen) -> tuple[Stmt, ...]:
    out: list[Stmt] = []

    def needs(v: Var) -> bool:
        return is_float_array(v.type) and v.name in active

    def fresh(v: Var) -> Var:
        shadow[v.name] = Var(names.fresh(v.name + ".d"), v.type)
        return shadow[v.name]

    for s in body:
        if isinstance(s, Op) and s.op == "call":
            out.append(s)  # a call's arrays are new: each active one gets a zero shadow
            for o in s.outs:
                if needs(o):
                    out.extend(_zero_shadow(o, fresh(o), names, s.loc))
        elif isinstance(s, Op):
            out.append(s)
            if s.outs and needs(s.outs[0]):
                if s.op == "alloc":
                    out.append(Op((fresh(s.outs[0]),), "alloc", s.args, ("shadow",), s.loc))
                elif s.op in VIEW_OPS:
                    out.append(Op((fresh(s.outs[0]),), s.op,
                                  (shadow[s.args[0].name],) + s.args[1:], s.attrs, s.loc))
                elif OPS[s.op].whole_array or s.op == "constarray":
                    # a whole-array primitive's new array; a constant that joins active
                    # arrays (`y = W` before `y = y * x` in a loop) gets a shadow of its own
                    out.extend(_zero_shadow(s.outs[0], fresh(s.outs[0]), names, s.loc))
        elif isinstance(s, If):
            ks = [k for k, o in enumerate(s.outs) if needs(o)]
            blocks = []
            for blk in (s.then, s.orelse):
                inner = _stmts(blk.body, active, shadow, names)
                blocks.append(Block(blk.params, inner,
                                    blk.results + tuple(shadow[blk.results[k].name] for k in ks)))
            outs = s.outs + tuple(fresh(s.outs[k]) for k in ks)
            out.append(If(outs, s.cond, blocks[0], blocks[1], s.loc))
        else:
            ks = [k for k, o in enumerate(s.outs) if needs(o)]
            cps = tuple(fresh(s.cond.params[k]) for k in ks)
            bps = tuple(fresh(s.body.params[k]) for k in ks)
            cond = Block(s.cond.params + cps, _stmts(s.cond.body, active, shadow, names),
                         s.cond.results)
            inner = _stmts(s.body.body, active, shadow, names)
            body_blk = Block(s.body.params + bps, inner,
                             s.body.results + tuple(shadow[s.body.results[k].name] for k in ks))
            outs = s.outs + tuple(fresh(s.outs[k]) for k in ks)
            inits = s.inits + tuple(shadow[s.inits[k].name] for k in ks)
            out.append(While(outs, inits, cond, body_blk, s.loc, s.note))
    return tuple(out)


def _zero_shadow(v: Var, sh: Var, names: NameGen, loc) -> list[Op]:
    """`sh = zeros(v.shape)`: the shadow `sh` of a new array `v`."""
    dims = [Op((Var(names.fresh(), I64),), "dim", (v,), (k,), loc) for k in range(ndim_of(v.type))]
    return [*dims, Op((sh,), "alloc", tuple(d.outs[0] for d in dims), ("shadow",), loc)]
