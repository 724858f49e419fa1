"""Frontend, `np.linalg.norm` with NumPy's meaning (vector norms over one axis, matrix norms
over two): reductions of elementwise expressions, so they fuse and differentiate like
them."""
from __future__ import annotations

import ast
import math

from ..errors import PyadTypeError
from ..ir.nodes import F64, Var


class Norms:
    """np.linalg.norm; one per function body."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def _check(self, node, args, kw, n: tuple, allowed: tuple) -> None:
        self.lw.numpyfuncs.check(node, args, kw, n, allowed)

    def norm(self, node: ast.Call, args: list, kw: dict):
        """np.linalg.norm(x, ord=None, axis=None, keepdims=False), NumPy's meaning: without
        `ord` and `axis`, the 2-norm of all elements; a vector norm over one axis (or of a 1-D
        x): ord 2, 1, np.inf, -np.inf, 0 (the count of non-zeros) or any other p
        (`sum(|x|**p)**(1/p)`); a matrix norm over two axes (or of a 2-D x with an ord):
        'fro', 1 and -1 (largest and smallest column sum of magnitudes), np.inf and -np.inf
        (rows), 2, -2 and 'nuc' (from the singular values: np.linalg.svd's row)."""
        self._check(node, args, kw, (1, 2, 3), ("ord", "axis", "keepdims"))
        ops, ctx = self.lw.arrayops, self.ctx
        ord_node = node.args[1] if len(args) >= 2 else kw.get("ord")
        order = None if ord_node is None else self._ord(ord_node)
        if order is None:
            ord_node = None   # ord=None spelled out, or a helper's parameter: the default
        if len(args) == 3:
            kw = {**kw, "axis": node.args[2]}
        axes, keepdims = ops._axis({k: v for k, v in kw.items() if k != "ord"}, node,
                                   args[:1])
        x = args[0]
        nd = len(ops.lift(x).dims)
        if axes is None and order is not None:
            if nd not in (1, 2):
                raise ctx.error(node, "np.linalg.norm with an ord and no axis takes a 1-D or "
                                "2-D array (NumPy: improper number of dimensions)",
                                cls=PyadTypeError)
            axes = tuple(range(nd))
        if axes is None:
            return self._vector_norm(x, None, None, keepdims, node)
        axes = tuple(k % nd for k in axes) if nd else axes
        if len(axes) == 1:
            return self._vector_norm(x, order, axes, keepdims, node)
        if len(axes) != 2:
            raise ctx.error(node, "np.linalg.norm takes one axis (vector norms) or two "
                            "(matrix norms)", cls=PyadTypeError)
        return self._matrix_norm(x, order, axes, keepdims, ord_node or node, node)

    def _ord(self, node: ast.expr):
        """The constant `ord` of a norm: a number (np.inf and -np.inf included) or a
        string."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self._ord(node.operand)
            if isinstance(v, str):
                raise self.ctx.error(node, "ord must be a number or 'fro'")
            return -v
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)):
            return node.value
        if isinstance(node, (ast.Attribute, ast.Name)) and not self.ctx.is_local(node):
            v = self.ctx.resolve_static(node).obj
            if isinstance(v, (int, float)):
                return v
        return self.lw.arrayops.constant_arg(node, (int, float, str, type(None)),
                                             "ord must be a constant number or string")

    def _vector_norm(self, x, order, axes, keepdims: bool, node: ast.Call):
        ops, ctx = self.lw.arrayops, self.ctx
        b = ctx.b
        mag = lambda: ops.elementwise(lambda e: ctx.b.abs(ctx.convert(e, F64)), [x], node)  # noqa
        if order in (None, 2):
            sq = ops.elementwise(lambda e: ctx.b.mul(*(2 * [ctx.convert(e, F64)])), [x], node)
            total = ops.reduce("sum", sq, axes, node, keepdims)
            return ops.elementwise(self.lw.numpyfuncs.root, [total], node)
        if isinstance(order, str):
            raise ctx.error(node, f"ord={order!r} is a matrix norm: give two axes or a 2-D "
                            "array", cls=PyadTypeError)
        if order == 1:
            return ops.reduce("sum", mag(), axes, node, keepdims)
        if order == math.inf:   # NumPy: abs(x).max(initial=0), so an empty x gives 0.0
            return ops.reduce("max", mag(), axes, node, keepdims, init=b.const(0.0))
        if order == -math.inf:
            return ops.reduce("min", mag(), axes, node, keepdims)
        if order == 0:
            def nonzero(e):
                bb = ctx.b
                return bb.select(bb.ne(ctx.convert(e, F64), bb.const(0.0, F64)),
                                 bb.const(1.0, F64), bb.const(0.0, F64))
            nz = ops.elementwise(nonzero, [x], node)
            return ops.reduce("sum", nz, axes, node, keepdims)
        p = b.const(float(order), F64)
        powered = ops.elementwise(
            lambda e: ctx.b.emit("pow", ctx.b.abs(ctx.convert(e, F64)), p), [x], node)
        total = ops.reduce("sum", powered, axes, node, keepdims)
        inv = b.const(1.0 / float(order), F64)

        def root(t: Var) -> Var:   # as numpyfuncs.root: derivative 0 at a zero vector
            bb = ctx.b
            if order < 0:
                return bb.emit("pow", t, inv)
            zero = bb.eq(t, bb.const(0.0))
            return bb.select(zero, bb.const(0.0),
                             bb.emit("pow", bb.select(zero, bb.const(1.0), t), inv))
        return ops.elementwise(root, [total], node)

    def _spectral(self, x, order, axes, keepdims: bool, node: ast.Call):
        """The largest (ord 2) or smallest (-2) singular value, or their sum ('nuc'), of a
        2-D x or of each matrix of a 3-D x over its last two axes (np.linalg.svd's rows)."""
        ops = self.lw.arrayops
        a = self.lw.arrays.array(ops.materialize(x), node)
        nd = len(self.lw.arrays.dims(a))
        if nd == 3 and set(axes) != {1, 2}:
            raise self.ctx.error(node, f"the matrix norm ord={order!r} of a 3-D array is "
                                 "taken over its last two axes here", cls=PyadTypeError,
                                 hint="move the matrix axes last with np.moveaxis")
        s = self.lw.linalg.call("svdvals", node, [a], {})
        kind = {2: "max", -2: "min", "nuc": "sum"}[order]
        out = ops.reduce(kind, s, (nd - 2,), node, keepdims)
        if keepdims:   # both matrix axes kept, of size 1
            out = self.lw.indexing.expand(ops.materialize(out), nd - 1, node)
        return out

    def _matrix_norm(self, x, order, axes, keepdims: bool, at: ast.AST, node: ast.Call):
        ops, ctx = self.lw.arrayops, self.ctx
        if order in (None, "fro"):
            return self._vector_norm(x, None, axes, keepdims, node)
        if order in (2, -2, "nuc"):
            return self._spectral(x, order, axes, keepdims, node)
        if order not in (1, -1, math.inf, -math.inf):
            raise ctx.error(at, f"ord={order!r} is not a matrix norm (1, -1, np.inf, -np.inf, "
                            "'fro')")
        row, col = axes
        first, then = (row, col) if order in (1, -1) else (col, row)   # summed, then picked
        mag = ops.elementwise(lambda e: ctx.b.abs(ctx.convert(e, F64)), [x], node)
        sums = ops.reduce("sum", mag, (first,), node, keepdims)
        if not keepdims and first < then:
            then -= 1
        return ops.reduce("max" if order > 0 else "min", sums, (then,), node, keepdims)
