"""Frontend, assigning into an item: `l[i] = v`, `d[k] = v`, `rows[0][j] = v`, `a[i] = v` and
their augmented forms, with CPython's object identity:

- a list held by a list, tuple or dict is one list: a store into `rows[0]` reaches every
  holder of it (lists.py, `rebind`);
- `l[i] += v` and `d[k] += v` on an array item update the array in place, as
  `ndarray.__iadd__` does, so every other name for it (a view, another entry) sees it; on a
  number they rebind the item, as Python does;
- anything else is an array: arrays.py stores into it."""
from __future__ import annotations

import ast

from .. import pytree
from ..ir.nodes import Var, is_array
from . import dictstate
from .context import DynList, location_of
from .lists import is_list


def container(lw, target: ast.Subscript):
    """What `target` assigns into when it is a list or a dict: the value of `l` in
    `l[i] = v`, of `rows[0]` in `rows[0][j] = v` (a list held by a list, tuple or dict);
    None for an array."""
    root = target.value
    while isinstance(root, ast.Subscript):
        root = root.value
    held = lw.ctx.env.get(root.id) if isinstance(root, ast.Name) else None
    if isinstance(target.value, ast.Name):
        return held
    if not isinstance(held, (tuple, pytree.Record)) or isinstance(held, DynList):
        return None   # an array's element, or a row of a run-time list (read as a copy)
    inner = lw.exprs.expr(target.value)
    return inner if is_list(inner) else None


def _is_dict(base, target: ast.Subscript) -> bool:
    return isinstance(base, pytree.Record) and base.kind == "dict" \
        and isinstance(target.value, ast.Name)


def store(lw, target: ast.Subscript, value) -> None:
    """`target = value` for a subscript target."""
    base = container(lw, target)
    if is_list(base):
        lw.lists.store(base, target, value)
    elif _is_dict(base, target):
        lw.ctx.env[target.value.id] = dictstate.assign_item(lw, base, target, value)
    else:
        lw.arrays.store(target, value)


def aug_store(lw, node: ast.AugAssign) -> None:
    """`target op= value` for a subscript target."""
    t = node.target
    base = container(lw, t)
    if not (_is_dict(base, t) or is_list(base)):
        lw.arrays.aug_store(node)
        return
    ex = lw.exprs   # d['k'] += v, l[i] += v: read, combine, store
    current = ex.expr(ast.Subscript(t.value, t.slice, ast.Load(), **location_of(t)))
    new = ex.binop(node.op, current, ex.expr(node.value), node)
    if isinstance(current, Var) and is_array(current.type):
        lw.arrayops.assign_into(current, new, node)   # in place: every holder sees it
    elif is_list(base):
        lw.lists.store(base, t, new)
    else:
        lw.ctx.env[t.value.id] = dictstate.assign_item(lw, base, t, new)
