"""Frontend, loops over the keys of a dict: `for k in p`, `for k in p.keys()`,
`for k, v in p.items()`, `for k in ('w', 'b')`, and the dict comprehensions
`{k: f(v) for k, v in p.items()}`.

A dict's keys are known when compiling (records.py), so such a loop is unrolled: its body is
lowered once per key, with the loop variable replaced by the key itself (a string constant,
which is what `p[k]` needs). Keys come in sorted order, the order of the dict's fields (as
`jax.tree_util` orders them); CPython's order is the order of insertion, so results that
depend on the order differ when the keys were not inserted sorted (a sum of the values in
its last bits, `s = 2 * s + v` entirely; README). The body of such a loop may not `break`,
`continue` or assign the loop variable.
"""
from __future__ import annotations

import ast
import copy

from ..errors import PyadError, PyadTypeError
from ..pytree import Record
from .lists import name


def keys_of(lw, node: ast.expr) -> tuple[list[str], Record | None, str] | None:
    """(keys, the dict or None, 'keys' | 'items' | 'values') when `node` iterates over the
    keys of a dict or over a display of string constants; else None (nothing evaluated)."""
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts], None, "keys"
    mode, base = "keys", node
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in ("keys", "items", "values") and not node.args:
        mode, base = node.func.attr, node.func.value
    if not _may_be_dict(lw, base):
        return None
    d = lw.exprs.expr(base)
    if not (isinstance(d, Record) and d.kind == "dict"):
        if mode == "keys" and base is node:
            return None   # not a dict: the caller lowers the loop as any other
        raise lw.ctx.error(node, f".{mode}() of something that is not a dict",
                           cls=PyadTypeError)
    return list(d.fields), d, mode


def _may_be_dict(lw, node: ast.expr) -> bool:
    """Whether evaluating `node` to look for a dict is harmless: a name, or attributes and
    string-keyed entries of one (nothing is computed twice)."""
    while isinstance(node, ast.Attribute) or isinstance(node, ast.Subscript) and \
            isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        node = node.value
    return isinstance(node, ast.Name)


def unrolled_loop(lw, node: ast.For) -> bool:
    """Lower `node` as the unrolled loop over keys of the module docstring, if it is one."""
    found = keys_of(lw, node.iter)
    if found is None:
        return False
    keys, d, mode = found
    ctx = lw.ctx
    if any(isinstance(n, (ast.Break, ast.Continue)) for s in node.body for n in ast.walk(s)):
        raise ctx.error(node, "a loop over the keys of a dict is unrolled, so it cannot "
                        "break or continue", hint="test the key inside the loop instead")
    for k in keys:
        key_name, value_target = _targets(ctx, node.target, mode)
        if value_target is not None:
            lw.stmts.assign(value_target, d.get(k))
        lw.stmts.stmts(_substituted(ctx, node.body, key_name, k))
    return True


def comprehension(lw, node: ast.DictComp) -> Record:
    """`{key: value for k in p}`, `{k: value for k, v in p.items()}`: a new dict, its
    entries made one key at a time."""
    ctx = lw.ctx
    gen = node.generators[0] if len(node.generators) == 1 else None
    found = keys_of(lw, gen.iter) if gen is not None and not gen.ifs else None
    if found is None:   # as the loop it stands for (`for i, k in enumerate(names)`)
        return _as_loop(lw, node)
    keys, d, mode = found
    values = {}
    for k in keys:
        key_name, value_target = _targets(ctx, gen.target, mode)
        saved = dict(ctx.env)
        if value_target is not None:
            lw.stmts.assign(value_target, d.get(k))
        key, value = _substituted(ctx, [node.key, node.value], key_name, k)
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            raise ctx.error(node.key, "the keys of a dict comprehension are its loop's keys "
                            "here", cls=PyadTypeError)
        values[key.value] = lw.arrayops.materialize(lw.exprs.expr(value))
        ctx.env.clear()
        ctx.env.update(saved)   # the comprehension's names do not leak
    keys = tuple(sorted(values))
    return Record("dict", None, keys, tuple(values[k] for k in keys))


def _as_loop(lw, node: ast.DictComp) -> Record:
    """`{key: value for ... in ... if ...}` lowered as `d = {}` and the loops that make
    `d = {**d, key: value}`: it compiles where that loop does (over a tuple of strings,
    which is unrolled, so each key is a constant); the comprehension's names do not leak."""
    d = lw.lists.temp("dict")
    body: ast.stmt = ast.Assign([name(d, True)], ast.Dict([None, node.key],
                                                          [name(d), node.value]))
    scoped: set[str] = set()
    for gen in reversed(node.generators):
        for cond in reversed(gen.ifs):
            body = ast.If(cond, [body], [])
        body = ast.For(gen.target, gen.iter, [body], [])
        scoped.update(n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name))
    try:
        return lw.lists.run_scoped([ast.Assign([name(d, True)], ast.Dict([], [])), body], node,
                                   d, scoped)
    except PyadError as e:
        if f"`{d}`" not in str(e):
            raise   # an error of the user's expressions, as it is
        raise lw.ctx.error(node, "unsupported dict comprehension: its keys are not known when "
                           "compiling (they come from a loop over a tuple of strings or a "
                           "dict's keys, with no condition on values)", cls=PyadTypeError,
                           hint="write a dict display `{'w': w, 'b': b}`, or keep the "
                           "entries and use np.where on the values") from None


def _targets(ctx, target: ast.expr, mode: str) -> tuple[str | None, ast.expr | None]:
    """(the name the key is bound to or None, the target the value is assigned to or None)."""
    if mode == "values":
        return None, target
    if mode == "items":
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 \
                and isinstance(target.elts[0], ast.Name):
            return target.elts[0].id, target.elts[1]
        raise ctx.error(target, "a loop over .items() here unpacks `key, value`",
                        cls=PyadTypeError)
    if not isinstance(target, ast.Name):
        raise ctx.error(target, "a loop over keys binds one name", cls=PyadTypeError)
    return target.id, None


def _substituted(ctx, nodes: list, name: str | None, key: str) -> list:
    """Copies of `nodes` with every read of `name` replaced by the constant `key`."""
    copies = [copy.deepcopy(n) for n in nodes]
    if name is None:
        return copies

    def replaced(n):
        if not (isinstance(n, ast.Name) and n.id == name):
            return n
        if not isinstance(n.ctx, ast.Load):
            raise ctx.error(n, f"the key `{name}` of a loop over a dict's keys is assigned "
                            "in the loop", cls=PyadTypeError)
        return ast.copy_location(ast.Constant(key), n)

    copies = [replaced(n) for n in copies]
    for top in copies:
        for parent in ast.walk(top):
            for field, value in ast.iter_fields(parent):
                if isinstance(value, list):
                    setattr(parent, field, [replaced(v) for v in value])
                elif isinstance(value, ast.AST):
                    setattr(parent, field, replaced(value))
    return copies
