"""Frontend, records: the compiled function's parameters, containers as compile-time values,
and tests decided at compile time.

The API binds a call to the parameters and passes the leaves (numbers, arrays) of the bound
values with their structure (a treedef, pytree.py); `bind_parameters` gives each parameter its
value: a leaf Var, a tuple, or a `pytree.Record` of values for a dict, namedtuple or
dataclass (read with `p['key']` (a constant string) and `p.attr`), or `pytree.NONE` for
None. A list argument is a list of fixed length inside the function (lists.py). Records are built in the function
too: dict displays with constant string keys, and calls of namedtuple and dataclass
classes; returned, they come back to Python as the user's containers.

None is known at compile time, so tests of it are too (`scale is None`, `x is not None`,
`not scale`, and `and`/`or` of such tests; the truth of a tuple or container, e.g. `if rest:`
for `*rest`, is known too): an `if` or `x if c else y` whose test is decided
lowers only the branch taken, so the branch for the other case may use the parameter as a
number. `static_truth` decides them.
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Any

from .. import pytree
from ..errors import PyadSyntaxError, PyadTypeError
from .context import DynList, PyList, RangeVal, Static, Undefined
from ..ir.nodes import Var, is_array, ndim_of
from ..pytree import NONE, Record


def parameter_names(fdef: ast.FunctionDef) -> list[str]:
    """The parameters in the order the API binds them (pyad/api/binding.py)."""
    a = fdef.args
    return [x.arg for x in a.posonlyargs + a.args] + ([a.vararg.arg] if a.vararg else []) \
        + [x.arg for x in a.kwonlyargs] + ([a.kwarg.arg] if a.kwarg else [])


def bind_parameters(ctx, fdef: ast.FunctionDef, sig: tuple[str, ...], treedef) -> list[Var]:
    """Bind each parameter in `ctx.env` to its value of structure `treedef[i]`, with fresh
    Vars of types `sig` for the leaves; the Vars (the Func's parameters), in order."""
    names = parameter_names(fdef)
    types, params = iter(sig), []
    for name, struct in zip(names, treedef):
        def leaf(name=name) -> Var:
            v = Var(ctx.names.fresh(name), next(types))
            params.append(v)
            return v
        leaves = (leaf() for _ in iter(int, 1))
        ctx.env[name] = _as_value(pytree.unflatten(struct, leaves))
    return params


def _as_value(v: Any) -> Any:
    """A bound value as the frontend holds it: a list argument is a list of fixed length
    (lists.py) that the function may read but not mutate (it belongs to the caller)."""
    if isinstance(v, tuple):
        return tuple(_as_value(e) for e in v)
    if isinstance(v, Record):
        kids = tuple(_as_value(e) for e in v.children)
        return PyList(kids, None) if v.kind == "list" else v.with_children(kids)
    return v


# ----------------------------------------------------------------------------- reading records

def key_node(ctx, key: ast.expr) -> ast.expr:
    """A dict key as written: a name bound to a compile-time string (`name = "w"`, a helper's
    parameter given one, a loop over a tuple of them) becomes that string constant."""
    v = _named_string(ctx, key)
    return key if v is None else ast.copy_location(ast.Constant(v), key)


def _named_string(ctx, node: ast.expr) -> str | None:
    """The string a name stands for when compiling (a local bound to one, or a global
    string), else None."""
    if not isinstance(node, ast.Name):
        return None
    if node.id in ctx.env:
        v = ctx.env[node.id]
        return v.fields[0] if isinstance(v, Record) and v.kind == "str" else None
    try:
        obj = ctx.resolve_static(node).obj
    except PyadSyntaxError:
        return None
    return obj if isinstance(obj, str) else None


def subscript(ctx, base: Record, node: ast.Subscript) -> Any:
    """`p['key']` on a dict record (the key a string known when compiling); `p[0]` on a
    namedtuple (a tuple)."""
    key = key_node(ctx, node.slice)
    try:
        i = ast.literal_eval(key)  # a constant, e.g. -1
    except ValueError:
        i = None
    if base.kind == "namedtuple" and type(i) is int and -len(base.children) <= i < len(base.children):
        return base.children[i]
    if base is NONE:
        raise ctx.error(node, "None cannot be indexed", cls=PyadTypeError,
                        hint="the value is None in this call: pass an array, or test "
                        "`if x is None:` first")
    if base.kind != "dict" or not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        what = ": only a constant string key" if base.kind == "dict" else ""
        raise ctx.error(node, f"unsupported indexing of a {base.describe()}{what}",
                        hint="index a dict with a constant string: `p['w']`; read a "
                        "namedtuple or dataclass field as an attribute: `p.w`")
    try:
        return base.get(key.value)
    except KeyError:
        raise ctx.error(node, f"the dict has no key {key.value!r} (its keys: "
                        f"{', '.join(map(repr, base.fields))})", cls=PyadTypeError) from None


def attribute(ctx, base: Record, node: ast.Attribute) -> Any:
    """`p.attr` on a namedtuple or dataclass record."""
    if base.kind in ("namedtuple", "dataclass", "object"):
        try:
            return base.get(node.attr)
        except KeyError:
            pass
        if base.kind == "object":
            raise ctx.error(node, f"`{node.attr}` is not a number, array or container of them "
                            f"of this {base.cls.__name__} object", cls=PyadTypeError,
                            hint="a compiled method reads the numeric attributes of `self`; "
                            "pass anything else as an argument")
        raise ctx.error(node, f"{base.describe()} has no field `{node.attr}`",
                        cls=PyadTypeError)
    raise ctx.error(node, f"unsupported attribute access `.{node.attr}` on a "
                    f"{base.describe()}", hint="read a dict entry as `p['key']`")


def not_a_number(ctx, v: Record, node: ast.AST):
    """The error for a record used where a number is expected."""
    if v is NONE:
        return ctx.error(node, "None cannot be used as a number here", cls=PyadTypeError,
                         hint="test it first: `if scale is None: ...`")
    if v.kind == "str":
        return ctx.error(node, "a string cannot be used as a number here", cls=PyadTypeError,
                         hint="strings are compile-time values: compare them (`if mode == "
                         "'mean':`) or pass them on")
    return ctx.error(node, f"a {v.describe()} cannot be used as a number here",
                     cls=PyadTypeError, hint="read one of its entries")


def not_an_array(ctx, v: Record, node: ast.AST):
    """The error for a record stored into or whose method is called."""
    if v.kind == "object":
        return ctx.error(node, "a compiled method cannot call methods of `self` or assign "
                         "to its attributes", cls=PyadTypeError, hint="call a module-level "
                         "function with the attributes it needs, and return new values")
    if v.kind == "dict":
        return ctx.error(node, "of a dict's methods only `copy`, `get`, `values` and, in a "
                         "`for` or a comprehension, `keys` and `items` compile",
                         cls=PyadTypeError, hint="read entries as `p['key']`; instead of "
                         "assigning into a dict, build a new one: `p = {**p, 'key': value}`")
    return ctx.error(node, f"a {v.describe()} is read-only in compiled code and has no "
                     "methods", cls=PyadTypeError, hint="read fields as `p.attr`; build a new "
                     "container instead of assigning into one")


# ----------------------------------------------------------------------------- making records

def constant(exprs, obj: Any, name: str, node: ast.AST) -> Any:
    """A global container (nested dicts with string keys, namedtuples, dataclasses, lists,
    tuples) of numbers and NumPy arrays as a compile-time value of constants (the arrays
    frozen as global arrays are, read-only), else None."""
    if pytree.as_node(obj) is None:
        return None
    leaves, treedef = pytree.tree_flatten(obj)
    if not all(isinstance(v, (bool, int, float)) or type(v).__name__ == "ndarray"
               for v in leaves) or not pytree.has_str_keys(treedef):
        return None
    return _as_value(pytree.unflatten(treedef, [
        exprs.constant(v, node) if isinstance(v, (bool, int, float))
        else exprs.lw.arrays.constant(v, name, node) for v in leaves]))


def display(lw, node: ast.Dict) -> Record:
    """`{'a': x, 'b': y}` with constant string keys (or names bound to strings when
    compiling); `{**p, 'b': y}` unpacks a dict (a later key replaces an earlier one, as in
    CPython)."""
    ctx, values = lw.ctx, {}
    for k, v in zip(node.keys, node.values):
        if k is None:
            values.update(_entries(lw, v))
            continue
        k = key_node(ctx, k)   # a name bound to a string when compiling is that string
        if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
            raise ctx.error(k, "unsupported dict: keys must be constant strings",
                            hint="write `{'w': w, 'b': b}`")
        values[k.value] = lw.arrayops.materialize(lw.exprs.expr(v))
    return _dict(values)


def make_dict(lw, node: ast.Call) -> Record:
    """`dict(p)`, `dict(p, b=y)`, `dict(a=x, b=y)`: dicts are values in compiled code, so a
    copy is the dict itself."""
    if len(node.args) > 1:
        raise lw.ctx.error(node, "dict() takes at most one positional argument",
                           cls=PyadTypeError)
    values = _entries(lw, node.args[0]) if node.args else {}
    for k in node.keywords:
        if k.arg is None:
            values.update(_entries(lw, k.value))
        else:
            values[k.arg] = lw.arrayops.materialize(lw.exprs.expr(k.value))
    return _dict(values)


def dict_method(lw, base: Record, node: ast.Call) -> Any:
    """`p.copy()` (the dict itself: dicts are values), `p.get('key', default)` and
    `p.values()` (a tuple)."""
    ctx, attr = lw.ctx, node.func.attr
    if attr == "copy" and not node.args and not node.keywords:
        return base
    if attr == "values" and not node.args and not node.keywords:
        return tuple(base.children)   # in the order of the keys (sorted: dictiter.py)
    if attr == "get" and 1 <= len(node.args) <= 2 and not node.keywords \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        key = node.args[0].value
        if key in base.fields:
            return base.get(key)
        if len(node.args) == 2:
            return lw.arrayops.materialize(lw.exprs.expr(node.args[1]))
        return NONE   # None, known when compiling: `if w is not None:` decides then
    raise not_an_array(ctx, base, node)


def _entries(lw, node: ast.expr) -> dict:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == "zip" and len(node.args) == 2 and not node.keywords:
        # dict(zip(names, values)): the comprehension {k: v for k, v in zip(names, values)}
        k, v = (ast.Name(id=n, ctx=ast.Load()) for n in ("pyad.key", "pyad.value"))
        target = ast.Tuple(elts=[ast.Name(id=n.id, ctx=ast.Store()) for n in (k, v)],
                           ctx=ast.Store())
        comp = ast.DictComp(key=k, value=v, generators=[
            ast.comprehension(target=target, iter=node, ifs=[], is_async=0)])
        for n in ast.walk(comp):
            ast.copy_location(n, node)
        node = comp
    v = lw.exprs.expr(node)
    if not (isinstance(v, Record) and v.kind == "dict"):
        raise lw.ctx.error(node, "only a dict can be unpacked into a dict here",
                           cls=PyadTypeError)
    return dict(zip(v.fields, v.children))


def _dict(values: dict) -> Record:
    keys = tuple(sorted(values))
    return Record("dict", None, keys, tuple(values[k] for k in keys))


def is_record_class(obj: Any) -> bool:
    return isinstance(obj, type) and (
        (issubclass(obj, tuple) and hasattr(obj, "_fields")) or dataclasses.is_dataclass(obj))


def construct(lw, cls: type, name: str, node: ast.Call) -> Record:
    """`Point(x, y=2.0)`: a namedtuple or dataclass built in the compiled function (fields
    without a value take their defaults when those are numbers)."""
    ctx, ex = lw.ctx, lw.exprs
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None
                                                                 for k in node.keywords):
        raise ctx.error(node, f"unsupported call of `{name}`: pass the fields one by one")
    if issubclass(cls, tuple):
        kind, fields = "namedtuple", tuple(cls._fields)
        defaults = dict(getattr(cls, "_field_defaults", {}))
    else:
        kind = "dataclass"
        fs = [f for f in dataclasses.fields(cls) if f.init]
        fields = tuple(f.name for f in fs)
        defaults = {f.name: f.default for f in fs if f.default is not dataclasses.MISSING}
    if len(node.args) > len(fields):
        raise ctx.error(node, f"{name}() takes {len(fields)} fields, got {len(node.args)}",
                        cls=PyadTypeError)
    values = {f: lw.arrayops.materialize(ex.expr(a)) for f, a in zip(fields, node.args)}
    for k in node.keywords:
        if k.arg not in fields or k.arg in values:
            raise ctx.error(k.value, f"{name}() got an unexpected or repeated field "
                            f"`{k.arg}`", cls=PyadTypeError)
        values[k.arg] = lw.arrayops.materialize(ex.expr(k.value))
    for f in fields:
        if f not in values:
            if f not in defaults or not isinstance(defaults[f], (bool, int, float)):
                raise ctx.error(node, f"{name}() is missing field `{f}`", cls=PyadTypeError)
            values[f] = ex.constant(defaults[f], node)
    return Record(kind, cls, fields, tuple(values[f] for f in fields))


