"""Frontend, what a block of statements does to lists, read from its syntax before it is
lowered: which names it may mutate as lists (a loop carries them: loops.py) and how many
items one trip appends (the room a list made before the loop needs)."""
from __future__ import annotations

import ast

MUTATORS = ("append", "extend", "pop")


def mutated_lists(stmts: list[ast.stmt]) -> set[str]:
    """Names that `stmts` may mutate as lists: receivers of append/extend/pop, targets of
    item assignments (`l[i] = v`, `l[i] += v`) and of `l += v`, `l *= n` (in place)."""
    out: set[str] = set()
    for s in stmts:
        for node in ast.walk(s):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in MUTATORS and _root(node.func.value) is not None:
                out.add(_root(node.func.value))   # `l.append`, `d["l"].append`: l, d
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) \
                    and _root(node.value) is not None:
                out.add(_root(node.value))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                    and isinstance(node.op, (ast.Add, ast.Mult)):
                out.add(node.target.id)
    return out


def grown_inside(stmts: list[ast.stmt], name_: str) -> bool:
    """Whether `stmts` append to (or extend) a list held inside the container `name_`
    (`d["l"].append(v)`, `t[0].extend(xs)`)."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in ("append", "extend")
               and isinstance(node.func.value, ast.Subscript) and _root(node.func.value) == name_
               for s in stmts for node in ast.walk(s))


def _root(e: ast.expr) -> str | None:
    """The name an item chain starts from: `d` for `d["l"][0]`; None for other receivers."""
    while isinstance(e, ast.Subscript):
        e = e.value
    return e.id if isinstance(e, ast.Name) else None


def appends_per_trip(stmts: list[ast.stmt], name_: str) -> int | None:
    """At most how many items one trip of a loop with body `stmts` appends to the list
    `name_`: the `append` calls written in it (each runs at most once a trip), or None when
    it may append more (an append in a nested loop, `extend`)."""
    count = 0

    def visit(node: ast.AST, nested: bool) -> bool:
        nonlocal count
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name_:
            if node.func.attr == "extend" or node.func.attr == "append" and nested:
                return False
            count += node.func.attr == "append"
        inner = nested or isinstance(node, (ast.For, ast.While, ast.ListComp,
                                             ast.GeneratorExp, ast.Lambda, ast.FunctionDef))
        return all(visit(c, inner) for c in ast.iter_child_nodes(node))
    return count if all(visit(s, False) for s in stmts) else None
