"""Frontend, arrays: indexing, element assignment, views, shapes, and array creation.
Whole-array arithmetic, math and reductions are in `pyad/frontend/arrayops.py`.

Indices are normalized by `normidx` (negative from the end, bounds-checked with the line of
the subscript); `a[i, j]` of a 2-D array is a `load`, `a[i]` of a 2-D array a `row` view,
`a[lo:hi]` a `slice` view, `a[:, j]` a `col` view.
"""
from __future__ import annotations

import ast

from . import dtypes, prelude, records
from .refusals import ATTRIBUTES_INSTEAD, INSTEAD
from ..pytree import NONE, Record
from ..ir.builder import Builder
from ..errors import PyadTypeError
from .context import Lazy, Static, location_of
from .context import ARRAY_LIKE, DynList, PyList, RangeVal, SliceVal
from ..ir.nodes import BOOL, F64, I64, Var, array_type, elem_type, is_array, ndim_of
from ..ir.loops import for_each

#: the largest global array frozen into compiled code (larger ones are passed as arguments)
MAX_CONSTANT_ELEMENTS = 1 << 16

#: array methods that change the array in place (a.sort() and a.fill() are supported)
_IN_PLACE_REFUSED = ("partition", "resize", "put", "itemset", "setfield", "byteswap", "setflags")
#: functions whose arguments from this position on are shapes, axes, counts or lists of
#: cases (a list there stays a list); the others take a list wherever NumPy takes an array
_SHAPE_ARGS = {"reshape": 1, "tile": 1, "repeat": 1, "broadcast_to": 1, "roll": 1,
               "transpose": 1, "swapaxes": 1, "moveaxis": 1, "zeros": 0, "ones": 0,
               "empty": 0, "full": 0, "select": 0, "unravel_index": 1, "split": 1,
               "array_split": 1, "hsplit": 1, "vsplit": 1, "dsplit": 1, "pad": 1,
               "percentile": 1, "quantile": 1}   # a list of q: one result each
_CREATE = ("zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
           "full_like", "copy")


def numpy_module(obj) -> str | None:
    """"" for the numpy module, "linalg." for numpy.linalg, None for anything else."""
    name = getattr(obj, "__name__", None) if isinstance(obj, type(ast)) else None
    return {"numpy": "", "numpy.linalg": "linalg."}.get(name)


