"""The late pass that turns whole-array primitives (pyad/ir/array_rows.py, `lower=("loops",)`)
into element loops, after AD: the primal, forward, backward and fused functions all go
through it before codegen, which sees only element ops (and the kernel rows). One function
per row, below; a faster kernel for a row (BLAS, vector math) replaces its function here.

The matrix product is not expanded: `matmul` is a kernel row, the runtime's blocked
product (codegen/lower/matmul.py). Loop orders keep NumPy's results and let LLVM vectorize:
float sums (`sum`, `vdot`) run eight interleaved partial sums in a fixed order
(loops.sum_each); an int `sum(a, axis)` walks `a` in row-major order adding into the kept
indices.
"""
from __future__ import annotations

from collections import Counter
from typing import Callable

from .builder import Builder, NameGen
from .loops import for_each, for_range, reduce_each, sum_each
from .nodes import BOOL, F64, I64, Block, Func, If, Op, Stmt, Var, While, blocks_of, \
    elem_type, is_array, ndim_of, rename_note, walk
from .ops import OPS


def expand(func: Func) -> Func:
    """`func` with every array primitive replaced by its loops (the same Func if none)."""
    if not any(isinstance(s, Op) and OPS[s.op].lower == ("loops",) for s in walk(func.block)):
        return func
    names = NameGen({v.name for s in walk(func.block) for v in s.outs}
                    | {p.name for s in walk(func.block) for b in blocks_of(s) for p in b.params}
                    | {p.name for p in func.params})
    transposed = {s.outs[0].name for s in walk(func.block)
                  if isinstance(s, Op) and s.op == "transpose" and ndim_of(s.outs[0].type) == 2}
    ex = _Expander(names, _into(func.block), transposed)
    return Func(func.name, ex.block(func.block), func.filename, func.arg_names)


#: rows whose result may be made straight into the shadow an `addto` adds it to
_INTO = frozenset({"outer", "scale", "spread"})


def _into(block: Block) -> dict[str, Var]:
    """Contributions `c = op(...)` used once, by an `addto(dst, c)` later in the same
    block, with nothing from c's op to the addto reading dst or defining it: c's name ->
    dst."""
    uses = Counter(v.name for s in walk(block) for v in _reads(s))
    found: dict[str, Var] = {}
    for blk in [block] + [b for s in walk(block) for b in blocks_of(s)]:
        where = {s.outs[0].name: i for i, s in enumerate(blk.body)
                 if isinstance(s, Op) and s.op in _INTO and s.outs and is_array(s.outs[0].type)}
        for i, s in enumerate(blk.body):
            if not (isinstance(s, Op) and s.op == "addto" and s.args[1].name in where):
                continue
            dst, c = s.args
            start = where[c.name]
            between = {v.name for t in blk.body[start:i] for u in _all(t)
                       for v in _reads(u) + u.outs}
            if uses[c.name] == 1 and dst.name not in between:
                found[c.name] = dst
    return found


def _reads(s: Stmt) -> tuple[Var, ...]:
    if isinstance(s, Op):
        return s.args
    if isinstance(s, If):
        return (s.cond,) + s.then.results + s.orelse.results
    return s.inits + s.cond.results + s.body.results


def _all(s: Stmt) -> list[Stmt]:
    return [s] + [t for b in blocks_of(s) for t in walk(b)]


class _Expander:
    def __init__(self, names: NameGen, into: dict[str, Var], transposed: set[str]) -> None:
        self.names = names
        self.into = into                    # contributions made straight into shadows
        self.transposed = transposed        # 2-D transposed views (written column-wise)
        self.renamed: dict[str, Var] = {}   # a scalar result -> the value its loops made

    def use(self, v: Var) -> Var:
        return self.renamed.get(v.name, v)

    def block(self, blk: Block) -> Block:
        body: list[Stmt] = []
        for s in blk.body:
            if isinstance(s, Op) and s.op == "addto" and s.args[1].name in self.into:
                continue   # made in place, by the op that defines the contribution
            if isinstance(s, Op) and OPS[s.op].lower == ("loops",):
                b = Builder(self.names, s.loc)
                args = tuple(map(self.use, s.args))
                into = s.outs and self.into.get(s.outs[0].name)
                into = self.use(into) if into else None
                target = into if into is not None else args[0] if s.op == "addto" else None
                flip = target is not None and target.name in self.transposed
                out = _EXPANSIONS[s.op](b, _Into(into, flip) if into else
                                        _Into(None, flip) if s.op == "addto" else
                                        s.outs[0] if s.outs else None, *args, *s.attrs)
                if s.outs and not into and out != s.outs[0]:
                    self.renamed[s.outs[0].name] = out
                body.extend(b.stmts)
            elif isinstance(s, Op):
                body.append(Op(s.outs, s.op, tuple(map(self.use, s.args)), s.attrs, s.loc))
            elif isinstance(s, If):
                body.append(If(s.outs, self.use(s.cond), self.block(s.then),
                               self.block(s.orelse), s.loc))
            else:
                body.append(While(s.outs, tuple(map(self.use, s.inits)), self.block(s.cond),
                                  self.block(s.body), s.loc, rename_note(s.note, self.use)))
        return Block(blk.params, tuple(body), tuple(map(self.use, blk.results)))


