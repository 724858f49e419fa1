"""Frontend, calls to library functions: every `math`, builtin and NumPy function that maps
onto an op is found through the op table's spellings (`OpDef.spell`: "math.exp",
"builtins.abs", "numpy.exp") and lowered by its form (`SPELLING_FORMS`, the one table of
spellings that are more than "the op applied to float arguments"). Adding `math.cbrt` and
`numpy.cbrt` is one row in pyad/ir/ops.py. `supported_functions()` lists them all for the docs.

A call is routed here (`call`): an array method or a `np.` function goes to the array
collaborators, a function of the user's (or `jit_grad`, `custom_vjp`, `stop_gradient`) to
calls.py, `len` and the spellings of the table are lowered here. `math.*` and `builtins.*`
spellings take numbers; `numpy.*` spellings apply elementwise (arrayops.py).
"""
from __future__ import annotations

import ast
import builtins
import functools
import math
from typing import Any

from . import prelude, records, special
from ..pytree import NONE, Record
from ..errors import PyadTypeError
from .arrays import numpy_module
from .context import PyList, RangeVal, SliceVal, Static, Value, arith, location_of, unify
from .lists import is_list
from .refusals import FUNCTIONS_INSTEAD, RANDOM_INSTEAD
from .closures import FuncRef, is_function
from ..ir.nodes import F64, I64, Var, is_array
from ..ir.ops import OPS, OpDef

_MODULES = {"math": math, "builtins": builtins}

#: How a spelling is lowered when its Python meaning is more than "convert the arguments to
#: float and apply the op" (the form of every spelling not listed: "float"). The row's arity
#: is the number of arguments unless the form says otherwise.
#:   arith     arguments promoted together (bools as ints; int and float give float): ints
#:             stay ints
#:   fold      2 or more arguments, promoted together, folded left:
#:             min(a, b, c) = min(min(a, b), c)
#:   nan_arith as arith; the row propagates nan (NumPy's maximum and minimum), ints use
#:             the int row of _INT_ROWS (Python's max and min)
#:   hypot     1 or more float arguments folded left; one argument gives abs
#:   log_base  math.log(x) or math.log(x, base) = log(x) / log(base)
#:   to_int    the op's float result converted to int (math.floor of an int is that int)
#:   convert   float(a), int(a), bool(a): the argument converted to the op's result type
#:   operator  as Python's operator: pow(a, b) is a ** b (ints give ints)
SPELLING_FORMS: dict[str, str] = {
    "builtins.abs": "arith", "numpy.abs": "arith", "numpy.absolute": "arith",
    "builtins.min": "fold", "builtins.max": "fold",
    "numpy.minimum": "nan_arith", "numpy.maximum": "nan_arith",
    "math.hypot": "hypot",
    "math.log": "log_base",
    "math.floor": "to_int", "math.ceil": "to_int",
    "builtins.float": "convert", "builtins.int": "convert", "builtins.bool": "convert",
    "math.trunc": "convert",
    "builtins.pow": "operator", "numpy.power": "operator",
}
#: the rows a "nan_arith" spelling uses for ints (which have no nan)
_INT_ROWS = {"fmaximum": "max", "fminimum": "min"}
#: Python operators that the spellings of the "operator" form stand for, by row
_OPERATORS = {"pow": ast.Pow}
#: What the docs say about a spelling of each form (forms not listed need no note)
_FORM_NOTES = {"fold": "2 or more arguments", "hypot": "any number of arguments",
               "log_base": "1 or 2 arguments", "to_int": "returns an int"}

#: math functions of one number written with the table's ops (logical.py `simple`)
_COMPOSED = (math.radians, math.degrees, math.gamma, math.isnan, math.isinf, math.isfinite)

#: spelling -> row, for every spelling in the table
SPELLINGS: dict[str, OpDef] = {s: row for row in OPS.values() for s in row.spell}


def spelling_form(spelling: str) -> str:
    return SPELLING_FORMS.get(spelling, "float")


