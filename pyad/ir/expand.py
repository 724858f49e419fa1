"""The late pass that turns whole-array primitives (pyad/ir/array_rows.py, `lower=("loops",)`)
into element loops, after AD: the primal, forward, backward and fused functions all go
through it before codegen, which sees only element ops. One function per row, below; a
faster kernel for a row (BLAS, vector math) replaces its function here.

Loop orders keep NumPy's results and let LLVM vectorize: `A @ B` runs i, p, j with the
inner loop over a row of B and of the result (`C[i, j] += A[i, p] * B[p, j]`), so each
element is summed over p in order (the same sum as a dot product) and the inner loop has no
reduction; where B is a `transpose` view (`X @ W.T`, and the adjoint `ct @ B.T`), whose
rows are strided, B is first copied into a contiguous array (O(n^2) for O(n^3) work, as BLAS
packs its operands); `A.T @ x` runs p outer and i inner along A's rows. `sum(a, axis)`
walks `a` in row-major order adding into the kept indices.
"""
from __future__ import annotations

from collections import Counter
from typing import Callable

from .builder import Builder, NameGen
from .loops import for_each, for_range, reduce_each
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
    transposed: set[str] = set()   # an odd number of transposes from a row-major array
    for s in walk(func.block):
        if isinstance(s, Op) and s.op == "transpose" and s.args[0].name not in transposed:
            transposed.add(s.outs[0].name)
    ex = _Expander(names, transposed, _into(func.block))
    return Func(func.name, ex.block(func.block), func.filename, func.arg_names)