def expand_op(s: Op, b: Builder) -> Var | None:
    """Emit the loops of one array primitive `s` (a `("loops",)` row) into `b`; the value
    holding its result (s's own result, or for a number the value the loops made)."""
    return _EXPANSIONS[s.op](b, s.outs[0] if s.outs else None, *s.args, *s.attrs)


# ----------------------------------------------------------------------------- helpers

def _dims(b: Builder, a: Var) -> list[Var]:
    return [b.emit("dim", a, attrs=(k,), type=I64) for k in range(ndim_of(a.type))]


class _Into:
    """The `out` of a contribution expanded straight into the shadow array `dst` that an
    `addto` would add it to (no temporary): `_new` gives dst, `_put` accumulates. `flip`:
    the array written is a 2-D transposed view (the shadow of `A.T` in `A.T @ v`'s
    adjoint), so the loops run over its second axis outside and its first inside, along
    the memory of the array it views (one add per element: the same bits either way; the
    other order took 3 ns an element in strided scalar stores). An `addto` gets an _Into
    with no `dst` that carries only `flip` (it adds into its own first operand)."""

    def __init__(self, dst: Var | None, flip: bool = False) -> None:
        self.dst = dst
        self.flip = flip


def _each(b: Builder, out, dims: list[Var], body) -> None:
    """for_each over `dims`, the last two axes swapped in the nest for a flipped `_Into`."""
    if isinstance(out, _Into) and out.flip and len(dims) == 2:
        for_each(b, dims[::-1], lambda bb, idx: body(bb, idx[::-1]))
    else:
        for_each(b, dims, body)


def _new(b: Builder, out: Var | _Into, dims: list[Var]) -> Var:
    """Allocate the (zeroed) result array `out` itself (or give the `_Into` array)."""
    if isinstance(out, _Into):
        for x, y in zip(_dims(b, out.dst), dims):
            _check_equal(b, x, y, "operands could not be broadcast together")
        return out.dst
    b.stmts.append(Op((out,), "alloc", tuple(dims), (), b.loc))
    return out


def _put(bb: Builder, out: Var | _Into, r: Var, idx: list[Var], v: Var) -> None:
    """r[idx] = v, or r[idx] += v when expanding into a shadow."""
    bb.emit("accum" if isinstance(out, _Into) else "store", r, *idx, v)


def _check_equal(b: Builder, x: Var, y: Var, message: str) -> None:
    b.emit("raise_if", b.ne(x, y), attrs=("ValueError", message))


def _elem(bb: Builder, a: Var, idx: list[Var], t: str) -> Var:
    """a[idx] as a value of type t (bools and ints widen)."""
    v = bb.emit("load", a, *idx)
    if v.type == t:
        return v
    return bb.tofloat(v) if t == F64 else bb.toint(v) if v.type == BOOL else v


def _loop(b: Builder, n: Var, body: Callable[[Builder, Var], None]) -> None:
    for_range(b, n, [], lambda bb, i, _: (body(bb, i), [])[1])


# ----------------------------------------------------------------------------- the rows

def _outer(b: Builder, out: Var, x: Var, z: Var) -> Var:
    dx, dz = _dims(b, x), _dims(b, z)
    C = _new(b, out, dx + dz)
    if isinstance(out, _Into) and out.flip:   # a column of C at a time
        def column(bb: Builder, j: Var) -> None:
            zj = bb.load(z, j)
            _loop(bb, dx[0], lambda b2, i: _put(b2, out, C, [i, j],
                                                b2.mul(b2.load(x, i), zj)))
        _loop(b, dz[0], column)
        return C

    def row(bb: Builder, i: Var) -> None:
        xi = bb.load(x, i)
        _loop(bb, dz[0], lambda b2, j: _put(b2, out, C, [i, j], b2.mul(xi, b2.load(z, j))))
    _loop(b, dx[0], row)
    return C


