"""Frontend, products: `np.dot`, `@` and `np.matmul` of 1-D, 2-D and 3-D arrays. The
product of two float vectors is the running sum of the elements' products, fused with the
loops of its operands (`np.dot(t, t)` of `t = x[1:] - x[:-1] ** 2` stores no `t`, and
differentiates like `np.sum(t * t)`); float matrices go to the op table's `matmul` kernel
row (array-level adjoint: pyad/ir/array_rows.py); ints are summed by loops here; stacks of
matrices (@, np.matmul) and np.dot with a 3-D operand are loops over the stack.
"""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.loops import for_range
from ..ir.nodes import BOOL, F64, I64, Var, elem_type, is_array, ndim_of
from .context import Lazy, arith, unify


class Products:
    """See the module docstring; one per function body."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx
        self.ops = lw.arrayops

    def dot(self, a, b, node: ast.AST, batched: bool = False):
        """np.dot / @ of 1-D and 2-D arrays; with `batched` (@ and np.matmul), 3-D arrays
        are stacks of matrices (NumPy's matmul)."""
        ctx, arrays = self.ctx, self.lw.arrays
        if not batched and any(isinstance(v, Var) and not is_array(v.type) for v in (a, b)):
            return self.ops.binop(ast.Mult(), a, b, node)   # np.dot of a number: the product
        la, lb = (self.ops.lift(v) if isinstance(v, Lazy) or isinstance(v, Var) and is_array(v.type)
                  else None for v in (a, b))
        if la and lb and len(la.dims) == len(lb.dims) == 1 and la.elem == lb.elem == F64:
            # two vectors: the running sum of the products, fused with the operands' loops
            ctx.b.emit("raise_if", ctx.b.ne(la.dims[0], lb.dims[0]), attrs=(
                "ValueError", "shapes are not aligned for np.dot / @"))
            return self.ops.reduce("sum", Lazy(F64, la.dims, lambda idx: ctx.b.mul(
                la.gen(idx), lb.gen(idx))), None, node)
        a = arrays.array(self.ops.materialize(a), node)
        b = arrays.array(self.ops.materialize(b), node)
        na, nb = ndim_of(a.type), ndim_of(b.type)
        if na > 2 and (batched or nb <= 2):   # np.dot is matmul here
            return self._batched(a, b, node)
        if nb > 2 and batched:
            return self._batched(a, b, node)
        if nb > 2 and na > 2:
            raise ctx.error(node, "np.dot of two 3-D arrays has 4 dimensions (pyad arrays "
                            "have at most 3)", cls=PyadTypeError,
                            hint="use @ (np.matmul) for stacks of matrices, np.einsum for "
                            "other contractions")
        if nb > 2:
            return self._dot_stack(a, b, node)
        if elem_type(a.type) == F64 and elem_type(b.type) == F64:
            return ctx.b.emit("matmul", a, b)
        da, db = arrays.dims(a), arrays.dims(b)
        k_a, k_b = da[-1], db[0]
        bl = ctx.b
        bl.emit("raise_if", bl.ne(k_a, k_b), attrs=("ValueError", "shapes are not aligned for "
                                                    "np.dot / @"))
        elem = unify(arith(elem_type(a.type)), arith(elem_type(b.type)))

        def inner(ia: list[Var], jb: list[Var]) -> Var:
            def body(bb, k, acc):
                with ctx.emitting(bb):
                    x = ctx.convert(bb.emit("load", a, *ia, k), elem)
                    y = ctx.convert(bb.emit("load", b, k, *jb), elem)
                    return [bb.add(acc[0], bb.mul(x, y))]
            return for_range(ctx.b, k_a, [ctx.b.const(0, elem)], body)[0]

        rdims = da[:-1] + db[1:]
        if not rdims:
            return inner([], [])
        out = arrays.new_array(elem, rdims)
        self.ops.each(rdims, lambda idx: ctx.b.emit(
            "store", out, *idx, inner(idx[:na - 1], idx[na - 1:])))
        return out

    def _dot_stack(self, a: Var, b: Var, node: ast.AST) -> Var:
        """np.dot(a, b) of a 1-D or 2-D `a` and a 3-D `b` (NumPy: the sum over a's last
        axis and b's second-to-last): for each index s of b's first axis, a @ b[s] goes to
        out[..., s, :] (out is (s, m) for a 1-D a, (n, s, m) for a 2-D one)."""
        ctx, arrays = self.ctx, self.lw.arrays
        bl = ctx.b
        s, m = arrays.dims(b)[0], arrays.dims(b)[2]
        elem = unify(arith(elem_type(a.type)), arith(elem_type(b.type)))
        lead = arrays.dims(a)[:-1]
        out = arrays.new_array(elem, lead + [s, m])
        zero, one = bl.const(0, I64), bl.const(1, I64)

        def body(bb, i, _):
            with ctx.emitting(bb):
                r = self.dot(a, ctx.b.emit("row", b, i), node)
                if lead:   # out[:, i, :]
                    dst = ctx.b.emit("view", out, zero, lead[0], one, i, attrs=("si",))
                else:
                    dst = ctx.b.emit("row", out, i)
                self.ops.assign_into(dst, r, node)
            return []
        for_range(bl, s, [], body)
        return out

    def _batched(self, a: Var, b: Var, node: ast.AST) -> Var:
        """a @ b with a 3-D operand: the product of the matrices at each index of the
        leading (stack) axis, which broadcasts (size 1, or a 2-D or 1-D operand, is the
        same matrix for every index); a 1-D operand is a vector as in the 2-D case. The
        products are the `matmul` primitive (float64) or element loops, one per index."""
        ctx, arrays = self.ctx, self.lw.arrays
        bl = ctx.b
        one, zero = bl.const(1, I64), bl.const(0, I64)
        stacks = [arrays.dims(x)[0] for x in (a, b) if ndim_of(x.type) == 3]
        n = stacks[0]
        if len(stacks) == 2:
            m = stacks[1]
            bl.emit("raise_if", bl.select(bl.ne(n, m), bl.select(bl.ne(n, one), bl.ne(m, one),
                                                                 bl.const(False, BOOL)),
                                          bl.const(False, BOOL)),
                    attrs=("ValueError", "matmul: the stack sizes could not be broadcast"))
            n = bl.select(bl.eq(n, one), m, n)

        def piece(x: Var, i: Var) -> Var:
            if ndim_of(x.type) != 3:
                return x
            return ctx.b.emit("row", x, ctx.b.select(ctx.b.eq(arrays.dims(x)[0], one), zero, i))
        da, db = (arrays.dims(x)[ndim_of(x.type) == 3:] for x in (a, b))
        elem = unify(arith(elem_type(a.type)), arith(elem_type(b.type)))
        out = arrays.new_array(elem, [n] + da[:-1] + db[1:])

        def body(bb, i, _):
            with ctx.emitting(bb):
                r = self.dot(piece(a, i), piece(b, i), node)
                self.ops.assign_into(ctx.b.emit("row", out, i), r, node)
            return []
        for_range(bl, n, [], body)
        return out