def supported_functions() -> dict[str, list[str]]:
    """The functions compiled code may call, from the op table's spellings: for each module
    ("builtins", "math", "numpy"), its function names in alphabetical order, with a note in
    parentheses where one is needed ("min (2 or more arguments)"). The README and
    docs/arrays.md list these (tests/ir/test_spellings.py keeps them in step)."""
    found: dict[str, list[str]] = {"builtins": [], "math": [], "numpy": []}
    for spelling, row in SPELLINGS.items():
        module, _, name = spelling.partition(".")
        note = _FORM_NOTES.get(spelling_form(spelling))
        found[module].append(f"{name} ({note})" if note else name)
    return {module: sorted(names) for module, names in found.items()}


def _by_object() -> dict[int, tuple[Any, str]]:
    """id(function) -> (function, spelling) for the math and builtin spellings; numpy ones
    are matched by name, so that compiling does not import numpy."""
    found = {}
    for spelling in SPELLINGS:
        module, _, name = spelling.partition(".")
        obj = getattr(_MODULES[module], name, None) if module in _MODULES else None
        if obj is not None:
            found[id(obj)] = (obj, spelling)
    return found


_BY_OBJECT = _by_object()


def numpy_spelling(obj: Any) -> str | None:
    """"exp" for numpy.exp, "linalg.norm" for numpy.linalg.norm (a NumPy function used as a
    value), else None."""
    module = getattr(obj, "__module__", None) or ""
    name = getattr(obj, "__name__", None)
    if name is None or not (module.startswith("numpy") or type(obj).__name__ == "ufunc"):
        return None
    import numpy   # only reached for an object of numpy's, so numpy is loaded already
    if getattr(numpy, name, None) is obj:
        return name
    if getattr(numpy.linalg, name, None) is obj:
        return "linalg." + name
    return None


def spelling_of(obj: Any) -> str | None:
    """The table spelling of a math or builtin function object, else None."""
    entry = _BY_OBJECT.get(id(obj))
    return entry[1] if entry is not None and entry[0] is obj else None


def arity(spelling: str) -> int:
    """How many arguments a spelling of the default forms takes: its row's."""
    return len(next(iter(SPELLINGS[spelling].sigs)))