#: rows whose result may be made straight into the shadow an `addto` adds it to
_INTO = frozenset({"matmul", "outer", "scale", "spread"})


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
    def __init__(self, names: NameGen, transposed: set[str], into: dict[str, Var]) -> None:
        self.names = names
        self.transposed = transposed        # transposed views (their rows are strided)
        self.into = into                    # contributions made straight into shadows
        self.renamed: dict[str, Var] = {}   # a scalar result -> the value its loops made

    def use(self, v: Var) -> Var:
        return self.renamed.get(v.name, v)

    def _layout(self, b: Builder, args: tuple, into: Var | None) -> tuple[tuple, Var | None]:
        """The operands of a matmul with whether each is a transposed view; a product
        added into a transposed view (the shadow of `W.T`) is made as its transpose,
        `dst.T += B.T @ A.T`, so that the loops write along the rows of dst's base."""
        A, B = args
        if into is not None and into.name in self.transposed and ndim_of(A.type) == 2 \
                and ndim_of(B.type) == 2:
            A, B, into = b.transpose(B), b.transpose(A), b.transpose(into)
            for old, new in ((args[1], A), (args[0], B)):   # parities flip
                if old.name not in self.transposed:
                    self.transposed.add(new.name)
        return (A, B, A.name in self.transposed, B.name in self.transposed), into

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
                if s.op == "matmul":   # the loop order follows the operands' layouts
                    args, into = self._layout(b, args, into)
                out = _EXPANSIONS[s.op](b, _Into(into) if into else
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


# ----------------------------------------------------------------------------- helpers

def _dims(b: Builder, a: Var) -> list[Var]:
    return [b.emit("dim", a, attrs=(k,), type=I64) for k in range(ndim_of(a.type))]


class _Into:
    """The `out` of a contribution expanded straight into the shadow array `dst` that an
    `addto` would add it to (no temporary): `_new` gives dst, `_put` accumulates."""

    def __init__(self, dst: Var) -> None:
        self.dst = dst


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


def _dot(b: Builder, n: Var, x: Callable, y: Callable) -> Var:
    """sum over p < n of x(bb, p) * y(bb, p), in order."""
    return for_range(b, n, [b.const(0.0)],
                     lambda bb, p, acc: [bb.add(acc[0], bb.mul(x(bb, p), y(bb, p)))])[0]


# ----------------------------------------------------------------------------- the rows

def _matmul(b: Builder, out: Var, A: Var, B: Var, a_t: bool, b_t: bool) -> Var:
    """A @ B; `a_t`, `b_t`: the operand is a transpose view (its rows are strided)."""
    da, db = _dims(b, A), _dims(b, B)
    _check_equal(b, da[-1], db[0], "shapes are not aligned for np.dot / @")
    k = da[-1]
    if len(da) == 1 and len(db) == 1:
        return _dot(b, k, lambda bb, p: bb.load(A, p), lambda bb, p: bb.load(B, p))
    if len(db) == 2 and b_t:   # B's rows are strided: pack B into a contiguous copy first
        B = _copy(b, Var(b.names.fresh("packed"), B.type), B)
    dot_rows = len(db) == 1 and not a_t
    r = _new(b, out, da[:-1] + db[1:])
    if dot_rows:   # r[i, j] = A[i, :] . B[:, j], B[:, j] contiguous
        rows = da[:-1]

        def at(bb: Builder, i: list[Var], j: list[Var]) -> None:
            _put(bb, out, r, [*i, *j], _dot(bb, k, lambda b2, p: b2.load(A, *i, p),
                                            lambda b2, p: b2.load(B, p, *j)))
        _loop(b, rows[0], lambda bb, i: at(bb, [i], []))
        return r

    def row(bb: Builder, i: list[Var]) -> None:   # r[i, :] += A[i, p] * B[p, :]
        def step(b2: Builder, p: Var) -> None:
            a = b2.load(A, *i, p)

            def inner(b3: Builder, j: Var) -> None:
                b3.emit("store", r, *i, j, b3.add(b3.load(r, *i, j),
                                                  b3.mul(a, b3.load(B, p, j))))
            _loop(b2, db[1], inner)
        _loop(bb, k, step)
    if len(da) == 1:
        row(b, [])
    elif len(db) == 1:   # A^T x (A a transpose view): p outer, i inner along A's base rows
        def step(bb: Builder, p: Var) -> None:
            xp = bb.load(B, p)
            _loop(bb, da[0], lambda b2, i: b2.emit("store", r, i, b2.add(
                b2.load(r, i), b2.mul(b2.load(A, i, p), xp))))
        _loop(b, k, step)
    else:
        _loop(b, da[0], lambda bb, i: row(bb, [i]))
    return r


def _outer(b: Builder, out: Var, x: Var, z: Var) -> Var:
    dx, dz = _dims(b, x), _dims(b, z)
    C = _new(b, out, dx + dz)

    def row(bb: Builder, i: Var) -> None:
        xi = bb.load(x, i)
        _loop(bb, dz[0], lambda b2, j: _put(b2, out, C, [i, j], b2.mul(xi, b2.load(z, j))))
    _loop(b, dx[0], row)
    return C


def _scale(b: Builder, out: Var, a: Var, s: Var) -> Var:
    dims = _dims(b, a)
    r = _new(b, out, dims)
    for_each(b, dims, lambda bb, idx: _put(bb, out, r, idx, bb.mul(bb.load(a, *idx), s)))
    return r


def _vdot(b: Builder, out: Var, a: Var, c: Var) -> Var:
    da, dc = _dims(b, a), _dims(b, c)
    for x, y in zip(da, dc):
        _check_equal(b, x, y, "operands could not be broadcast together")
    return reduce_each(b, da, [b.const(0.0)], lambda bb, idx, acc: [
        bb.add(acc[0], bb.mul(bb.load(a, *idx), bb.load(c, *idx)))])[0]


def _kept(idx: list[Var], axes: tuple, keepdims: bool, zero: Var) -> list[Var]:
    """The index into a reduction's result for the index `idx` of its argument."""
    if keepdims:
        return [zero if k in axes else i for k, i in enumerate(idx)]
    return [i for k, i in enumerate(idx) if k not in axes]


def _sum(b: Builder, out: Var, a: Var, keepdims: bool, *axes: int) -> Var:
    dims = _dims(b, a)
    t = out.type if not is_array(out.type) else elem_type(out.type)
    if not is_array(out.type):
        return reduce_each(b, dims, [b.const(0, t)],
                           lambda bb, idx, acc: [bb.add(acc[0], _elem(bb, a, idx, t))])[0]
    one = b.const(1, I64)
    r = _new(b, out, [one if k in axes else d for k, d in enumerate(dims)] if keepdims
             else [d for k, d in enumerate(dims) if k not in axes])

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
    for_each(b, dims, body)
    return r


def _addto(b: Builder, out: None, dst: Var, src: Var) -> None:
    dims = _dims(b, dst)
    if is_array(src.type):
        for x, y in zip(dims, _dims(b, src)):
            _check_equal(b, x, y, "operands could not be broadcast together")
    for_each(b, dims, lambda bb, idx: bb.emit(
        "accum", dst, *idx, bb.load(src, *idx) if is_array(src.type) else src))


def _copy(b: Builder, out: Var, a: Var) -> Var:
    dims = _dims(b, a)
    r = _new(b, out, dims)
    for_each(b, dims, lambda bb, idx: bb.emit("store", r, *idx, bb.load(a, *idx)))
    return r


_EXPANSIONS: dict[str, Callable] = {
    "matmul": _matmul, "outer": _outer, "scale": _scale, "vdot": _vdot, "sum": _sum,
    "spread": _spread, "addto": _addto, "copy": _copy,
}
assert set(_EXPANSIONS) == {r for r, d in OPS.items() if d.lower == ("loops",)}