# ----------------------------------------------------------------------------- static tests

_STR_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
                ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
                ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
                ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}


def string(value: str) -> Record:
    """A string as a compile-time value (a literal, a helper's string default, a name bound
    to one): a Record without children, the string its one field, so that two strings are
    one value exactly when they are equal (as None is NONE)."""
    return Record("str", None, (value,), ())


def string_of(lw, node: ast.expr) -> str | tuple | None:
    """The compile-time string `node` stands for (a tuple of them for a tuple or list of
    such), else None."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [string_of(lw, e) for e in node.elts]
        return tuple(items) if all(isinstance(x, str) for x in items) else None
    if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.value, ast.Name):
        base = lw.ctx.env.get(node.value.id)   # `p["mode"]`, `cfg.mode` of a container
        if isinstance(base, Record) and base.kind != "str":
            v = lw.exprs.expr(node)
            return v.fields[0] if isinstance(v, Record) and v.kind == "str" else None
    return _named_string(lw.ctx, node)


def string_comparison(lw, test: ast.expr) -> bool | None:
    """The value of a comparison of compile-time strings (`reduction == 'mean'`, `mode in
    ('same', 'valid')`, `k == 'w'` once a loop over a dict's keys has put the key in,
    dictiter.py), else None."""
    if not isinstance(test, ast.Compare) or not all(type(op) in _STR_COMPARE
                                                     for op in test.ops):
        return None
    operands = [string_of(lw, c) for c in (test.left, *test.comparators)]
    if any(x is None for x in operands) or not isinstance(operands[0], str):
        return None
    return all(_STR_COMPARE[type(op)](a, b)
               for op, a, b in zip(test.ops, operands, operands[1:]))


def rank_comparison(lw, test: ast.expr) -> bool | None:
    """The value of a comparison of an array's rank with ints written in the source (`if
    a.ndim > 1:`, `a.ndim == b.ndim`): ranks are fixed per signature, so the branch not
    taken is not compiled, as CPython never runs it. None when not such a comparison."""
    if not isinstance(test, ast.Compare) or not all(
            type(op) in _STR_COMPARE and type(op) not in (ast.In, ast.NotIn) for op in test.ops):
        return None
    operands = [_static_int(lw, c) for c in (test.left, *test.comparators)]
    if any(x is None for x in operands) or all(
            isinstance(c, ast.Constant) for c in (test.left, *test.comparators)):
        return None
    return all(_STR_COMPARE[type(op)](a, b)
               for op, a, b in zip(test.ops, operands, operands[1:]))


def _static_int(lw, node: ast.expr) -> int | None:
    """An int literal, `name.ndim` of a local array, or `len` of what has a length known
    when compiling: a local tuple, dict or list of fixed length, `name.shape`."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Attribute) and node.attr in ("ndim", "shape") \
            and isinstance(node.value, ast.Name):
        v = lw.ctx.env.get(node.value.id)
        if isinstance(v, Var) and is_array(v.type):
            return ndim_of(v.type)   # `len(x.shape)` is the rank too
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and \
            isinstance(node.func, ast.Name) and node.func.id == "len" and \
            "len" not in lw.ctx.env:
        arg = node.args[0]
        if isinstance(arg, ast.Attribute) and arg.attr == "shape":
            return _static_int(lw, arg)
        v = lw.ctx.env.get(arg.id) if isinstance(arg, ast.Name) else None
        if isinstance(v, Record) and v.kind in ("dict", "str"):
            return len(v.fields) if v.kind == "dict" else len(v.fields[0])
        if type(v) is tuple or isinstance(v, PyList):
            return len(v)
    return None


def _membership(lw, test: ast.expr) -> bool | None:
    """`'key' in p` (`not in`) of a compile-time string and a dict: decided when compiling
    (a dict's keys are), else None."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and type(test.ops[0]) in (ast.In, ast.NotIn)):
        return None
    key = string_of(lw, test.left)
    right = test.comparators[0]
    d = lw.ctx.env.get(right.id) if isinstance(right, ast.Name) else None
    if not isinstance(key, str) or not (isinstance(d, Record) and d.kind == "dict"):
        return None
    return (key in d.fields) == isinstance(test.ops[0], ast.In)


def static_truth(lw, test: ast.expr) -> bool | None:
    """The value of `test` when it is decided at compile time (see the module docstring),
    else None."""
    for decided in (string_comparison(lw, test), rank_comparison(lw, test),
                    _membership(lw, test)):
        if decided is not None:
            return decided
    match test:
        case ast.Compare(ops=[ast.Is() | ast.IsNot() as op], comparators=[right]):
            a, b = _operand(lw, test.left), _operand(lw, right)
            if a is None or b is None or (a is not NONE and b is not NONE):
                return None
            same = a is b
            return same if isinstance(op, ast.Is) else not same
        case ast.UnaryOp(op=ast.Not()):
            inner = static_truth(lw, test.operand)
            return None if inner is None else not inner
        case ast.BoolOp():
            parts = [static_truth(lw, v) for v in test.values]
            if any(p is None for p in parts):
                return None
            return all(parts) if isinstance(test.op, ast.And) else any(parts)
        case ast.Name():  # None, a tuple (`if rest:` for *rest) or a container
            v = _operand(lw, test)
            if isinstance(v, (DynList, RangeVal)):
                return None   # its length is known at run time (exprs.truth)
            if isinstance(v, tuple):
                return bool(v)
            return bool(v.children) if isinstance(v, Record) else None
    return None


def _operand(lw, node: ast.expr) -> Any:
    """NONE for None, the value of a local, else None (not decided here)."""
    if isinstance(node, ast.Constant) and node.value is None:
        return NONE
    if isinstance(node, ast.Name):
        env = lw.ctx.env
        if node.id in env:
            v = env[node.id]
            return None if isinstance(v, Undefined) else v
        try:
            s: Static = lw.ctx.resolve_static(node)
        except PyadSyntaxError:
            return None
        return NONE if s.obj is None else None
    return None
