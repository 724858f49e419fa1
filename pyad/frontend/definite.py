"""Frontend, definite assignment read off the source: which names are certainly bound at
each `break` of a loop and where a loop's `else:` clause ends.

A loop binds a name for the code after it when every way out binds it (loops.py,
`bound_after`): each `break` (the search idiom `if x[i] > t: found = i; break`) and the end
of the loop, which runs the `else:` clause if there is one (`else: found = -1`). These
functions answer from the statements alone, by CPython's paths; they under-approximate
(a name assigned in a nested loop, a `try`, a `match` or by `:=` does not count), so
pyad may refuse code CPython runs, never the other way round.
"""
from __future__ import annotations

import ast

ALL = None   # "every name": no path reaches the point in question


def at_breaks(body: list[ast.stmt], first: frozenset[str] = frozenset()) -> frozenset | None:
    """The names certainly bound, in the same iteration, at every `break` of the loop whose
    body is `body` (`first`: bound at the start of each iteration, a `for` target); ALL
    when it has no `break`."""
    found: list[frozenset[str]] = []
    _fall_through(body, first, found)
    return frozenset.intersection(*found) if found else ALL


def bound_by(stmts: list[ast.stmt]) -> frozenset | None:
    """The names `stmts` certainly bind when they end normally; ALL when they never do
    (every path leaves by `break`, `continue`, `return` or `raise`)."""
    return _fall_through(stmts, frozenset(), None)


def _fall_through(stmts: list[ast.stmt], have: frozenset[str],
                  breaks: list | None) -> frozenset | None:
    """The names bound when `stmts` end normally (ALL: they never do); each `break` of the
    loop they belong to adds the names bound there to `breaks`."""
    for s in stmts:
        if isinstance(s, ast.Break):
            if breaks is not None:
                breaks.append(have)
            return ALL
        if isinstance(s, (ast.Continue, ast.Return, ast.Raise)):
            return ALL
        if isinstance(s, ast.If):
            a, b = (_fall_through(part, have, breaks) for part in (s.body, s.orelse))
            if a is ALL and b is ALL:
                return ALL
            have = b if a is ALL else a if b is ALL else a & b
        elif isinstance(s, (ast.For, ast.While)):
            _fall_through(s.orelse, have, breaks)   # its `break` leaves the enclosing loop
        elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            if not isinstance(s, ast.AnnAssign) or s.value is not None:
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                have = have | {n.id for t in targets for n in ast.walk(t)
                               if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        elif isinstance(s, (ast.FunctionDef, ast.ClassDef)):
            have = have | {s.name}
        elif breaks is not None:   # with, try, match: their breaks see only what came before
            breaks.extend(have for n in _own_breaks(s))
    return have


def _own_breaks(s: ast.stmt):
    """The `break` statements in `s` that leave the loop `s` is in (not nested loops')."""
    todo = [s]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Break):
            yield node
        elif not isinstance(node, (ast.For, ast.While, ast.FunctionDef, ast.Lambda,
                                   ast.AsyncFunctionDef)):
            todo.extend(ast.iter_child_nodes(node))
        else:
            todo.extend(getattr(node, "orelse", []))
