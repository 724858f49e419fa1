"""Frontend, NumPy functions composed from the whole-array operations of arrayops.py and
the views of indexing.py: `np.var`, `np.std` (axis, keepdims, ddof), `np.cumsum`,
`np.cumprod` (1-D, or along an axis), `np.diff` (n, axis), `np.clip`, `np.roll` (1-D, or
along an axis), `np.trace`, `np.inner` (1-D), `np.logaddexp`. Their gradients come from
what they are made of; `np.logaddexp` is written so that its derivative is exact at ties
(m + log(exp(a - m) + exp(b - m)), the max cancelling)."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.loops import for_range, while_loop
from ..ir.nodes import BOOL, F64, I64, Var, ndim_of
from .context import Lazy


class NumpyFunctions:
    """See the module docstring; one per function body."""

    NAMES = ("var", "std", "cumsum", "cumprod", "diff", "clip", "roll", "trace", "inner",
             "logaddexp", "reshape", "ravel", "flatten", "argmax", "argmin", "argsort", "sort",
             "searchsorted")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, name: str, node: ast.Call, args: list, kw: dict):
        return getattr(self, name)(node, args, kw)

    # ------------------------------------------------------------------ helpers
    def _check(self, node, args, kw, n: tuple, allowed: tuple) -> None:
        extra = set(kw) - set(allowed)
        if extra:
            raise self.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")
        if len(args) not in n:
            raise self.ctx.error(node, f"np.{node.func.attr} takes {' or '.join(map(str, n))} "
                                 "positional arguments here", cls=PyadTypeError)

    def _const(self, kw: dict, key: str, default, types: tuple, what: str):
        if key not in kw:
            return default
        return self.lw.arrayops.constant_arg(kw[key], types, f"{key} must be {what}")

    def _axis_of(self, a: Var, axis, node) -> int:
        nd = ndim_of(a.type)
        if axis is None:
            if nd != 1:
                raise self.ctx.error(node, f"np.{node.func.attr} of a {nd}-D array needs an "
                                     "axis here (pyad does not flatten)", cls=PyadTypeError)
            return 0
        if not -nd <= axis < nd:
            raise self.ctx.error(node, f"axis {axis} is out of bounds for a {nd}-D array",
                                 cls=PyadTypeError)
        return axis % nd

    # ------------------------------------------------------------------ statistics
    def var(self, node: ast.Call, args: list, kw: dict, root: bool = False):
        self._check(node, args, kw, (1,), ("axis", "keepdims", "ddof"))
        ops = self.lw.arrayops
        axes, keepdims = ops._axis({k: v for k, v in kw.items() if k != "ddof"}, node, args)
        ddof = self._const(kw, "ddof", 0, (int,), "a constant integer")
        a = ops.materialize(args[0])
        mean = ops.reduce("mean", a, axes, node, keepdims=True)
        d = ops.binop(ast.Sub(), a, mean, node)
        sq = ops.binop(ast.Mult(), d, d, node)
        total = ops.reduce("sum", sq, axes, node, keepdims=keepdims)
        b = self.ctx.b
        dims = self.lw.arrays.dims(self.lw.arrays.array(a, node))
        count = self._product([dims[k % len(dims)] for k in
                               (axes if axes is not None else range(len(dims)))])
        n = b.tofloat(b.sub(count, b.const(ddof, I64)))
        out = ops.binop(ast.Div(), total, n, node)
        if root:
            return ops.elementwise(lambda x: self.ctx.b.sqrt(x), [out], node)
        return out

    def std(self, node: ast.Call, args: list, kw: dict):
        return self.var(node, args, kw, root=True)

    # ------------------------------------------------------------------ scans and differences
    def cumsum(self, node: ast.Call, args: list, kw: dict, op: str = "add") -> Var:
        self._check(node, args, kw, (1,), ("axis",))
        arrays = self.lw.arrays
        a = arrays.array(args[0], node.args[0] if node.args else node)
        axis = self._axis_of(a, self._const(kw, "axis", None, (int, type(None)),
                                            "a constant integer"), node)
        elem = F64 if a.type.startswith(F64) else I64
        lz = self.lw.arrayops.lift(a)
        dims = lz.dims
        out = arrays.new_array(elem, dims)
        others = [d for k, d in enumerate(dims) if k != axis]

        def line(idx: list[Var]) -> None:   # the scan along `axis` at the other indices
            b = self.ctx.b
            init = b.const(0 if op == "add" else 1, elem)

            def step(bb, i, acc):
                with self.ctx.emitting(bb):
                    full = idx[:axis] + [i] + idx[axis:]
                    v = bb.emit(op, acc[0], self.ctx.convert(lz.gen(full), elem))
                    bb.emit("store", out, *full, v)
                    return [v]
            for_range(b, dims[axis], [init], step)
        if others:
            self.lw.arrayops.each(others, line)
        else:
            line([])
        return out

    def cumprod(self, node: ast.Call, args: list, kw: dict) -> Var:
        return self.cumsum(node, args, kw, op="mul")

    def diff(self, node: ast.Call, args: list, kw: dict):
        """a[1:] - a[:-1] along `axis` (default the last), `n` times."""
        self._check(node, args, kw, (1, 2), ("n", "axis"))
        n = self._const(kw, "n", 1, (int,), "a constant integer") if len(args) == 1 else \
            self.lw.arrayops.constant_arg(node.args[1], (int,), "n must be a constant integer")
        a = self.lw.arrays.array(args[0], node.args[0])
        nd = ndim_of(a.type)
        axis = self._const(kw, "axis", -1, (int,), "a constant integer")
        if not -nd <= axis < nd or n < 0:
            raise self.ctx.error(node, "np.diff: bad axis or n", cls=PyadTypeError)
        axis %= nd
        ix = self.lw.indexing
        for _ in range(n):
            items = [ast.Slice() for _ in range(axis)]
            hi = ix.general_view(a, items + [ast.Slice(lower=ast.Constant(1))], node)
            lo = ix.general_view(a, items + [ast.Slice(upper=ast.Constant(-1))], node)
            a = self.lw.arrayops.materialize(self.lw.arrayops.binop(ast.Sub(), hi, lo, node))
        return a

    # ------------------------------------------------------------------ elementwise
    def clip(self, node: ast.Call, args: list, kw: dict):
        self._check(node, args, kw, (3,), ())
        fn = self.lw.arrayops.function
        return fn("minimum", node, [fn("maximum", node, args[:2]), args[2]])

    def logaddexp(self, node: ast.Call, args: list, kw: dict):
        self._check(node, args, kw, (2,), ())
        ops, ctx = self.lw.arrayops, self.ctx

        def f(x, y):
            b = ctx.b
            x, y = ctx.convert(x, F64), ctx.convert(y, F64)
            m = b.max(x, y)
            return b.add(m, b.log(b.add(b.exp(b.sub(x, m)), b.exp(b.sub(y, m)))))
        return ops.elementwise(f, args, node)

    def ufunc_method(self, node: ast.Call):
        """`np.logaddexp.reduce(a, axis=0)`: m + log(sum(exp(a - m))) with m the maximum
        along the axis, held constant for the gradient (its derivative cancels exactly: the
        gradient is the softmax); an infinite m is replaced by 0. Other ufunc methods are
        refused, naming the function to write."""
        ufunc = node.func.value
        name = getattr(self.ctx.resolve_static(ufunc).obj, "__name__", "?")
        spelled = f"np.{name}.{node.func.attr}"
        instead = {"add": "np.sum(a, axis=0)", "multiply": "np.prod(a, axis=0)",
                   "maximum": "np.max(a, axis=0)", "minimum": "np.min(a, axis=0)"}
        if name != "logaddexp" or node.func.attr != "reduce":
            hint = f"write {instead[name]}" if node.func.attr == "reduce" and name in instead \
                else "pyad has np.logaddexp.reduce of the ufunc methods"
            if name == "add" and node.func.attr == "accumulate":
                hint = "write np.cumsum(a, axis=0)"
            raise self.ctx.error(node.func, f"{spelled} is not supported", hint=hint)
        args = [self.lw.exprs.expr(a) for a in node.args]
        kw = {k.arg: k.value for k in node.keywords}
        self._check(node, args, kw, (1, 2), ("axis", "keepdims"))
        ops, ctx = self.lw.arrayops, self.ctx
        a = ops.materialize(ops.elementwise(lambda x: ctx.convert(x, F64), args[:1], node))
        axis_src = node.args[1] if len(args) == 2 else kw.get("axis")
        axis = 0 if axis_src is None else ops.constant_arg(
            axis_src, (int,), "axis must be a constant integer")
        keepdims = bool(self._const(kw, "keepdims", False, (bool,), "True or False"))
        m = ops.reduce("max", a, (axis,), node, keepdims=True)

        def finite(x):   # m, held constant; 0 where it is infinite (or nan)
            b = ctx.b
            x = b.stopgrad(x)
            return b.select(b.eq(b.sub(x, x), b.const(0.0)), x, b.const(0.0))
        m = ops.materialize(ops.elementwise(finite, [m], node))
        e = ops.elementwise(lambda x, y: ctx.b.exp(ctx.b.sub(x, y)), [a, m], node)
        total = ops.reduce("sum", e, (axis,), node, keepdims=True)
        out = ops.elementwise(lambda s, y: ctx.b.add(ctx.b.log(s), y), [total, m], node)
        if keepdims:
            return out
        return self.lw.indexing.squeeze(ops.materialize(out), axis % ndim_of(a.type))

    def roll(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        self._check(node, args, kw, (2,), ("axis",))
        a = self.lw.arrays.array(args[0], node.args[0])
        axis = self._axis_of(a, self._const(kw, "axis", None, (int, type(None)),
                                            "a constant integer"), node)
        shift = self.lw.arrays.index_value(node.args[1])
        lz = self.lw.arrayops.lift(a)
        n = lz.dims[axis]

        def gen(idx):
            b = self.ctx.b
            k = b.mod(b.sub(idx[axis], shift), b.max(n, b.const(1, I64)))  # Python's mod
            return lz.gen(idx[:axis] + [k] + idx[axis + 1:])
        return Lazy(lz.elem, lz.dims, gen)

    # ------------------------------------------------------------------ products
    def trace(self, node: ast.Call, args: list, kw: dict) -> Var:
        self._check(node, args, kw, (1,), ())
        d = self.lw.creation.diag(node, args, {})
        return self.lw.arrayops.reduce("sum", d, None, node)

    def inner(self, node: ast.Call, args: list, kw: dict) -> Var:
        self._check(node, args, kw, (2,), ())
        a, c = (self.lw.arrays.array(x, n) for x, n in zip(args, node.args))
        if ndim_of(a.type) != 1 or ndim_of(c.type) != 1:
            raise self.ctx.error(node, "np.inner takes two 1-D arrays here", cls=PyadTypeError)
        return self.lw.arrayops.dot(a, c, node)

    # ------------------------------------------------------------------ norms
    # ------------------------------------------------------------------ shapes
    def reshape(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """A new array with a's elements in row-major order and the given shape (one
        dimension may be -1); NumPy may return a view, pyad always a new array."""
        self._check(node, args, kw, tuple(range(2, 9)), ())
        a = self.lw.arrays.array(args[0], node.args[0] if node.args else node)
        shape = list(args[1]) if len(args) == 2 and isinstance(args[1], tuple) else args[1:]
        b, ex = self.ctx.b, self.lw.exprs
        lz = self.lw.arrayops.lift(a)
        size = self._product(lz.dims)
        dims = [self.ctx.convert(ex.scalar(d, node), I64) for d in shape]
        if not 1 <= len(dims) <= 3:
            raise self.ctx.error(node, "arrays have 1 to 3 dimensions", cls=PyadTypeError)
        known = b.const(1, I64)
        minus = b.const(-1, I64)
        for d in dims:
            known = b.mul(known, b.select(b.eq(d, minus), b.const(1, I64), d))
        dims = [b.select(b.eq(d, minus), b.floordiv(size, b.max(known, b.const(1, I64))), d)
                for d in dims]
        b.emit("raise_if", b.ne(self._product(dims), size), attrs=(
            "ValueError", "cannot reshape the array into the requested shape"))
        return Lazy(lz.elem, dims, lambda idx: lz.gen(self._unravel(
            self._ravel(idx, dims), lz.dims)))

    def permute(self, name: str, node: ast.Call, args: list, kw: dict):
        """np.transpose(a, axes) (and a.transpose(*axes)), np.swapaxes(a, i, j),
        np.moveaxis(a, src, dst): the dimensions of `a` reordered. Reversing them (`a.T`,
        np.transpose(a)) is a view; another order of a 3-D array is a new array (NumPy's is
        a view: writing into pyad's result does not reach `a`)."""
        ops = self.lw.arrayops
        extra = set(kw) - ({"axes"} if name == "transpose" else set())
        if extra:
            raise self.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")
        a = self.lw.arrays.array(ops.materialize(args[0]), node)
        nd = ndim_of(a.type)
        given = node.args[len(node.args) - (len(args) - 1):]   # after the array (a method's
        consts = [self._axis_arg(x, node) for x in given]       # receiver is not in node.args)
        if name == "transpose":
            if "axes" in kw:
                consts = [ops.constant_arg(kw["axes"], (tuple, list, type(None)),
                                           "axes must be a constant tuple")]
            if len(consts) == 1 and isinstance(consts[0], (tuple, list)):
                consts = list(consts[0])
            if consts in ([], [None]):
                perm = list(range(nd))[::-1]
            else:
                perm = consts
        elif name == "swapaxes":
            if len(consts) != 2:
                raise self.ctx.error(node, "np.swapaxes takes an array and two axes",
                                     cls=PyadTypeError)
            i, j = (self._axis_of(a, k, node) for k in consts)
            perm = list(range(nd))
            perm[i], perm[j] = perm[j], perm[i]
        else:
            if len(consts) != 2 or not all(isinstance(k, int) for k in consts):
                raise self.ctx.error(node, "np.moveaxis takes an array and two int axes here",
                                     cls=PyadTypeError)
            src, dst = (self._axis_of(a, k, node) for k in consts)
            perm = [k for k in range(nd) if k != src]
            perm.insert(dst, src)
        if sorted(k % nd if isinstance(k, int) and -nd <= k < nd else -1 for k in perm) \
                != list(range(nd)) or len(perm) != nd:
            raise self.ctx.error(node, f"axes {tuple(perm)} do not match a {nd}-D array",
                                 cls=PyadTypeError)
        perm = [k % nd for k in perm]
        if perm == list(range(nd)):
            return a
        if perm == list(range(nd))[::-1]:
            return self.ctx.b.emit("transpose", a)
        lz = ops.lift(a)
        inverse = [perm.index(k) for k in range(nd)]
        return Lazy(lz.elem, [lz.dims[k] for k in perm],
                    lambda idx: lz.gen([idx[inverse[k]] for k in range(nd)]))

    def _axis_arg(self, node: ast.expr, at: ast.AST):
        return self.lw.arrayops.constant_arg(node, (int, tuple, list, type(None)),
                                             "axes must be constant integers")

    def ravel(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        self._check(node, args, kw, (1,), ())
        a = self.lw.arrays.array(args[0], node.args[0] if node.args else node)
        lz = self.lw.arrayops.lift(a)
        return Lazy(lz.elem, [self._product(lz.dims)],
                    lambda idx: lz.gen(self._unravel(idx[0], lz.dims)))

    flatten = ravel

    def _product(self, dims: list[Var]) -> Var:
        b = self.ctx.b
        total = b.const(1, I64)
        for d in dims:
            total = b.mul(total, d)
        return total

    def _ravel(self, idx: list[Var], dims: list[Var]) -> Var:
        b = self.ctx.b
        flat = idx[0]
        for i, d in zip(idx[1:], dims[1:]):
            flat = b.add(b.mul(flat, d), i)
        return flat

    def _unravel(self, flat: Var, dims: list[Var]) -> list[Var]:
        b = self.ctx.b
        out = []
        for d in reversed(dims[1:]):
            out.append(b.mod(flat, b.max(d, b.const(1, I64))))
            flat = b.floordiv(flat, b.max(d, b.const(1, I64)))
        return [flat] + list(reversed(out))

    # ------------------------------------------------------------------ positions
    def argmax(self, node: ast.Call, args: list, kw: dict, smaller: bool = False):
        """The index of the first largest (smallest) element: over the flattened array,
        or along the int `axis` (an int64 array)."""
        self._check(node, args, kw, (1,), ("axis",))
        a = self.lw.arrays.array(args[0], node.args[0] if node.args else node)
        axis = self._const(kw, "axis", None, (int, type(None)), "a constant integer")
        lz = self.lw.arrayops.lift(a)
        b = self.ctx.b
        nd = len(lz.dims)
        size = self._product(lz.dims)
        b.emit("raise_if", b.eq(size, b.const(0, I64)), attrs=(
            "ValueError", f"attempt to get {node.func.attr} of an empty sequence"))

        def scan(n: Var, at) -> Var:
            bb = self.ctx.b
            first = at(bb.const(0, I64))

            def step(b2, i, acc):
                with self.ctx.emitting(b2):
                    v = at(i)
                better = b2.lt(v, acc[0]) if smaller else b2.gt(v, acc[0])
                return [b2.select(better, v, acc[0]), b2.select(better, i, acc[1])]
            return for_range(bb, n, [first, bb.const(0, I64)], step, lo=bb.const(1, I64))[1]
        if axis is None:
            return scan(size, lambda i: lz.gen(self._unravel(i, lz.dims)))
        if not -nd <= axis < nd:
            raise self.ctx.error(node, f"axis {axis} is out of bounds for a {nd}-D array",
                                 cls=PyadTypeError)
        axis %= nd
        others = [d for k, d in enumerate(lz.dims) if k != axis]
        if not others:
            return scan(lz.dims[0], lambda i: lz.gen([i]))
        return Lazy(I64, others, lambda idx: scan(
            lz.dims[axis], lambda i: lz.gen(idx[:axis] + [i] + idx[axis:])))

    def argmin(self, node: ast.Call, args: list, kw: dict):
        return self.argmax(node, args, kw, smaller=True)

    # ------------------------------------------------------------------ sorting
    def _lanes(self, node: ast.Call, args: list, kw: dict) -> tuple[Var, int]:
        """The array and the axis (NumPy's default: the last) of np.sort / np.argsort."""
        self._check(node, args, kw, (1, 2), ("axis", "kind"))
        a = self.lw.arrays.array(args[0], node.args[0] if node.args else node)
        if "kind" in kw:
            kind = self._const(kw, "kind", "stable", (str,), "a string")
            if kind not in ("stable", "mergesort"):
                raise self.ctx.error(kw["kind"], f"kind={kind!r} is not supported", hint=(
                    "pyad sorts stably (kind='stable'); NumPy's default is not stable, so "
                    "argsort results may differ where elements are equal"))
        nd = ndim_of(a.type)
        if len(args) == 2:
            axis = self.lw.arrayops.constant_arg(node.args[1], (int, type(None)),
                                                 "axis must be a constant integer")
        else:
            axis = self._const(kw, "axis", -1, (int, type(None)), "a constant integer")
        if axis is None and nd != 1:
            raise self.ctx.error(node, f"np.{node.func.attr}(axis=None) of a {nd}-D array "
                                 "(a sort of the flattened array) is not supported",
                                 cls=PyadTypeError, hint="sort a.ravel()")
        return a, self._axis_of(a, 0 if axis is None else axis, node)

    def argsort(self, node: ast.Call, args: list, kw: dict) -> Var:
        """The stable order of each lane of `a` along `axis` (equal elements keep their
        order, as with kind="stable"), by insertion sort: O(n^2) comparisons per lane, no
        gradient (indices)."""
        a, axis = self._lanes(node, args, kw)
        b, arrays = self.ctx.b, self.lw.arrays
        dims = arrays.dims(a)
        n = dims[axis]
        idx = arrays.new_array(I64, dims)
        zero, one = b.const(0, I64), b.const(1, I64)

        def lane(outer: list[Var]) -> None:
            at = lambda i: outer[:axis] + [i] + outer[axis:]  # noqa: E731
            for_range(self.ctx.b, n, [],
                      lambda bb, i, _: (bb.emit("store", idx, *at(i), i), [])[1])

            def insert(bb, i, _):
                key = bb.emit("load", idx, *at(i))
                kv = bb.emit("load", a, *at(key))

                def cond(cb, w):
                    j = w[0]
                    safe = cb.max(j, zero)
                    after = cb.gt(cb.emit("load", a, *at(cb.emit("load", idx, *at(safe)))), kv)
                    return cb.select(cb.ge(j, zero), after, cb.const(False, BOOL))

                def shift(sb, w):
                    j = w[0]
                    sb.emit("store", idx, *at(sb.add(j, one)), sb.emit("load", idx, *at(j)))
                    return [sb.sub(j, one)]
                j = while_loop(bb, [bb.sub(i, one)], cond, shift)[0]
                bb.emit("store", idx, *at(bb.add(j, one)), key)
                return []
            for_range(self.ctx.b, n, [], insert, lo=one)

        others = dims[:axis] + dims[axis + 1:]
        if others:
            self.lw.arrayops.each(others, lane)
        else:
            lane([])
        return idx

    def sort(self, node: ast.Call, args: list, kw: dict) -> Lazy:
        """Each lane of `a` along `axis` in increasing order: a gather through argsort, so
        the gradient goes back through the permutation."""
        a, axis = self._lanes(node, args, kw)
        order = self.argsort(node, args, kw)
        lz = self.lw.arrayops.lift(a)

        def gen(idx):
            b = self.ctx.b
            k = b.emit("load", order, *idx)
            return b.emit("load", a, *idx[:axis], k, *idx[axis + 1:])
        return Lazy(lz.elem, lz.dims, gen)

    def searchsorted(self, node: ast.Call, args: list, kw: dict):
        """np.searchsorted(a, v, side="left"|"right") for a sorted 1-D `a` and a number or
        an array `v`: binary search (int64 results, no gradient)."""
        self._check(node, args, kw, (2,), ("side",))
        a = self.lw.arrays.array(args[0], node.args[0])
        if ndim_of(a.type) != 1:
            raise self.ctx.error(node, "np.searchsorted takes a 1-D sorted array",
                                 cls=PyadTypeError)
        side = self._const(kw, "side", "left", (str,), "'left' or 'right'")
        if side not in ("left", "right"):
            raise self.ctx.error(kw["side"], "side must be 'left' or 'right'")
        n = self.lw.arrays.dims(a)[0]

        def find(x: Var) -> Var:
            b = self.ctx.b
            x = self.ctx.convert(x, F64)   # compared as floats (exact below 2**53)

            def body(bb, w):
                lo, hi = w
                mid = bb.floordiv(bb.add(lo, hi), bb.const(2, I64))
                v = bb.emit("load", a, mid)
                v = v if v.type == F64 else bb.tofloat(v)
                right = bb.lt(v, x) if side == "left" else bb.le(v, x)
                return [bb.select(right, bb.add(mid, bb.const(1, I64)), lo),
                        bb.select(right, hi, mid)]
            return while_loop(b, [b.const(0, I64), n], lambda cb, w: cb.lt(w[0], w[1]),
                              body)[0]
        v = args[1]
        if not self.lw.arrayops.is_arrayish(v):
            return find(self.lw.exprs.scalar(v, node))
        lz = self.lw.arrayops.lift(v)
        return Lazy(I64, lz.dims, lambda idx: find(lz.gen(idx)))
