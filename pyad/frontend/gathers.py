"""Frontend, NumPy functions whose elements are reads of their arguments at computed
indices: `np.broadcast_to`, `np.take`, `np.take_along_axis`, `np.kron`. Each
is an elementwise `Lazy` (it fuses with the expression around it); its gradient is the
scatter-add the loads' adjoints make (repeated indices add up)."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.nodes import BOOL, I64, Var, elem_type, is_array, ndim_of
from .context import DynList, Lazy, PyList, arith, unify


class Gathers:
    """See the module docstring; one per function body."""

    NAMES = ("broadcast_to", "take", "take_along_axis", "kron")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, name: str, node: ast.Call, args: list):
        kw = {k.arg: k.value for k in node.keywords}
        allowed = {"take": {"axis", "mode"}, "take_along_axis": {"axis"}}.get(name, set())
        extra = set(kw) - allowed
        if extra:
            raise self.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")
        return getattr(self, name)(node, args, kw)

    def _nargs(self, node, args, n: int, what: str) -> None:
        if len(args) != n:
            raise self.ctx.error(node, f"np.{node.func.attr} takes {what}", cls=PyadTypeError)

    def _axis(self, kw: dict, node, args, nd: int, index: int, default):
        """The constant axis (keyword, or positional argument `index`), normalized."""
        ops = self.lw.arrayops
        src = kw.get("axis", node.args[index] if len(node.args) > index else None)
        if src is None:
            return default
        axis = ops.constant_arg(src, (int, type(None)), "axis must be a constant integer")
        if axis is None:
            return None
        if not -nd <= axis < nd:
            raise self.ctx.error(src, f"axis {axis} is out of bounds for a {nd}-D array",
                                 cls=PyadTypeError)
        return axis % nd

    # ------------------------------------------------------------------ the functions
    def broadcast_to(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """np.broadcast_to(a, shape): a new array (NumPy: a read-only view)."""
        self._nargs(node, args, 2, "an array and a shape")
        ops = self.lw.arrayops
        dims = self.lw.arrays.shape_arg(args[1], node.args[1])
        a = ops.materialize(args[0])
        return ops.viewing(ops.broadcast_to(ops.lift(a), dims, node), a, "np.broadcast_to(a, shape)")

    def take(self, node: ast.Call, args: list, kw: dict):
        """np.take(a, indices, axis): a[(:,) * axis + (indices,)]; without an axis, of
        the flattened array."""
        if len(args) not in (2, 3):
            raise self.ctx.error(node, "np.take takes an array, indices and an axis",
                                 cls=PyadTypeError)
        if "mode" in kw:
            raise self.ctx.error(kw["mode"], "np.take's mode is not supported (indices out "
                                 "of range raise IndexError)", hint="wrap them yourself with %")
        a = self.lw.arrays.array(args[0], node.args[0])
        nd = ndim_of(a.type)
        axis = self._axis(kw, node, args, nd, 2, None)
        if axis is None:   # the flattened array, as NumPy
            a, nd, axis = self._flat(a, node), 1, 0
        idx = self.lw.arrayops.materialize(args[1])
        if isinstance(idx, (PyList, DynList)):   # np.take(a, [0, 2])
            idx = self.lw.arrays.array(idx, node.args[1])
        b = self.ctx.b
        if not is_array(idx.type):   # a number: a[:, ..., i]
            i = self.lw.arrays.normalize(self.ctx.convert(idx, I64), b.emit(
                "dim", a, attrs=(axis,), type=I64), axis)
            if nd == 1:
                return b.emit("load", a, i)
            return b.emit("view", a, *self.lw.indexing.whole(self.lw.arrays.dims(a)[:axis]),
                          i, attrs=("s" * axis + "i",))
        items = [ast.Slice() for _ in range(axis)] + [node.args[1]]
        return self.lw.indexing.fancy(a, items, {id(node.args[1]): idx}, node)

    def take_along_axis(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """out[..., j, ...] = a[..., indices[..., j, ...], ...] along `axis`; the other
        axes of `a` and `indices` broadcast together."""
        if len(args) not in (2, 3):
            raise self.ctx.error(node, "np.take_along_axis takes an array, indices and an "
                                 "axis", cls=PyadTypeError)
        arrays, b = self.lw.arrays, self.ctx.b
        a = arrays.array(args[0], node.args[0])
        ind = arrays.array(args[1], node.args[1])
        axis = self._axis(kw, node, args, ndim_of(a.type), 2, "missing")
        if axis == "missing":
            raise self.ctx.error(node, "np.take_along_axis needs an axis here",
                                 cls=PyadTypeError)
        if axis is None:   # the flattened array, as NumPy
            a, axis = self._flat(a, node), 0
        nd = ndim_of(a.type)
        if ndim_of(ind.type) != nd or elem_type(ind.type) != I64:
            raise self.ctx.error(node.args[1], "the indices must be an int array with as many "
                                 "dimensions as the array", cls=PyadTypeError)
        da, di = arrays.dims(a), arrays.dims(ind)
        one = b.const(1, I64)
        dims = []
        for k in range(nd):
            if k == axis:
                dims.append(di[k])
                continue
            bad = b.select(b.ne(da[k], di[k]), b.select(b.ne(da[k], one), b.ne(di[k], one),
                                                        b.const(False, BOOL)),
                           b.const(False, BOOL))
            b.emit("raise_if", bad, attrs=("ValueError", "shape mismatch: the array and the "
                                           "indices could not be broadcast together"))
            dims.append(b.select(b.eq(da[k], one), di[k], da[k]))

        def gen(idx: list[Var]) -> Var:
            bb = self.ctx.b
            z = bb.const(0, I64)
            at_i = [i if k == axis else bb.select(bb.eq(di[k], bb.const(1, I64)), z, i)
                    for k, i in enumerate(idx)]
            j = arrays.normalize(bb.emit("load", ind, *at_i), da[axis], axis)
            at_a = [j if k == axis else bb.select(bb.eq(da[k], bb.const(1, I64)), z, i)
                    for k, i in enumerate(idx)]
            return bb.emit("load", a, *at_a)
        return Lazy(elem_type(a.type), dims, gen)

    def _flat(self, a: Var, node: ast.Call) -> Var:
        """`a.ravel()` as a new array (`a` itself if 1-D)."""
        if ndim_of(a.type) == 1:
            return a
        return self.lw.arrayops.materialize(self.lw.numpyfuncs.flatten(node, [a], {}))

    def kron(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """np.kron(a, c): out[i * n + j] = a[i] * c[j] on every axis (the one with fewer
        dimensions gets leading axes of size 1, as NumPy does)."""
        self._nargs(node, args, 2, "two arrays")
        ops = self.lw.arrayops
        a, c = (ops.lift(ops.materialize(x)) for x in args)
        nd = max(len(a.dims), len(c.dims))
        if nd == 0:
            raise self.ctx.error(node, "np.kron takes arrays here", cls=PyadTypeError)
        one = self.ctx.b.const(1, I64)
        da = [one] * (nd - len(a.dims)) + a.dims
        dc = [one] * (nd - len(c.dims)) + c.dims
        b = self.ctx.b
        dims = [b.mul(x, y) for x, y in zip(da, dc)]

        def gen(idx: list[Var]) -> Var:
            bb = self.ctx.b
            ia = [bb.floordiv(i, n) for i, n in zip(idx, dc)]
            ic = [bb.mod(i, n) for i, n in zip(idx, dc)]
            return self.lw.exprs.binop(ast.Mult(), a.gen(ia[nd - len(a.dims):]),
                                       c.gen(ic[nd - len(c.dims):]), node)
        return Lazy(unify(arith(a.elem), arith(c.elem)), dims, gen)
