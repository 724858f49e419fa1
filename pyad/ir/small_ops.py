"""Whole-array primitives of small arrays whose shapes are known at compile time become
element code: `np.dot(w, K)` of a (4,) and a (4, 3) array, `A @ s` of a 3x3 matrix and a
3-vector, `np.dot(s, s)`, `np.outer(u, v)`, `np.sum(p @ q)`, `s.copy()`.

A kernel call on a few elements costs more than the arithmetic (a descriptor, a call, an
allocation for the result), and, worse, a whole-array primitive keeps its arguments arrays:
the scalar replacement of small arrays (pyad/ir/scalarize.py) gives up on an array any
whole-array op reads, so an RK4 step whose stages are combined by `np.dot(w, K)`, or an ODE
state squared by `np.dot(s, s)` after its loop, kept its state in memory and taped every
intermediate value. As element code (loads and stores at constant indices, multiplies and
adds, loops of a few trips that scalarize unrolls), the arrays become scalars like the rest.

The rows lowered to loops after AD (`sum`, `vdot`, `outer`, `scale`, `copy`) get those same
loops here (pyad/ir/expand.py: the same order, so the same bits). The matrix product, a
kernel row, becomes for each element the sum over p of a[i, p] * b[p, j] in the order of p,
starting from 0.0: the kernel's order (runtime/pyad_matmul.c), without its fused
multiply-adds, so the last bits may differ from the same product of arrays of unknown
shape. Ops whose arrays all have at most `MAX_ELEMENTS` elements are expanded (products of
at most `MAX_PRODUCTS` multiplications); a mismatch of a product's inner dimensions is left
to the kernel (its ValueError).
"""
from __future__ import annotations

from .builder import Builder, names_of
from .expand import expand_op
from .nodes import F64, I64, Block, Func, If, Op, Var, While, is_array, ndim_of, rename_block
from .ops import OPS
from .shapes import Shape

MAX_ELEMENTS = 16    # elements of each array of an expanded op (scalarize.MAX_ELEMENTS)
MAX_PRODUCTS = 64    # multiplications of one expanded matrix product


def expand_small(func: Func, facts: dict[str, object]) -> Func:
    """`func` with its whole-array ops on small arrays of known shape as element code (the
    same Func if it has none)."""
    names = names_of(func)
    changed = False

    def block(b: Block) -> Block:
        nonlocal changed
        out = Builder(names)
        alias: dict[str, Var] = {}   # a number an expanded op made -> the value holding it
        for s in b.body:
            if alias:
                s = rename_block(Block((), (s,), ()), alias).body[0]
            out.loc = s.loc
            if isinstance(s, Op) and _small(s, facts):
                changed = True
                v = _matmul(s, facts, out) if s.op == "matmul" else expand_op(s, out)
                if s.outs and v is not s.outs[0]:
                    alias[s.outs[0].name] = v
            elif isinstance(s, If):
                out.stmts.append(If(s.outs, s.cond, block(s.then), block(s.orelse), s.loc))
            elif isinstance(s, While):
                out.stmts.append(While(s.outs, s.inits, block(s.cond), block(s.body), s.loc,
                                       s.note))
            else:
                out.stmts.append(s)
        return Block(b.params, tuple(out.stmts), tuple(alias.get(r.name, r) for r in b.results))

    new = block(func.block)
    return Func(func.name, new, func.filename, func.arg_names) if changed else func


def _dims(v: Var, facts: dict) -> tuple[int, ...] | None:
    fact = facts.get(v.name)
    return fact.dims if isinstance(fact, Shape) and len(fact.dims) == ndim_of(v.type) else None


def _small(s: Op, facts: dict) -> bool:
    """Whether `s` is a whole-array op (a product or a row lowered to loops) whose arrays all
    have known shapes of at most MAX_ELEMENTS elements."""
    if s.op != "matmul" and OPS[s.op].lower != ("loops",) or s.op in ("addto", "spread"):
        return False
    arrays = [v for v in s.args + s.outs if is_array(v.type)]
    dims = [_dims(v, facts) for v in s.args if is_array(v.type)]
    if any(d is None for d in dims) or not arrays:
        return False
    sizes = [_size(d) for d in dims]
    if s.op == "matmul":
        a, c = dims
        if a[-1] != c[0] or (a[0] if len(a) == 2 else 1) * _size(c) > MAX_PRODUCTS:
            return False   # a mismatch: the kernel raises the ValueError
        sizes.append(_size(a[:-1] + c[1:]))
    elif s.op == "outer":
        sizes.append(sizes[0] * sizes[1])
    return max(sizes) <= MAX_ELEMENTS


def _size(dims: tuple[int, ...]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _matmul(s: Op, facts: dict, b: Builder) -> Var:
    """`s` (a matmul of known small shapes) as sums of products; the value of its result."""
    a, c = s.args
    da, dc = _dims(a, facts), _dims(c, facts)
    rows = range(da[0]) if len(da) == 2 else [None]
    cols = range(dc[1]) if len(dc) == 2 else [None]
    k = da[-1]

    def at(*idx: int | None) -> list[Var]:
        return [b.const(i, I64) for i in idx if i is not None]

    def element(i: int | None, j: int | None) -> Var:
        acc = b.const(0.0, F64)
        for p in range(k):
            acc = b.add(acc, b.mul(b.emit("load", a, *at(i, p)), b.emit("load", c, *at(p, j))))
        return acc

    shape = da[:-1] + dc[1:]
    if not shape:
        return element(None, None)
    out = s.outs[0]
    b.stmts.append(Op((out,), "alloc", tuple(b.const(d, I64) for d in shape), (), b.loc))
    for i in rows:
        for j in cols:
            b.emit("store", out, *at(i, j), element(i, j), type="void")
    return out
