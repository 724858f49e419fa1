"""Frontend, assigning into a dict: `d['k'] = v` and `d['k'] += v`.

Dicts are compile-time records of values (records.py), so an assignment into one makes a new
record bound to the same name. That equals CPython's mutation only when no other reference
can see the dict, so it is allowed for a name that

- is not a parameter (the caller's dict would change in CPython),
- is only ever bound to a new dict: a display `{...}`, a dict comprehension, `dict(...)`
  or `x.copy()`,
- is read only as `d[...]`, `d.get(...)`, `d.copy()`, `d.keys()`, `d.items()`, `d.values()`,
  `for k in d`, `dict(d)`, `{**d}`, `len(d)`, `k in d` or by a `return` (of it, or of a
  tuple holding it) — never bound to another name, put in a container, passed to a function
  or read by a nested function, any of which could keep the old dict where CPython shares it.

Anything else is refused at the assignment, saying which rule it breaks.
"""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..pytree import Record
from . import records

_FRESH_METHODS = ("copy",)
_READ_METHODS = ("get", "copy", "keys", "items", "values")


def mutable_dicts(fdef: ast.AST) -> dict[str, str]:
    """For each name of `fdef` assigned into as a dict (`d[...] = ...`), '' when the rules of
    the module docstring allow it, else the reason they do not."""
    body = fdef.body if isinstance(fdef.body, list) else [fdef.body]
    parents: dict[int, ast.AST] = {}
    nested: set[int] = set()   # nodes inside a nested def, lambda or class
    stores: set[str] = set()
    for top in body:
        for node in ast.walk(top):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
                if id(node) in nested or isinstance(node, (ast.FunctionDef, ast.Lambda,
                                                           ast.AsyncFunctionDef, ast.ClassDef)):
                    nested.add(id(child))
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.value, ast.Name):
                stores.add(node.value.id)
    a = fdef.args
    params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} | \
        {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    out = {}
    for name in stores:
        out[name] = "it is a parameter (CPython would change the caller's dict)" \
            if name in params else ""
    for top in body:
        for node in ast.walk(top):
            if not (isinstance(node, ast.Name) and node.id in out) or out[node.id]:
                continue
            why = _why_not(node, parents, id(node) in nested)
            if why:
                out[node.id] = why
    return out


def _why_not(node: ast.Name, parents: dict, in_nested: bool) -> str:
    up = parents.get(id(node))
    if in_nested:
        return "a nested function or lambda reads it"
    if isinstance(node.ctx, ast.Store):
        if isinstance(up, ast.Assign) and len(up.targets) == 1 and _fresh(up.value):
            return ""
        return "it is bound to something other than a new dict (write `d = {...}`, " \
            "`d = dict(...)` or `d = other.copy()`)"
    if isinstance(up, ast.Subscript) and up.value is node:
        return ""
    if isinstance(up, ast.Attribute) and up.attr in _READ_METHODS \
            and isinstance(parents.get(id(up)), ast.Call):
        return ""
    if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) \
            and up.func.id in ("dict", "len") and node in up.args:
        return ""
    if isinstance(up, ast.Dict) and any(k is None and v is node for k, v in
                                        zip(up.keys, up.values)):
        return ""
    if isinstance(up, ast.Compare) and node in up.comparators and \
            all(isinstance(op, (ast.In, ast.NotIn)) for op in up.ops):
        return ""
    if isinstance(up, (ast.For, ast.comprehension)) and up.iter is node:   # `for k in d`
        return ""
    while isinstance(up, ast.Tuple):   # `return value, d`
        up = parents.get(id(up))
    if isinstance(up, ast.Return):
        return ""
    return "another name, container or function may hold it (pyad's dicts are values: " \
        "that holder would not see the assignment)"


def _fresh(value: ast.expr) -> bool:
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return True
    if isinstance(value, ast.Call) and not value.keywords and not value.args and \
            isinstance(value.func, ast.Attribute) and value.func.attr in _FRESH_METHODS:
        return True
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
        value.func.id == "dict"


def assign_item(lw, base: Record, target: ast.Subscript, value) -> Record:
    """The dict `base` with `target`'s key set to `value`, if `target`'s name may be
    assigned into (module docstring); else a located PyadTypeError."""
    ctx = lw.ctx
    name = target.value.id if isinstance(target.value, ast.Name) else None
    rules = lw.stmts.mutable_dicts
    why = rules.get(name, "it is not a plain name") if name else "it is not a plain name"
    key = records.key_node(ctx, target.slice)
    if not why and not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
        why = "the key is not a constant string"
    if why:
        raise ctx.error(target, f"cannot assign into this dict: {why}", cls=PyadTypeError,
                        hint="build a new dict instead: `p = {**p, 'key': value}`")
    values = dict(zip(base.fields, base.children))
    values[key.value] = lw.arrayops.materialize(value)
    keys = tuple(sorted(values))
    return Record("dict", None, keys, tuple(values[k] for k in keys))