def _scale(b: Builder, out: Var, a: Var, s: Var) -> Var:
    dims = _dims(b, a)
    r = _new(b, out, dims)
    _each(b, out, dims, lambda bb, idx: _put(bb, out, r, idx, bb.mul(bb.load(a, *idx), s)))
    return r


def _vdot(b: Builder, out: Var, a: Var, c: Var) -> Var:
    da, dc = _dims(b, a), _dims(b, c)
    for x, y in zip(da, dc):
        _check_equal(b, x, y, "operands could not be broadcast together")
    return sum_each(b, da, lambda bb, idx: bb.mul(bb.load(a, *idx), bb.load(c, *idx)))


def _kept(idx: list[Var], axes: tuple, keepdims: bool, zero: Var) -> list[Var]:
    """The index into a reduction's result for the index `idx` of its argument."""
    if keepdims:
        return [zero if k in axes else i for k, i in enumerate(idx)]
    return [i for k, i in enumerate(idx) if k not in axes]


def _sum(b: Builder, out: Var, a: Var, keepdims: bool, *axes: int) -> Var:
    """Float sums run sum_each (at each kept index, over the reduced axes); int sums walk
    `a` in row-major order adding into the kept indices (exact in any order)."""
    dims = _dims(b, a)
    t = out.type if not is_array(out.type) else elem_type(out.type)
    if t == F64 and not is_array(out.type):
        return sum_each(b, dims, lambda bb, idx: _elem(bb, a, idx, t))
    if not is_array(out.type):
        return reduce_each(b, dims, [b.const(0, t)],
                           lambda bb, idx, acc: [bb.add(acc[0], _elem(bb, a, idx, t))])[0]
    one = b.const(1, I64)
    r = _new(b, out, [one if k in axes else d for k, d in enumerate(dims)] if keepdims
             else [d for k, d in enumerate(dims) if k not in axes])
    if t == F64:
        kept = [k for k in range(len(dims)) if k not in axes]

        def at(bb: Builder, kidx: list[Var]) -> None:
            def term(b2: Builder, ridx: list[Var]) -> Var:
                where = dict(zip(kept, kidx)) | dict(zip(axes, ridx))
                return _elem(b2, a, [where[k] for k in range(len(dims))], t)
            full = kidx if not keepdims else \
                [dict(zip(kept, kidx)).get(k, bb.const(0, I64)) for k in range(len(dims))]
            bb.emit("store", r, *full, sum_each(bb, [dims[k] for k in axes], term))
        for_each(b, [dims[k] for k in kept], at)
        return r

    def body(bb: Builder, idx: list[Var]) -> None:
        at = _kept(idx, axes, keepdims, bb.const(0, I64))
        bb.emit("store", r, *at, bb.add(bb.load(r, *at), _elem(bb, a, idx, t)))
    for_each(b, dims, body)
    return r


def _spread(b: Builder, out: Var, ct: Var, like: Var, keepdims: bool, *axes: int) -> Var:
    dims = _dims(b, like)
    r = _new(b, out, dims)

    def body(bb: Builder, idx: list[Var]) -> None:
        v = bb.load(ct, *_kept(idx, axes, keepdims, bb.const(0, I64))) \
            if is_array(ct.type) else ct
        _put(bb, out, r, idx, v)
    _each(b, out, dims, body)
    return r


def _addto(b: Builder, out: _Into | None, dst: Var, src: Var) -> None:
    dims = _dims(b, dst)
    if is_array(src.type):
        for x, y in zip(dims, _dims(b, src)):
            _check_equal(b, x, y, "operands could not be broadcast together")
    _each(b, out, dims, lambda bb, idx: bb.emit(
        "accum", dst, *idx, bb.load(src, *idx) if is_array(src.type) else src))


def _copy(b: Builder, out: Var, a: Var) -> Var:
    dims = _dims(b, a)
    r = _new(b, out, dims)
    for_each(b, dims, lambda bb, idx: bb.emit("store", r, *idx, bb.load(a, *idx)))
    return r


_EXPANSIONS: dict[str, Callable] = {
    "outer": _outer, "scale": _scale, "vdot": _vdot, "sum": _sum,
    "spread": _spread, "addto": _addto, "copy": _copy,
}
assert set(_EXPANSIONS) == {r for r, d in OPS.items() if d.lower == ("loops",)}