class Functions:
    """Calls other than to the user's functions (see the module docstring)."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, node: ast.Call) -> Value:
        ctx = self.ctx
        if isinstance(node.func, ast.Name) and node.func.id in ctx.env:
            f = ctx.env[node.func.id]
            if isinstance(f, FuncRef):
                return self.static_call(f.static, node)
            if not is_function(f):
                raise ctx.error(node.func, f"`{node.func.id}` is not a function",
                                cls=PyadTypeError)
            return self.lw.closures.call(f, node)
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            f = self.lw.exprs.expr(node.func)
            if not is_function(f):
                raise ctx.error(node.func, "this value is not a function", cls=PyadTypeError)
            return self.lw.closures.call(f, node)
        if isinstance(node.func, ast.Attribute) and (
                ctx.is_local(node.func.value)
                or type(ctx.resolve_static(node.func.value).obj).__name__ == "ndarray"):
            return self.method_call(node)   # of a local, or of a global array: ORIGIN.copy()
        if isinstance(node.func, ast.Attribute) and node.func.attr == "at" \
                and getattr(ctx.resolve_static(node.func.value).obj, "__name__", "") == "add" \
                and type(ctx.resolve_static(node.func.value).obj).__name__ == "ufunc":
            return self.lw.indexing.add_at(node)
        if isinstance(node.func, ast.Attribute) \
                and type(ctx.resolve_static(node.func.value).obj).__name__ == "ufunc":
            return self.lw.numpyfuncs.ufunc_method(node)
        if isinstance(node.func, ast.Attribute):
            sub = numpy_module(ctx.resolve_static(node.func.value).obj)
            if sub is not None:
                return self.lw.arrays.numpy_call(sub + node.func.attr, node)
        fn = ctx.resolve_static(node.func)
        if records.is_record_class(fn.obj):  # a namedtuple or dataclass built here
            return records.construct(self.lw, fn.obj, fn.name, node)
        return self.static_call(fn, node)

    def method_call(self, node: ast.Call) -> Value:
        """`xs.append(v)` on a list, `a.sum()` on an array (the receiver evaluated once)."""
        ctx, f = self.ctx, node.func
        if isinstance(f.value, ast.Name) and f.value.id in ctx.env:
            receiver = ctx.env[f.value.id]
            if is_list(receiver):
                return self.lw.lists.method_call(receiver, node)
            if isinstance(receiver, records.Record) and receiver.kind == "dict":
                return records.dict_method(self.lw, receiver, node)
            return self.lw.arrays.method_call(node)
        receiver = self.lw.arrayops.materialize(self.lw.exprs.expr(f.value))
        if is_list(receiver):
            return self.lw.lists.method_call(receiver, node)
        if isinstance(receiver, records.Record) and receiver.kind == "dict":
            return records.dict_method(self.lw, receiver, node)   # p['inner'].get('k', 0.0)
        tmp = ctx.temp("recv")
        ctx.env[tmp] = receiver
        try:
            return self.lw.arrays.method_call(ast.Call(
                ast.Attribute(ast.Name(tmp, ast.Load(), **location_of(f.value)), f.attr,
                              ast.Load(), **location_of(f)), node.args, node.keywords,
                **location_of(node)))
        finally:
            del ctx.env[tmp]

    def static_call(self, fn: Static, node: ast.Call) -> Value:
        """A call of the function object `fn` (a global, or a function value)."""
        if fn.obj is functools.partial:
            return self.lw.closures.partial(node)
        if isinstance(fn.obj, functools.partial):
            return self.lw.closures.call(self.lw.exprs.static_value(fn, node), node)
        if self.lw.calls.is_user_function(fn.obj):
            return self.lw.calls.user_call(fn, node)
        spelling = numpy_spelling(fn.obj)
        if spelling is not None:
            return self.lw.arrays.numpy_call(spelling, node)
        name = special.name_of(fn.obj)
        if name in special.ROWS:
            return special.row_call(self.lw, name, node)
        if name is not None:
            return self.lw.calls.user_call(Static(getattr(special, name), fn.name), node)
        return self.library_call(fn, node)

    def slice_value(self, node: ast.Call) -> SliceVal:
        """slice(stop), slice(start, stop[, step]): its bounds lowered now (as Python
        evaluates them), None kept."""
        ctx, ex = self.ctx, self.lw.exprs
        if node.keywords or not 1 <= len(node.args) <= 3:
            raise ctx.error(node, "slice() takes 1 to 3 positional arguments",
                            cls=PyadTypeError)
        args = [None, node.args[0]] if len(node.args) == 1 else list(node.args)
        out = []
        for a in args + [None] * (3 - len(args)):
            v = NONE if a is None else ex.expr(a)
            if v is not NONE:
                v = ex.scalar(v, a)
                if v.type == F64:
                    raise ctx.error(a, "slice indices must be integers or None",
                                    cls=PyadTypeError, hint="convert with int(...)")
                v = ctx.convert(v, I64)
            out.append(v)
        return SliceVal(out, ctx)

    def keywords_refused(self, fn: Static, node: ast.Call):
        kw = node.keywords[0]
        if fn.obj in (min, max):
            return self.ctx.error(kw.value, f"{fn.name}() with {kw.arg}= is not supported",
                                  cls=PyadTypeError, hint="write the loop that keeps the best "
                                  "item (or use np.argmax / np.argmin of an array)")
        return self.ctx.error(kw.value, "keyword arguments are not supported in calls to "
                              f"`{fn.name}`", hint="pass them positionally")

    def float_of_string(self, text: str, node: ast.Call) -> Var:
        """float("inf"), float("-inf"), float("nan"), float("1e-3"): a constant."""
        try:
            return self.ctx.b.const(float(text))
        except ValueError:
            raise self.ctx.error(node, f"could not convert string to float: {text!r}",
                                 cls=PyadTypeError) from None

    def library_call(self, fn: Static, node: ast.Call) -> Value:
        """`len(...)`, or a math or builtin function of the table, applied to numbers."""
        ctx, ex = self.ctx, self.lw.exprs
        if fn.obj is print:  # before its arguments, which are often strings
            raise ctx.error(node, "print is not supported in compiled code", hint="to see "
                            "values while debugging, run the Python function itself (for a "
                            "@pyad.jit_grad function f: f.__wrapped__(...)), or return them")
        folds = fn.obj in (sum, any, all, math.fsum, math.prod) or (
            fn.obj in (min, max) and len(node.args) == 1 and not node.keywords)
        if folds:
            return self.lw.folds.fold(fn.obj.__name__, node)
        if fn.obj is range:
            return self.lw.iteration.range_value(node)
        if fn.obj is slice:
            return self.slice_value(node)
        if fn.obj in (list, tuple):
            return self.sequence(fn.obj, node)
        if fn.obj is dict:
            return records.make_dict(self.lw, node)
        if fn.obj is map:
            return self.mapped(node)
        if fn.obj in (round, divmod, sorted):
            return self.python_builtin(fn.obj, node)
        if fn.obj is math.isclose:
            return self.lw.ufuncs.math_isclose(node)
        if fn.obj is math.dist:
            return self.lw.ufuncs.math_dist(node)
        if getattr(math, getattr(fn.obj, "__name__", ""), None) is fn.obj and \
                fn.obj.__name__ in prelude.MATH_NAMES:   # math.factorial, ...: the prelude's
            return self.lw.calls.user_call(Static(getattr(prelude, "math_" + fn.obj.__name__),
                                                  f"math.{fn.obj.__name__}"), node)
        spelling = spelling_of(fn.obj)
        if spelling is None and fn.obj not in (*_COMPOSED, len):
            raise ctx.error(node.func, f"call to unsupported function `{fn.name}`", hint=(
                RANDOM_INSTEAD if fn.name.startswith(("np.random.", "numpy.random.", "random."))
                else FUNCTIONS_INSTEAD.get(getattr(fn.obj, "__name__", None)) or "pyad supports "
                "abs/min/max/float/int/bool/pow, the math functions of docs/python.md, "
                "numpy's array functions, and Python functions of your own"))
        raw = [ex.expr(a) for a in node.args]
        if fn.obj is len:
            return self.length(raw, node)
        if node.keywords:
            raise self.keywords_refused(fn, node)
        if fn.obj is abs and len(raw) == 1 and self.lw.arrayops.is_arrayish(raw[0]):
            return self.lw.arrayops.function("abs", node, raw)   # abs(a) is np.abs(a)
        if fn.obj is float and len(raw) == 1 and isinstance(raw[0], records.Record) \
                and raw[0].kind == "str":   # float("inf"), float("nan"): when compiling
            return self.float_of_string(raw[0].fields[0], node)
        args = [ex.scalar(a, n) for a, n in zip(raw, node.args)]
        for a, an in zip(args, node.args):
            if is_array(a.type):
                raise ctx.error(an, f"`{fn.name}` takes numbers, not arrays",
                                cls=PyadTypeError, hint="use the numpy function (np.exp, "
                                "np.sqrt, ...) for whole arrays")
        if fn.obj in _COMPOSED and len(args) == 1:
            return self.lw.logical.simple(fn.obj.__name__, ctx.convert(args[0], F64))
        self.check_arity(spelling, f"`{fn.name}`", len(args), node)
        return self.apply(spelling, args, node)

    def sequence(self, kind: type, node: ast.Call) -> Value:
        """list(iterable) and tuple(iterable): a list comprehension over it; a tuple needs a
        length known at compile time."""
        ctx = self.ctx
        if len(node.args) > 1 or node.keywords:
            raise ctx.error(node, f"{kind.__name__}() takes at most one argument",
                            cls=PyadTypeError)
        if not node.args:
            return PyList((), ctx) if kind is list else ()
        if kind is tuple and (known := self._known_range(node.args[0])) is not None:
            return tuple(self.lw.exprs.constant(k, node) for k in known)   # tuple(range(3))
        v = ast.copy_location(ast.Name(".x", ast.Store()), node)
        comp = ast.copy_location(ast.ListComp(ast.Name(".x", ast.Load()), [ast.comprehension(
            v, node.args[0], [], 0)]), node)
        out = self.lw.lists.comprehension(comp)
        if kind is list:
            return out
        if not isinstance(out, PyList):
            raise ctx.error(node, "tuple() of an iterable whose length is known at run time "
                            "only", cls=PyadTypeError, hint="use a list, or np.array(...)")
        return tuple(out)

    def _known_range(self, arg: ast.expr) -> range | None:
        """`range(...)` of ints known when compiling (literals, `x.ndim - 1`), not too long
        to be a tuple, else None."""
        if not (isinstance(arg, ast.Call) and not arg.keywords and 1 <= len(arg.args) <= 3
                and self.ctx.calls_nothing(arg) and not self.ctx.is_local(arg.func)
                and self.ctx.resolve_static(arg.func).obj is range):
            return None
        bounds = [self.lw.exprs.expr(a) for a in arg.args]
        known = self.ctx.literals
        if not all(isinstance(v, Var) and v.type == I64 and v.name in known for v in bounds):
            return None
        values = [known[v.name] for v in bounds]
        if len(values) == 3 and values[2] == 0:
            return None   # range() arg 3 must not be zero: raised where it is lowered
        r = range(*values)
        return r if len(r) <= 1024 else None

    def python_builtin(self, fn, node: ast.Call) -> Value:
        """round(x) (an int, ties to even), divmod(a, b) (a // b, a % b) and sorted(seq,
        reverse=False) (of numbers: an array, read like the list CPython makes; of a dict's
        keys or of strings: the list of strings, made when compiling)."""
        ctx, ex, b = self.ctx, self.lw.exprs, self.ctx.b
        kw = {k.arg: k.value for k in node.keywords}
        if fn is sorted:
            if len(node.args) != 1 or set(kw) - {"reverse"}:
                raise ctx.error(node, "sorted() takes a sequence and reverse= here (no key)",
                                cls=PyadTypeError, hint="sort the keys with np.argsort and "
                                "index with them")
            v = self.lw.arrayops.materialize(ex.expr(node.args[0]))
            words = _strings(v)
            if words is not None:   # a dict's keys, strings: known when compiling
                rev = kw.get("reverse")
                down = isinstance(rev, ast.Constant) and rev.value is True
                if rev is not None and not (isinstance(rev, ast.Constant) and isinstance(
                        rev.value, bool)):
                    raise ctx.error(rev, "reverse= must be True or False here",
                                    cls=PyadTypeError)
                return PyList([records.string(w) for w in sorted(words, reverse=down)], ctx)
            return self.lw.sorting.builtin_sorted(v, kw.get("reverse"), node)
        if node.keywords or len(node.args) != (2 if fn is divmod else 1):
            what = "divmod() takes two numbers" if fn is divmod else \
                "round() takes one number here (round(x, n): write np.round(x, n))"
            raise ctx.error(node, what, cls=PyadTypeError)
        args = [ex.scalar(ex.expr(a), a) for a in node.args]
        if fn is divmod:
            return (ex.binop(ast.FloorDiv(), args[0], args[1], node),
                    ex.binop(ast.Mod(), args[0], args[1], node))
        x = args[0]
        if x.type != F64:
            return ctx.convert(x, I64)
        return b.emit("toint", b.emit("rint", x), type=I64)

    def mapped(self, node: ast.Call) -> Value:
        """map(f, a, b, ...): the list `[f(x, y, ...) for x, y, ... in zip(a, b, ...)]` (so
        `sum(map(...))`, `list(map(...))` and `for v in map(...)` work; CPython's iterator is
        consumed once, as the list is here)."""
        ctx = self.ctx
        if len(node.args) < 2 or node.keywords:
            raise ctx.error(node, "map() takes a function and at least one iterable",
                            cls=PyadTypeError)
        at = location_of(node)
        fn, names = ctx.temp("mapf"), [ctx.temp("m") for _ in node.args[1:]]
        ctx.env[fn] = self.lw.exprs.expr(node.args[0])
        target = ast.Tuple([ast.Name(n, ast.Store(), **at) for n in names], ast.Store(), **at)
        source = ast.Call(ast.Name("zip", ast.Load(), **at), node.args[1:], [], **at)
        elt = ast.Call(ast.Name(fn, ast.Load(), **at),
                       [ast.Name(n, ast.Load(), **at) for n in names], [], **at)
        try:
            return self.lw.lists.comprehension(ast.ListComp(
                elt, [ast.comprehension(target, source, [], 0)], **at))
        finally:
            del ctx.env[fn]

    def length(self, raw: list, node: ast.Call) -> Var:
        if len(raw) != 1:
            raise self.ctx.error(node, "len() takes exactly one argument", cls=PyadTypeError)
        if is_list(raw[0]):
            return self.lw.lists.length(raw[0])
        if isinstance(raw[0], RangeVal):
            return self.lw.iteration.range_length(raw[0])
        if isinstance(raw[0], SliceVal):
            raise self.lw.exprs.not_a_sequence(node.args[0])
        if isinstance(raw[0], tuple):
            return self.ctx.b.const(len(raw[0]), I64)
        if isinstance(raw[0], Record) and raw[0].kind == "str":   # known when compiling
            return self.ctx.b.const(len(raw[0].fields[0]), I64)
        if isinstance(raw[0], Record) and raw[0].kind == "dict":
            return self.ctx.b.const(len(raw[0].fields), I64)
        return self.lw.arrays.dims(self.lw.arrays.array(raw[0], node.args[0]))[0]

    def check_arity(self, spelling: str, name: str, n: int, node: ast.AST) -> None:
        form = spelling_form(spelling)
        if form == "fold":
            k, exact = 2, False
        elif form == "hypot":
            k, exact = 1, False
        elif form == "log_base" and n == 2:
            return
        else:
            k, exact = arity(spelling), True
        if (n != k) if exact else (n < k):
            raise self.ctx.error(node, f"{name} takes {'' if exact else 'at least '}"
                                 f"{k} argument{'s' if k != 1 else ''} ({n} given)",
                                 cls=PyadTypeError)

    # ------------------------------------------------------------------ forms
    def apply(self, spelling: str, args: list[Var], node: ast.AST) -> Var:
        """The op of `spelling` applied to numbers (of any scalar types), by the spelling's
        form (ops.SPELLING_FORMS); the arity is already checked."""
        ctx = self.ctx
        b, convert, row = ctx.b, ctx.convert, SPELLINGS[spelling]
        match spelling_form(spelling):
            case "float":
                return b.emit(row.name, *(convert(a, F64) for a in args))
            case "arith" | "fold" | "nan_arith":
                t = arith(args[0].type)
                for a in args[1:]:
                    t = unify(t, arith(a.type))
                acc = convert(args[0], t)
                if len(args) == 1:
                    return b.emit(row.name, acc)
                for a in args[1:]:
                    a = convert(a, t)
                    ints = t != F64 and spelling_form(spelling) == "nan_arith"
                    acc = b.emit(_INT_ROWS[row.name] if ints else row.name, acc, a)
                return acc
            case "hypot":
                acc = convert(args[0], F64)
                if len(args) == 1:
                    return b.abs(acc)
                for a in args[1:]:
                    acc = b.emit(row.name, acc, convert(a, F64))
                return acc
            case "log_base":
                xs = [convert(a, F64) for a in args]
                if len(xs) == 1:
                    return b.emit(row.name, xs[0])
                return b.div(b.emit(row.name, xs[0]), b.emit(row.name, xs[1]))
            case "to_int":
                if args[0].type != F64:
                    return convert(args[0], I64)
                return b.toint(b.emit(row.name, args[0]))
            case "convert":
                return convert(args[0], next(iter(row.sigs.values())))
            case "operator":
                return self.lw.exprs.binop(_OPERATORS[row.name](), args[0], args[1], node,
                                           python=not spelling.startswith("numpy."))
        raise AssertionError(f"unknown spelling form of {spelling}")


def _strings(v) -> list[str] | None:
    """The strings `sorted(v)` sorts when compiling: a dict's keys, or a list or tuple of
    strings; None for anything else."""
    if isinstance(v, Record) and v.kind == "dict":
        return list(v.fields)
    if isinstance(v, tuple) and v and all(isinstance(x, Record) and x.kind == "str"
                                          for x in v):
        return [x.fields[0] for x in v]
    return None
