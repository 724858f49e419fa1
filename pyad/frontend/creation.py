"""Frontend, array creation beyond zeros/ones/full (arrays.py): `np.array` of numbers or
arrays, `np.eye`, `np.identity`, `np.arange`, `np.linspace`, `np.tril`, `np.triu`,
`np.diag`. Each builds a new array with element loops, or an elementwise `Lazy` (tril, triu,
diag of a matrix), so gradients flow through the stores and loads like any fill."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from . import dtypes, permute
from .context import DynList, RangeVal, SliceVal
from ..ir.loops import for_range
from ..ir.nodes import BOOL, F64, I64, Var, elem_type, ndim_of
from .context import Lazy

def _flatten(tree):
    if isinstance(tree, list):
        for t in tree:
            yield from _flatten(t)
    else:
        yield tree


class Creation:
    """`np.<name>(...)` for the names in NAMES; one per function body."""

    NAMES = ("array", "asarray", "eye", "identity", "arange", "linspace", "tril", "triu",
             "diag", "diagonal", "concatenate", "stack", "hstack", "vstack", "block")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def create(self, name: str, node: ast.Call):
        kw = {k.arg: k.value for k in node.keywords}
        if name in ("array", "asarray"):
            return self.array(node, kw)
        if name in ("concatenate", "stack", "hstack", "vstack"):
            return self.join(name, node, kw)
        if name == "block":
            return self.block(node, kw)
        ex = self.lw.exprs
        args = [ex.expr(a) for a in node.args]
        return getattr(self, name)(node, args, kw)

    # ------------------------------------------------------------------ helpers
    def _int(self, v, node: ast.AST) -> Var:
        v = self.lw.exprs.scalar(v, node)
        if v.type == F64:
            raise self.ctx.error(node, "expected an integer here", cls=PyadTypeError)
        return self.ctx.convert(v, I64)

    def _kwargs(self, node: ast.Call, kw: dict, allowed: tuple) -> None:
        extra = set(kw) - set(allowed)
        if extra:
            raise self.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")

    def _nargs(self, node: ast.Call, args: list, lo: int, hi: int, what: str) -> None:
        if not lo <= len(args) <= hi:
            raise self.ctx.error(node, f"np.{what} takes {lo if lo == hi else f'{lo} to {hi}'}"
                                 " positional arguments", cls=PyadTypeError)

    # ------------------------------------------------------------------ np.array
    def array(self, node: ast.Call, kw: dict):
        """np.array([...]) of numbers, of lists of numbers, or of equal-shape arrays; an
        array argument is copied (np.asarray: returned as it is)."""
        self._kwargs(node, kw, ("dtype",))
        if len(node.args) != 1:
            raise self.ctx.error(node, "np.array takes one list", cls=PyadTypeError)
        src = node.args[0]
        arrays = self.lw.arrays
        if not isinstance(src, (ast.List, ast.Tuple)):
            v = self.lw.arrayops.materialize(self.lw.exprs.expr(src))
            if isinstance(v, (DynList, RangeVal)):
                return arrays.array(v, src)
            if isinstance(v, tuple) and not isinstance(v, SliceVal):
                return self._stack(list(v), node, kw)
            a = arrays.array(v, src)
            return a if node.func.attr == "asarray" else arrays.copy_array(a)
        return self._stack([self._item(e) for e in src.elts], node, kw)

    def stacked(self, items: list, node: ast.AST) -> Var:
        """np.array(items) for a list value (numbers, tuples of them, or arrays)."""
        return self._stack(items, node, {})

    def _item(self, e: ast.expr):
        if isinstance(e, (ast.List, ast.Tuple)):
            return tuple(self._item(x) for x in e.elts)
        return self.lw.arrayops.materialize(self.lw.exprs.expr(e))

    def _stack(self, items: list, node: ast.AST, kw: dict) -> Var:
        """A new array whose rows are `items` (numbers, tuples of them, or arrays)."""
        b, arrays = self.ctx.b, self.lw.arrays
        if not items:   # NumPy's float64 (or the dtype given), of length 0
            elem = dtypes.dtype_kw(self.lw, _only_dtype(node), F64) if "dtype" in kw else F64
            return arrays.new_array(elem, [b.const(0, I64)])
        rows = [arrays.array(it, node) if isinstance(it, (DynList, RangeVal))
                else self._stack(list(it), node, kw) if isinstance(it, tuple)
                and not isinstance(it, SliceVal) else it for it in items]
        odd = next((r for r in rows if not isinstance(r, Var)), None)
        if odd is not None:   # a function, a string, None: NumPy would make an object array
            what = "a function" if callable(odd) or hasattr(odd, "node") else repr(odd)
            raise self.ctx.error(node, f"an array of items that are not numbers or arrays "
                                 f"({what})", cls=PyadTypeError,
                                 hint="pyad arrays hold numbers; for np.piecewise write "
                                 "np.where(cond, f(x), g(x)) or np.select")
        kinds = {r.type for r in rows}
        if len({ndim_of(t) for t in kinds}) != 1:
            raise self.ctx.error(node, "np.array of items with different shapes",
                                 cls=PyadTypeError)
        nd = ndim_of(rows[0].type) + 1
        if nd > 3:
            raise self.ctx.error(node, "arrays have 1 to 3 dimensions", cls=PyadTypeError)
        elem = F64 if any(elem_type(t) == F64 for t in kinds) else \
            I64 if any(elem_type(t) != BOOL for t in kinds) else BOOL
        if "dtype" in kw:
            elem = dtypes.dtype_kw(self.lw, _only_dtype(node), elem)
        inner = arrays.dims(rows[0]) if nd > 1 else []
        out = arrays.new_array(elem, [b.const(len(rows), I64)] + inner)
        for k, r in enumerate(rows):
            i = b.const(k, I64)
            if nd == 1:
                b.emit("store", out, i, arrays.scalar_for(r, elem, node))
            else:
                self.lw.arrayops.assign_into(b.emit("row", out, i), r, node)
        return out

    # ------------------------------------------------------------------ joining
    def join(self, name: str, node: ast.Call, kw: dict) -> Var:
        """np.concatenate(parts, axis=0), np.stack(parts, axis=0), np.hstack, np.vstack:
        `parts` a list or tuple (literal, or a tuple value) of arrays; a new array, each
        part copied into its view of it (sizes checked at run time: ValueError)."""
        self._kwargs(node, kw, ("axis",) if name in ("concatenate", "stack") else ())
        if len(node.args) != 1:
            raise self.ctx.error(node, f"np.{name} takes one list of arrays", cls=PyadTypeError)
        src = node.args[0]
        ex, arrays = self.lw.exprs, self.lw.arrays
        items = [ex.expr(e) for e in src.elts] if isinstance(src, (ast.List, ast.Tuple)) \
            else ex.expr(src)
        if isinstance(items, DynList):
            return self._stacked_list(name, items, kw, src, node)
        if not isinstance(items, (list, tuple)) or not items:
            raise self.ctx.error(src, f"np.{name} takes a non-empty list of arrays",
                                 cls=PyadTypeError)
        if name != "concatenate" and not any(self.lw.arrayops.is_arrayish(v) or isinstance(
                v, (list, tuple)) for v in items):   # numbers: NumPy's 0-D arrays
            if "axis" in kw and self.lw.arrayops.constant_arg(
                    kw["axis"], (int,), "axis must be a constant integer") not in (0, -1):
                raise self.ctx.error(node, "axis is out of bounds for a stack of numbers (a "
                                     "vector: axis 0 or -1)", cls=PyadTypeError)
            row = self.stacked(list(items), src)
            return self.lw.indexing.expand(row, 1, node) if name == "vstack" else row
        parts = [arrays.array(v, src) for v in items]
        axis = 0
        if "axis" in kw:
            axis = self.lw.arrayops.constant_arg(kw["axis"], (int, type(None)),
                                                 "axis must be a constant integer or None")
        if axis is None:   # np.concatenate(parts, axis=None): the parts flattened, joined
            if name != "concatenate":
                raise self.ctx.error(node, f"np.{name} takes an integer axis",
                                     cls=PyadTypeError)
            ops = self.lw.arrayops
            return self.concatenate([arrays.array(ops.materialize(self.lw.numpyfuncs.flat(
                ops.lift(p))), src) for p in parts], 0, node)
        if name == "vstack" and len({ndim_of(p.type) for p in parts}) > 1:
            # NumPy's np.atleast_2d of each part: a 1-D part is a row
            parts = [self.lw.indexing.expand(p, 0, node) if ndim_of(p.type) == 1 else p
                     for p in parts]
        if len({ndim_of(p.type) for p in parts}) != 1:
            raise self.ctx.error(src, "all the arrays must have the same number of dimensions",
                                 cls=PyadTypeError)
        nd = ndim_of(parts[0].type)
        if name == "stack" or (name == "vstack" and nd == 1):
            parts = [self.lw.indexing.expand(p, 0 if name == "vstack" else axis, node)
                     for p in parts]
        elif name == "hstack":
            axis = 0 if nd == 1 else 1
        nd = ndim_of(parts[0].type)
        if not -nd <= axis < nd:
            raise self.ctx.error(node, f"axis {axis} is out of bounds for {nd}-D arrays",
                                 cls=PyadTypeError)
        axis %= nd
        return self.concatenate(parts, axis, node)

    def block(self, node: ast.Call, kw: dict) -> Var:
        """np.block(nested lists of arrays): NumPy's rule. With lists nested d deep, every
        array gets leading axes of size 1 up to max(d, its ndim) dimensions; the innermost
        lists join their arrays along the last axis, the lists around them along the one
        before, and so on."""
        self._kwargs(node, kw, ())
        if len(node.args) != 1:
            raise self.ctx.error(node, "np.block takes one (nested) list of arrays",
                                 cls=PyadTypeError)
        tree = self._nested(node.args[0])
        depth = self._depth(tree, node)
        leaves = [v for v in _flatten(tree)]
        nd = max([depth] + [ndim_of(v.type) for v in leaves])

        def promoted(v: Var) -> Var:
            while ndim_of(v.type) < nd:
                v = self.lw.indexing.expand(v, 0, node)
            return v

        def join(t, level: int) -> Var:
            if not isinstance(t, list):
                return promoted(t)
            parts = [join(c, level + 1) for c in t]
            return self.concatenate(parts, nd - depth + level - 1, node)
        return join(tree, 1)

    def _nested(self, e: ast.expr):
        """The nested lists of `e` (list displays, or list values) with arrays as leaves."""
        if isinstance(e, ast.List):
            if not e.elts:
                raise self.ctx.error(e, "np.block takes non-empty lists", cls=PyadTypeError)
            return [self._nested(x) for x in e.elts]
        if isinstance(e, ast.Tuple):
            raise self.ctx.error(e, "np.block arranges blocks with lists, not tuples (as "
                                 "NumPy)", cls=PyadTypeError, hint="write [a, b] for (a, b)")
        v = self.lw.exprs.expr(e)
        if isinstance(v, (list, tuple)):
            raise self.ctx.error(e, "np.block: write the nested lists out, `[[A, B], [C, D]]`",
                                 cls=PyadTypeError)
        return self.lw.arrays.array(v, e)

    def _depth(self, tree, node: ast.AST) -> int:
        if not isinstance(tree, list):
            return 0
        depths = {self._depth(t, node) for t in tree}
        if len(depths) != 1:
            raise self.ctx.error(node, "np.block: list depths are mismatched (every array "
                                 "must be nested equally deep)", cls=PyadTypeError)
        return 1 + depths.pop()

    def _stacked_list(self, name: str, items: DynList, kw: dict, src: ast.AST,
                      node: ast.Call) -> Var:
        """np.stack(xs, axis=...) and np.vstack(xs) of a list of run-time length (its items
        are rows of one shape: a copy stacks them along axis 0; another axis is axis 0
        moved there)."""
        if name == "stack" and "axis" not in kw or name == "vstack" \
                and ndim_of(items.buf.type) == 2:
            return self.lw.lists.to_array(items)
        if name != "stack":
            raise self.ctx.error(src, f"np.{name} of a list of run-time length: only "
                                 "np.stack(xs, axis=...), np.vstack of 1-D items and "
                                 "np.array(xs) are supported", cls=PyadTypeError,
                                 hint="np.array(xs) gives the stacked array; reshape it")
        whole = self.lw.lists.to_array(items)
        k = self.lw.numpyfuncs.axis_of(whole, self.lw.arrayops.constant_arg(
            kw["axis"], (int,), "axis must be a constant integer"), node)
        perm = list(range(1, ndim_of(whole.type)))
        perm.insert(k, 0)
        return self.lw.arrayops.materialize(
            permute.reordered(self.lw, whole, perm, f"np.stack(xs, axis={k})"))

    def concatenate(self, parts: list[Var], axis: int, node: ast.AST) -> Var:
        b, arrays = self.ctx.b, self.lw.arrays
        dims = [arrays.dims(p) for p in parts]
        total = dims[0][axis]
        for d in dims[1:]:
            total = b.add(total, d[axis])
            for k in range(len(d)):
                if k != axis:
                    b.emit("raise_if", b.ne(d[k], dims[0][k]), attrs=(
                        "ValueError", "all the input array dimensions except for the "
                        "concatenation axis must match exactly"))
        elem = F64 if any(elem_type(p.type) == F64 for p in parts) else \
            I64 if any(elem_type(p.type) != BOOL for p in parts) else BOOL
        out = arrays.new_array(elem, [total if k == axis else d for k, d in enumerate(dims[0])])
        start, one = b.const(0, I64), b.const(1, I64)
        for p, d in zip(parts, dims):
            ops = self.lw.indexing.whole(dims[0][:axis])
            view = b.emit("view", out, *ops, start, d[axis], one, attrs=("s" * (axis + 1),))
            self.lw.arrayops.assign_into(view, p, node)
            start = b.add(start, d[axis])
        return out

    # ------------------------------------------------------------------ np.eye, np.identity
    def eye(self, node: ast.Call, args: list, kw: dict) -> Var:
        self._kwargs(node, kw, ("k", "dtype", "M"))
        self._nargs(node, args, 1, 2, "eye")
        b = self.ctx.b
        n = self._int(args[0], node)
        m = self._int(args[1], node) if len(args) > 1 else \
            self._int(self.lw.exprs.expr(kw["M"]), node) if "M" in kw else n
        k = self._int(self.lw.exprs.expr(kw["k"]), node) if "k" in kw else b.const(0, I64)
        elem = dtypes.dtype_kw(self.lw, _only_dtype(node), F64)
        b.emit("raise_if", b.lt(b.min(n, m), b.const(0, I64)),
               attrs=("ValueError", "negative dimensions are not allowed"))
        out = self.lw.arrays.new_array(elem, [n, m])
        one = b.const(1, elem) if elem != BOOL else b.const(True, BOOL)
        lo = b.max(b.neg(k), b.const(0, I64))      # rows i whose column i + k is in [0, m)
        hi = b.min(n, b.sub(m, k))
        for_range(b, hi, [], lambda bb, i, _: (bb.emit("store", out, i, bb.add(i, k), one),
                                               [])[1], lo=lo)
        return out

    def identity(self, node: ast.Call, args: list, kw: dict) -> Var:
        self._kwargs(node, kw, ("dtype",))
        self._nargs(node, args, 1, 1, "identity")
        return self.eye(node, args, kw)

    # ------------------------------------------------------------------ ranges
    def arange(self, node: ast.Call, args: list, kw: dict) -> Var:
        """np.arange(stop), (start, stop), (start, stop, step): int64 for ints, float64
        if any argument is a float or `dtype=float`."""
        self._kwargs(node, kw, ("dtype",))
        self._nargs(node, args, 1, 3, "arange")
        ex, b = self.lw.exprs, self.ctx.b
        vals = [ex.scalar(a, n) for a, n in zip(args, node.args)]
        elem = F64 if any(v.type == F64 for v in vals) else I64
        if "dtype" in kw:
            asked = dtypes.dtype_kw(self.lw, _only_dtype(node), elem)
            if asked not in (elem, F64):
                raise self.ctx.error(node, f"np.arange with dtype {asked} of these bounds",
                                     cls=PyadTypeError, hint="use dtype=float, or int bounds")
            elem = asked
        vals = [self.ctx.convert(v, elem) for v in vals]
        start, stop, step = ([b.const(0, elem)] + vals if len(vals) == 1 else vals)[:2] + \
            [vals[2] if len(vals) == 3 else b.const(1, elem)]
        b.emit("raise_if", b.eq(step, b.const(0, elem)),
               attrs=("ZeroDivisionError", "np.arange step is zero"))
        span = b.sub(stop, start)
        if elem == F64:
            n = b.toint(b.ceil(b.fdiv(span, step)))
        else:
            up = b.gt(step, b.const(0, I64))
            mag = b.select(up, step, b.neg(step))
            s = b.select(up, span, b.neg(span))
            n = b.floordiv(b.add(s, b.sub(mag, b.const(1, I64))), mag)
        n = b.max(n, b.const(0, I64))
        out = self.lw.arrays.new_array(elem, [n])

        def body(bb, i, _):
            v = bb.add(start, bb.mul(bb.tofloat(i) if elem == F64 else i, step))
            bb.emit("store", out, i, v)
            return []
        for_range(b, n, [], body)
        return out

    def linspace(self, node: ast.Call, args: list, kw: dict) -> Var:
        """np.linspace(start, stop, num=50, endpoint=True): start + i * step, the last
        element stop itself when endpoint."""
        self._kwargs(node, kw, ("num", "endpoint"))
        self._nargs(node, args, 2, 3, "linspace")
        ex, b = self.lw.exprs, self.ctx.b
        for a, n in zip(args[:2], node.args[:2]):
            if self.lw.arrayops.is_arrayish(a):
                raise self.ctx.error(n, "np.linspace takes numbers as start and stop here "
                                     "(not arrays)", cls=PyadTypeError, hint="for arrays "
                                     "a and b write a + (b - a) * np.linspace(0.0, 1.0, num)"
                                     "[:, None]")
        start, stop = (self.ctx.convert(ex.scalar(a, n), F64) for a, n in
                       zip(args[:2], node.args[:2]))
        num = self._int(args[2] if len(args) > 2 else ex.expr(kw["num"]) if "num" in kw
                        else b.const(50, I64), node)
        endpoint = True
        if "endpoint" in kw:
            endpoint = ast.literal_eval(kw["endpoint"]) if isinstance(
                kw["endpoint"], ast.Constant) else None
            if not isinstance(endpoint, bool):
                raise self.ctx.error(kw["endpoint"], "endpoint must be True or False")
        b.emit("raise_if", b.lt(num, b.const(0, I64)),
               attrs=("ValueError", "Number of samples must be non-negative"))
        div = b.sub(num, b.const(1, I64)) if endpoint else num
        step = b.fdiv(b.sub(stop, start), b.tofloat(b.max(div, b.const(1, I64))))
        out = self.lw.arrays.new_array(F64, [num])

        def body(bb, i, _):
            bb.emit("store", out, i, bb.add(start, bb.mul(bb.tofloat(i), step)))
            return []
        for_range(b, num, [], body)
        if endpoint:   # the last element is stop itself (when there are two or more)
            last = b.max(b.sub(num, b.const(1, I64)), b.const(1, I64))
            for_range(b, num, [], lambda bb, i, _: (bb.emit("store", out, i, stop), [])[1],
                      lo=last)
        return out

    # ------------------------------------------------------------------ triangles, diagonals
    def tril(self, node: ast.Call, args: list, kw: dict, upper: bool = False) -> Lazy:
        self._kwargs(node, kw, ("k",))
        self._nargs(node, args, 1, 2, "triu" if upper else "tril")
        a = args[0] if isinstance(args[0], Lazy) else self.lw.arrays.array(args[0], node.args[0])
        lz = self.lw.arrayops.lift(a)
        if len(lz.dims) < 2:   # a stack of matrices: its last two axes, as NumPy
            raise self.ctx.error(node, "np.tril and np.triu take an array of 2 or more "
                                 "dimensions here", cls=PyadTypeError)
        kv = args[1] if len(args) > 1 else self.lw.exprs.expr(kw["k"]) if "k" in kw else None
        k = self._int(kv, node) if kv is not None else self.ctx.b.const(0, I64)
        elem = lz.elem

        def gen(idx):
            b = self.ctx.b
            i, j = idx[-2:]
            keep = b.ge(b.sub(j, i), k) if upper else b.le(b.sub(j, i), k)
            zero = b.const(0, elem) if elem != BOOL else b.const(False, BOOL)
            return b.select(keep, lz.gen(idx), zero)
        return Lazy(elem, lz.dims, gen)

    def triu(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        return self.tril(node, args, kw, upper=True)

    def diag(self, node: ast.Call, args: list, kw: dict):
        """np.diag(v, k=0): the square matrix with v on its k-th diagonal (above the main
        one for k > 0, below for k < 0); np.diag(A, k=0): A's k-th diagonal (a new array;
        NumPy's is a read-only view)."""
        self._kwargs(node, kw, ("k",))
        self._nargs(node, args, 1, 2, "diag")
        b, arrays = self.ctx.b, self.lw.arrays
        kv = args[1] if len(args) > 1 else self.lw.exprs.expr(kw["k"]) if "k" in kw else None
        k = self._int(kv, node) if kv is not None else b.const(0, I64)
        a = arrays.array(args[0], node.args[0])
        if ndim_of(a.type) == 2:
            return self.diagonal_of(a, k, 0, 1)
        if ndim_of(a.type) != 1:
            raise self.ctx.error(node, "np.diag takes a 1-D or 2-D array", cls=PyadTypeError,
                                 hint="np.diagonal(a, offset, axis1, axis2) reads the "
                                 "diagonals of a 3-D array")
        zero = b.const(0, I64)
        r0, c0 = b.max(b.neg(k), zero), b.max(k, zero)
        n = arrays.dims(a)[0]
        size = b.add(n, b.add(r0, c0))
        out = arrays.new_array(elem_type(a.type), [size, size])
        for_range(b, n, [], lambda bb, i, _: (bb.emit(
            "store", out, bb.add(i, r0), bb.add(i, c0), bb.emit("load", a, i)), [])[1])
        return out

    def diagonal(self, node: ast.Call, args: list, kw: dict, what: str = "diagonal") -> Lazy:
        """np.diagonal(a, offset=0, axis1=0, axis2=1) (and a.diagonal(...)): the diagonal
        of the (axis1, axis2) planes as the last axis, the other axis first (a new array;
        NumPy's is a read-only view). `what`: the function called (np.trace's arguments
        are these)."""
        self._kwargs(node, kw, ("offset", "axis1", "axis2"))
        self._nargs(node, args, 1, 4, what)
        a = self.lw.arrays.array(args[0], node)
        nd = ndim_of(a.type)
        if nd < 2:
            raise self.ctx.error(node, f"np.{what} needs an array of at least 2 dimensions",
                                 cls=PyadTypeError)
        given = node.args[len(node.args) - (len(args) - 1):]   # after the array (a method's
        names = ("offset", "axis1", "axis2")                    # receiver is not in node.args)
        nodes = dict(zip(names, given)) | kw
        k = self._int(self.lw.exprs.expr(nodes["offset"]), node) if "offset" in nodes else \
            self.ctx.b.const(0, I64)
        nf = self.lw.numpyfuncs
        axes = [nf.axis_of(a, self.lw.arrayops.constant_arg(
            nodes[name], (int,), f"{name} must be a constant integer") if name in nodes
            else default, node) for name, default in (("axis1", 0), ("axis2", 1))]
        if axes[0] == axes[1]:
            raise self.ctx.error(node, f"np.{what} needs two different axes",
                                 cls=PyadTypeError)
        return self.diagonal_of(a, k, *axes)

    def diagonal_of(self, a: Var, k: Var, axis1: int, axis2: int) -> Lazy:
        """The elements a[..., i + max(-k, 0), ..., i + max(k, 0), ...] (i along the last
        axis of the result; the axes other than axis1 and axis2 first, in their order)."""
        b = self.ctx.b
        lz = self.lw.arrayops.lift(a)
        d = lz.dims
        zero = b.const(0, I64)
        r0, c0 = b.max(b.neg(k), zero), b.max(k, zero)
        n = b.max(b.min(b.sub(d[axis1], r0), b.sub(d[axis2], c0)), zero)
        others = [j for j in range(len(d)) if j not in (axis1, axis2)]

        def gen(idx):
            bb, i = self.ctx.b, idx[-1]
            full = [None] * len(d)
            for j, v in zip(others, idx[:-1]):
                full[j] = v
            full[axis1], full[axis2] = bb.add(i, r0), bb.add(i, c0)
            return lz.gen(full)
        return self.lw.arrayops.viewing(Lazy(lz.elem, [d[j] for j in others] + [n], gen), a,
                                        "np.diagonal(a)")


def _only_dtype(node: ast.Call) -> ast.Call:
    """`node` with only its dtype keyword (for dtypes.dtype_kw)."""
    return ast.Call(func=node.func, args=[], keywords=[k for k in node.keywords
                                                        if k.arg == "dtype"])