class ArrayLowering:
    """Array expressions and statements (see the module docstring); one per function body."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx
        self.known: dict = {}   # id(index node) -> its value, lowered once by `index`

    # ------------------------------------------------------------------ helpers
    def array(self, v, node: ast.AST) -> Var:
        v = self.lw.arrayops.materialize(v)
        if isinstance(v, DynList):
            return self.lw.lists.to_array(v)
        if isinstance(v, RangeVal):
            return self.lw.iteration.range_array(v)
        if isinstance(v, PyList) and v:
            return self.lw.creation.stacked(list(v), node)
        if isinstance(v, Record):  # a container: stored into, or a method called
            raise records.not_an_array(self.ctx, v, node)
        if not (isinstance(v, Var) and is_array(v.type)):
            raise self.ctx.error(node, "expected an array here", cls=PyadTypeError)
        return v

    def dims(self, a: Var) -> list[Var]:
        return [self.ctx.b.emit("dim", a, attrs=(k,), type=I64)
                for k in range(ndim_of(a.type))]

    def index_value(self, node: ast.expr) -> Var:
        ex = self.lw.exprs
        v = self.known.pop(id(node), None)
        v = ex.scalar(v if v is not None else ex.expr(node), node)
        if v.type == F64:
            raise self.ctx.error(node, "array indices must be integers, not float",
                                 cls=PyadTypeError, hint="convert with int(...)")
        return self.ctx.convert(v, I64)

    def normalize(self, i: Var, n: Var, axis: int) -> Var:
        return self.ctx.b.emit("normidx", i, n, attrs=(axis,), type=I64)

    def subscript_items(self, sl: ast.expr, nd: int) -> list[ast.expr]:
        """The index items of `a[sl]` for an `nd`-D array, an Ellipsis (`a[...]`,
        `a[..., 0]`) written out as the whole slices it stands for."""
        items = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        dots = [k for k, it in enumerate(items)
                if isinstance(it, ast.Constant) and it.value is Ellipsis]
        if not dots:
            return items
        if len(dots) > 1:
            raise self.ctx.error(items[dots[1]], "an index can only have a single ellipsis "
                                 "('...')", cls=PyadTypeError)
        k = dots[0]
        rest = items[:k] + items[k + 1:]
        real = [it for it in rest if not self.lw.indexing.is_newaxis(it)]
        whole = [ast.copy_location(ast.Slice(), items[k])
                 for _ in range(max(0, nd - len(real)))]
        return items[:k] + whole + items[k + 1:]

    # ------------------------------------------------------------------ reading: a[...]
    def index(self, a: Var, node: ast.Subscript):
        """`a[...]`: an element (all dimensions indexed by ints) or a view: `row`, `col`
        and `slice` for a[i], a[:, j], a[lo:hi]; the general `view` for the rest of basic
        indexing (slices with steps on any axis, `None`/`np.newaxis`, ints after slices)."""
        items = self.subscript_items(node.slice, ndim_of(a.type))
        values = self.fancy_values(items)
        if values is not None:
            return self.lw.indexing.fancy(a, items, values, node)
        return self.basic_index(a, items, node)

    def basic_index(self, a: Var, items: list[ast.expr], node: ast.Subscript):
        """`a[items]` without index arrays, the items' values lowered by `fancy_values`
        (so a store's target `a[f(i), :]` evaluates `f(i)` once)."""
        nd = ndim_of(a.type)
        real = [it for it in items if not self.lw.indexing.is_newaxis(it)]
        if len(real) > nd:
            raise self.ctx.error(node, f"too many indices for a {nd}-D array",
                                 cls=PyadTypeError)
        if len(real) == len(items) == nd and not any(isinstance(it, ast.Slice) for it in items):
            idx = self.element_index(a, items)
            return self.ctx.b.emit("load", a, *idx)
        if len(real) < len(items) or any(isinstance(it, ast.Slice) and it.step is not None
                                         for it in items):
            return self.lw.indexing.general_view(a, items, node)
        view, axis = a, 0
        for pos, it in enumerate(items):
            if isinstance(it, ast.Slice):
                if axis == 0 and (it.lower is not None or it.upper is not None):
                    view = self.slice_view(view, it)
                elif it.lower is not None or it.upper is not None:
                    return self.lw.indexing.general_view(a, items, node)
                axis += 1
                continue
            i = self.index_value(it)
            if axis == 0:
                view = self.ctx.b.emit("row", view, self.normalize(i, self.dims(view)[0], pos))
            elif axis == 1 and ndim_of(view.type) == 2:
                view = self.ctx.b.emit("col", view, self.normalize(i, self.dims(view)[1], pos))
            else:
                return self.lw.indexing.general_view(a, items, node)
        return view

    def fancy_values(self, items: list[ast.expr]) -> dict | None:
        """The index items lowered once (by id): arrays materialized, when one is an array
        (integer-array or mask indexing); otherwise None, and `index_value` reads the
        lowered numbers from `known` instead of lowering them again."""
        ops = self.lw.arrayops
        values = {id(it): self.lw.exprs.expr(it) for it in items
                  if not isinstance(it, ast.Slice) and not self.lw.indexing.is_newaxis(it)}
        if len(items) == 1 and type(values.get(id(items[0]))) is tuple:
            # a[t] with t a tuple (np.nonzero(m), np.where(m), a tuple of ints) is a[t[0],
            # t[1], ...]: one item per element, each standing for its lowered value
            parts = values.pop(id(items[0]))
            items[:] = [ast.copy_location(ast.Name(f".item{k}", ast.Load()), items[0])
                        for k in range(len(parts))]
            values.update({id(it): v for it, v in zip(items, parts)})
        for k, it in enumerate(items):
            if isinstance(values.get(id(it)), SliceVal):   # a slice object: lo:hi:step
                items[k] = self._slice_item(it, values.pop(id(it)), values)
        for it in items:   # a list of indices (`a[[0, 2]]`) is an index array
            if id(it) in values and isinstance(values[id(it)], ARRAY_LIKE):
                values[id(it)] = self.array(values[id(it)], it)
        if any(ops.is_arrayish(v) for v in values.values()):
            return {k: ops.materialize(v) for k, v in values.items()}
        self.known = values
        return None

    def _slice_item(self, it: ast.expr, sl: SliceVal, values: dict) -> ast.Slice:
        """The item `start:stop:step` for the slice object `sl` (the value of `it`): its
        bounds are compiler names bound to their lowered values (also entered in
        `values`, read once; a view that reads a bound again finds the name)."""
        bounds = []
        for part in sl:
            if part is NONE:
                bounds.append(None)
                continue
            temp = self.ctx.temp("bound")
            self.ctx.env[temp] = part
            name = ast.copy_location(ast.Name(temp, ast.Load()), it)
            values[id(name)] = part
            bounds.append(name)
        return ast.copy_location(ast.Slice(*bounds), it)

    def element_index(self, a: Var, items: list[ast.expr]) -> list[Var]:
        dims = self.dims(a)
        return [self.normalize(self.index_value(it), dims[k], k) for k, it in enumerate(items)]

    def slice_view(self, a: Var, sl: ast.Slice) -> Var:
        """a[lo:hi] with Python's clamping: negative bounds count from the end."""
        b = self.ctx.b
        n = self.dims(a)[0]
        zero = b.const(0, I64)

        def bound(node, default):
            if node is None:
                return default
            v = self.index_value(node)
            v = b.select(b.lt(v, zero), b.add(v, n), v)
            return b.min(b.max(v, zero), n)

        lo = bound(sl.lower, zero)
        hi = b.max(bound(sl.upper, n), lo)
        return b.emit("slice", a, lo, hi)

    # ------------------------------------------------------------------ writing: a[...] = v
    def store(self, target: ast.Subscript, value) -> None:
        """`a[...] = value`: an element, or a whole view (value broadcast)."""
        ctx, ex = self.ctx, self.lw.exprs
        a = self.array(ex.expr(target.value), target.value)
        items = self.subscript_items(target.slice, ndim_of(a.type))
        ctx.b.loc = ctx.src.loc(target)
        values = self.fancy_values(items)
        if values is not None:   # a[idx] = value: a scatter
            self.lw.indexing.fancy_store(a, items, values, value, target)
            return
        if len(items) == ndim_of(a.type) and not any(isinstance(it, ast.Slice) for it in items):
            idx = self.element_index(a, items)
            v = self.scalar_for(value, elem_type(a.type), target)
            ctx.b.emit("store", a, *idx, v)
            return
        view = self.basic_index(a, items, target)  # a[i] = ..., a[lo:hi] = ..., a[:, j] = .
        self.lw.arrayops.assign_into(view, value, target)

    def aug_store(self, node: ast.AugAssign) -> None:
        """`a[...] += value`."""
        ctx, ex = self.ctx, self.lw.exprs
        t = node.target
        a = self.array(ex.expr(t.value), t.value)
        items = self.subscript_items(t.slice, ndim_of(a.type))
        values = self.fancy_values(items)
        if values is not None:   # gathered, combined, then scattered: repeats keep the last
            ix = self.lw.indexing
            current = ix.fancy(a, items, values, t)
            new = self.lw.arrayops.materialize(ex.binop(node.op, current, ex.expr(node.value),
                                                        node))
            ix.fancy_store(a, items, values, new, t)
            return
        if len(items) != ndim_of(a.type) or any(isinstance(it, ast.Slice) for it in items):
            current = self.basic_index(a, items, t)
            new = ex.binop(node.op, current, ex.expr(node.value), node)
            self.lw.arrayops.assign_into(current, new, t)
            return
        ctx.b.loc = ctx.src.loc(t)
        idx = self.element_index(a, items)
        current = ctx.b.emit("load", a, *idx)
        new = ex.binop(node.op, current, ex.expr(node.value), node)
        ctx.b.loc = ctx.src.loc(t)
        ctx.b.emit("store", a, *idx, self.scalar_for(new, elem_type(a.type), t))

    def scalar_for(self, v, t: str, node: ast.AST) -> Var:
        """`v` as an element of an array of element type `t`."""
        v = self.lw.exprs.scalar(v, node)
        if is_array(v.type):
            raise self.ctx.error(node, "cannot assign an array to an array element",
                                 cls=PyadTypeError)
        if v.type == F64 and t != F64:
            raise self.ctx.error(node, f"cannot store a float into a {t} array",
                                 cls=PyadTypeError, hint="convert with int(...) first")
        return self.ctx.convert(v, t)

    # ------------------------------------------------------------------ attributes
    def attribute(self, a: Var, node: ast.Attribute):
        b = self.ctx.b
        if node.attr == "shape":
            return tuple(self.dims(a))
        if node.attr == "ndim":   # known when compiling: `(1,) * (x.ndim - 1)` is a tuple
            v = b.const(ndim_of(a.type), I64)
            self.ctx.literals[v.name] = ndim_of(a.type)
            return v
        if node.attr == "size":
            return self.lw.numpyfuncs.product(self.dims(a))
        if node.attr == "T":
            return b.emit("transpose", a)
        message, hint = ATTRIBUTES_INSTEAD.get(node.attr, (
            f"unsupported array attribute `.{node.attr}`", "arrays support .shape, .size, "
            ".ndim, .T and the methods .copy(), .sum(), .mean(), .max(), .min(), .dot()"))
        raise self.ctx.error(node, message, hint=hint)

    # ------------------------------------------------------------------ calls
    def numpy_call(self, name: str, node: ast.Call):
        """`np.<name>(...)`: creation here; whole-array functions in arrayops."""
        if name in self.lw.creation.NAMES:
            return self.lw.creation.create(name, node)
        if name in self.lw.indexing.NAMES:
            return self.lw.indexing.function(name, node)
        if name in self.lw.einsum.NAMES:
            return self.lw.einsum.create(name, node)
        if name in prelude.NAMES:  # written in the compiled subset: a helper's call
            if name not in prelude.SEQUENCES and any(
                    isinstance(a, (ast.List, ast.ListComp)) or isinstance(a, ast.Name) and
                   isinstance(self.ctx.env.get(a.id), ARRAY_LIKE) for a in node.args):
                return self._with_lists_as_arrays(name, node)
            fn = getattr(prelude, name.replace(".", "_"))   # np.linalg.x: linalg_x
            return self.lw.calls.user_call(Static(fn, f"np.{name}"), node)
        if name in ("shape", "ndim", "size") and len(node.args) == 1 and not node.keywords:
            a = self.array(self.lw.exprs.expr(node.args[0]), node.args[0])   # np.shape(x)
            return self.attribute(a, ast.Attribute(node.args[0], name, ast.Load(),
                                                   **location_of(node)))
        if name in INSTEAD:   # refused before its arguments (np.piecewise's functions) are read
            self.lw.arrayops.function(name, node, [])
        args = [self.argument(a, name) for a in node.args]
        stop = _SHAPE_ARGS.get(name, len(args))
        args = [self.array(v, a) if k < stop and isinstance(v, ARRAY_LIKE) else v
                for k, (v, a) in enumerate(zip(args, node.args))]
        if name in _CREATE:
            return self.create(name, node, args)
        return self.lw.arrayops.function(name, node, args)

    def _with_lists_as_arrays(self, name: str, node: ast.Call):
        """np.<name>(...) of the prelude with its list arguments made arrays first (NumPy
        takes a list wherever it takes an array)."""
        ctx, temps = self.ctx, []
        args = []
        for a in node.args:
            tmp = ctx.temp("arg")
            v = self.lw.exprs.expr(a)
            ctx.env[tmp] = self.array(v, a) if isinstance(v, ARRAY_LIKE) else v
            temps.append(tmp)
            args.append(ast.Name(tmp, ast.Load(), **location_of(a)))
        try:
            return self.numpy_call(name, ast.Call(node.func, args, node.keywords,
                                                  **location_of(node)))
        finally:
            for tmp in temps:
                del ctx.env[tmp]

    def argument(self, a: ast.expr, name: str, strings: bool = True):
        """A positional argument of `np.<name>(...)` lowered; a string (np.linalg.norm's
        ord='fro') is read by the function itself, and so is np.clip's None bound."""
        if isinstance(a, ast.Constant) and ((strings and isinstance(a.value, str)) or (
                a.value is None and name == "clip")):
            return a.value
        return self.lw.exprs.expr(a)

    def method_call(self, node: ast.Call):
        """`a.copy()`, `a.sum(axis=...)`, ...: the numpy function applied to `a`."""
        ex = self.lw.exprs
        f = node.func
        a = ex.expr(f.value)
        if f.attr == "item" and not node.args and not node.keywords \
                and not self.lw.arrayops.is_arrayish(a):
            return ex.scalar(a, f.value)   # np.sum(x).item(), x[0].item(): the number itself
        a = self.array(a, f.value)
        if f.attr in ("copy", "tolist"):
            if node.args or node.keywords:
                raise self.ctx.error(node, f"a.{f.attr}() takes no arguments", cls=PyadTypeError)
            return self.copy_array(a) if f.attr == "copy" else self.lw.lists.of_array(a, node)
        if f.attr in ("append", "extend", "pop", "insert", "remove"):
            raise self.ctx.error(node.func, f"an array has no method `{f.attr}` (a list made "
                                 "of new lists, `[[...] for ...]`, holds them as array rows)",
                                 cls=PyadTypeError, hint="build each row completely before "
                                 "it goes into the list, or use np.concatenate")
        if f.attr in _IN_PLACE_REFUSED:
            raise self.ctx.error(node.func, f"a.{f.attr}() changes the array in place, which "
                                 "pyad does not support", hint="assign the new values into "
                                 "the array: a[...] = ...")
        if f.attr == "astype":   # a.astype(float), a.astype(np.int64): a converted copy
            if len(node.args) != 1 or node.keywords:
                raise self.ctx.error(node, "a.astype() takes one dtype here", cls=PyadTypeError)
            elem = dtypes.dtype_of(self.lw, node.args[0])
            return self.lw.arrayops.elementwise(lambda x: self.ctx.convert(x, elem), [a],
                                                node)
        args = [a] + [self.argument(x, f.attr, strings=False) for x in node.args]
        if f.attr == "fill":      # a.fill(v): every element becomes v; returns None
            if len(args) != 2 or node.keywords:
                raise self.ctx.error(node, "a.fill() takes one value", cls=PyadTypeError)
            self.lw.arrayops.assign_into(a, args[1], node)
            return self.ctx.b.const(0, I64)   # None: an expression statement drops it
        if f.attr == "diagonal":
            return self.lw.creation.diagonal(node, args, {k.arg: k.value for k in
                                                          node.keywords})
        if f.attr == "squeeze":
            return self.lw.indexing.function("squeeze", node, a)
        if f.attr == "item" and not node.keywords and len(args) == 1:
            return self.item(a)
        spelled = ast.Call(func=f, args=[f.value, *node.args], keywords=node.keywords)
        self.ctx.pinned.append(ast.copy_location(spelled, node))   # read as np.x(a, ...)
        result = self.lw.arrayops.function(f.attr, spelled, args, method=True)
        if f.attr == "sort":      # a.sort(): sorts a in place; returns None
            self.lw.arrayops.assign_into(a, result, node)
            return self.ctx.b.const(0, I64)
        return result

    def item(self, a: Var) -> Var:
        """a.item(): the one element of an array of size 1 (ValueError otherwise)."""
        b = self.ctx.b
        size = self.lw.numpyfuncs.product(self.dims(a))
        b.emit("raise_if", b.ne(size, b.const(1, I64)), attrs=(
            "ValueError", "can only convert an array of size 1 to a Python scalar"))
        return b.emit("load", a, *[b.const(0, I64)] * ndim_of(a.type))

    # ------------------------------------------------------------------ creation
    def known_items(self, v, node: ast.AST, what: str = "a shape") -> list:
        """The items of `v` where their number must be known when compiling (a shape): a
        tuple's or list's items, those of a range of known bounds, or the one value."""
        if isinstance(v, RangeVal):
            known = self.ctx.literals
            if not all(b.name in known for b in v):
                raise self.ctx.error(node, f"{what} given as a range needs bounds known when "
                                     "compiling", cls=PyadTypeError, hint="give a tuple of ints")
            return [self.lw.exprs.constant(k, node) for k in range(*(known[b.name] for b in v))]
        if isinstance(v, (DynList, SliceVal)):
            raise self.ctx.error(node, f"{what} is a tuple (its length known when compiling)",
                                 cls=PyadTypeError)
        return list(v) if isinstance(v, tuple) else [v]

    def shape_arg(self, v, node: ast.AST) -> list[Var]:
        dims = self.known_items(v, node)
        if not 1 <= len(dims) <= 3:
            raise self.ctx.error(node, "arrays have 1 to 3 dimensions", cls=PyadTypeError)
        out = []
        for d in dims:
            d = self.lw.exprs.scalar(d, node)
            if d.type == F64 or is_array(d.type):
                raise self.ctx.error(node, "array dimensions must be integers",
                                     cls=PyadTypeError)
            out.append(self.ctx.convert(d, I64))
        return out

    def constant(self, obj, name: str, node: ast.AST) -> Var:
        """A global (or closure) NumPy array: its elements, as they are when the signature
        is compiled, become a read-only constant of the compiled code."""
        kind = obj.dtype.kind
        elem = F64 if kind == "f" and obj.dtype.itemsize <= 8 else BOOL if kind == "b" else \
            I64 if kind == "i" or (kind == "u" and obj.dtype.itemsize < 8) else None
        if elem is None or not 1 <= obj.ndim <= 3:
            raise self.ctx.error(node, f"the global array `{name}` ({obj.dtype}, {obj.ndim}-D) "
                                 "cannot be a constant of a compiled function", cls=PyadTypeError,
                                 hint="global arrays of 1 to 3 dimensions of floats, ints or "
                                 "bools are frozen as constants; pass others as arguments")
        if obj.size > MAX_CONSTANT_ELEMENTS:
            raise self.ctx.error(node, f"the global array `{name}` has {obj.size} elements, more "
                                 f"than the {MAX_CONSTANT_ELEMENTS} pyad freezes into compiled "
                                 "code", cls=PyadTypeError, hint="pass it as an argument")
        py = float if elem == F64 else bool if elem == BOOL else int
        values = tuple(py(v) for v in obj.ravel(order="C").tolist())
        return self.ctx.b.emit("constarray", attrs=(obj.ndim, *obj.shape, *values),
                               type=array_type(elem, obj.ndim), hint=name)

    def new_array(self, elem: str, dims: list[Var]) -> Var:
        return self.ctx.b.emit("alloc", *dims, type=array_type(elem, len(dims)))

    def fill(self, a: Var, value: Var) -> None:
        for_each(self.ctx.b, self.dims(a),
                 lambda bb, idx: bb.emit("store", a, *idx, value))

    def copy_array(self, src: Var, elem: str | None = None) -> Var:
        ctx = self.ctx
        elem = elem or elem_type(src.type)
        out = self.new_array(elem, self.dims(src))

        def body(bb: Builder, idx):
            v = bb.emit("load", src, *idx)
            with ctx.emitting(bb):
                v = ctx.convert(v, elem)
            bb.emit("store", out, *idx, v)
        for_each(ctx.b, self.dims(src), body)
        return out

    def create(self, name: str, node: ast.Call, args: list) -> Var | Lazy:
        """np.zeros/ones/empty/full(shape[, value]), the *_like forms (`np.full_like(a,
        value)`) and np.copy. Ones and fills are elementwise values (Lazy): an array only
        where one is needed (assigned and written, say)."""
        b = self.ctx.b
        if name in ("zeros", "ones", "empty", "full"):
            need = 2 if name == "full" else 1
            if len(args) != need:
                raise self.ctx.error(node, f"np.{name} takes {need} positional argument"
                                     f"{'s' if need > 1 else ''} here", cls=PyadTypeError)
            dims = self.shape_arg(args[0], node.args[0])
            if name == "full":
                value = self.lw.exprs.scalar(args[1], node.args[1])
                elem = dtypes.dtype_kw(self.lw, node, value.type)
            else:
                elem = dtypes.dtype_kw(self.lw, node, F64)
            if name == "ones":    # an elementwise value: fuses with what reads it
                one = b.const(1, elem) if elem != BOOL else b.const(True, BOOL)
                return Lazy(elem, dims, lambda idx: one)
            if name == "full":
                fill = self.scalar_for(value, elem, node)
                return Lazy(elem, dims, lambda idx: fill)
            return self.new_array(elem, dims)
        need = 2 if name == "full_like" else 1
        if len(args) != need:
            raise self.ctx.error(node, f"np.{name} takes {'an array and a value' if need > 1 else 'one array'} here",
                                 cls=PyadTypeError)
        src = self.array(args[0], node.args[0])
        if name == "copy":
            return self.copy_array(src)
        elem = dtypes.dtype_kw(self.lw, node, elem_type(src.type))
        if name == "ones_like":
            one = b.const(1, elem) if elem != BOOL else b.const(True, BOOL)
            return Lazy(elem, self.dims(src), lambda idx: one)
        if name == "full_like":
            fill = self.scalar_for(self.lw.exprs.scalar(args[1], node.args[1]), elem, node)
            return Lazy(elem, self.dims(src), lambda idx: fill)
        return self.new_array(elem, self.dims(src))
