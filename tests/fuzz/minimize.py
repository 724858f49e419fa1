"""Shrink a failing program to a short one that fails the same way.

Works on the Python AST, independently of the generator: it tries, to a fixed point,
deleting a statement, replacing a compound statement by its body, and replacing an
expression by one of its sub-expressions or by a constant; a candidate is kept when it
still runs in CPython and `check.run` still gives the same kind of failure.
"""
from __future__ import annotations

import ast
import copy
from typing import Callable, Iterator

from . import check


def _bodies(tree: ast.AST) -> Iterator[list]:
    for node in ast.walk(tree):
        for name in ("body", "orelse"):
            stmts = getattr(node, name, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                yield stmts


def _statement_edits(tree: ast.Module) -> Iterator[ast.Module]:
    """Each candidate deletes one statement or replaces a compound one by its body."""
    n = sum(len(b) for b in _bodies(tree))
    for k in range(n):
        for mode in ("delete", "inline"):
            t = copy.deepcopy(tree)
            body, i = _nth(t, k)
            s = body[i]
            if isinstance(s, (ast.Import, ast.ImportFrom)):
                continue
            if mode == "delete":
                if isinstance(s, ast.FunctionDef) and s.name == "f":
                    continue
                del body[i]
                if not body:
                    body.append(ast.Pass())
            else:
                inner = getattr(s, "body", None)
                if not isinstance(s, (ast.If, ast.For, ast.While)) or not inner:
                    continue
                body[i:i + 1] = inner + list(getattr(s, "orelse", []))
            yield t


def _nth(tree: ast.Module, k: int) -> tuple[list, int]:
    for b in _bodies(tree):
        if k < len(b):
            return b, k
        k -= len(b)
    raise IndexError(k)


def _replaceable(tree: ast.AST) -> list[ast.expr]:
    """Expressions worth replacing: not names, constants or the function of a call."""
    funcs = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return [n for n in ast.walk(tree) if isinstance(n, ast.expr) and id(n) not in funcs
            and not isinstance(n, (ast.Name, ast.Constant))]


def _expression_edits(tree: ast.Module) -> Iterator[ast.Module]:
    """Each candidate replaces one expression by a sub-expression or by 0.5."""
    for k in range(len(_replaceable(tree))):
        for choice in range(8):
            t = copy.deepcopy(tree)
            target = _replaceable(t)[k]
            funcs = {id(n.func) for n in ast.walk(target) if isinstance(n, ast.Call)}
            subs = [c for c in ast.iter_child_nodes(target) if isinstance(c, ast.expr)
                    and id(c) not in funcs]
            options = subs + [ast.Constant(0.5)]
            if choice >= len(options):
                break
            if not _replace(t, target, options[choice]):
                break
            yield t


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> bool:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return True
            if isinstance(value, list) and any(v is old for v in value):
                setattr(parent, field, [new if v is old else v for v in value])
                return True
    return False


def minimize(source: str, args, kind: str, budget: int = 400,
             log: Callable[[str], None] = lambda s: None) -> str:
    """The smallest program found (within `budget` checks) failing with `kind`."""
    best = ast.parse(source)
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        for edits in (_statement_edits, _expression_edits):
            for cand in edits(best):
                tries += 1
                if tries > budget:
                    break
                try:
                    text = ast.unparse(ast.fix_missing_locations(cand)) + "\n"
                except Exception:
                    continue
                if check.run(text, args).kind == kind:
                    best, progress = cand, True
                    log(f"  shrunk to {len(text.splitlines())} lines")
                    break
            if progress:
                break
    return ast.unparse(best) + "\n"
