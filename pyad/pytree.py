"""Tuple trees (pytrees): nested tuples whose leaves are values (IR `Var`s at compile time,
numbers and arrays at run time), and the few operations every layer needs on them.

    tree   = (a, (b, c))
    leaves(tree)              -> [a, b, c]
    structure(tree)           -> (None, (None, None))     the tree with its leaves blanked
    indexed(tree)             -> (0, (1, 2))              the tree with leaf positions
    unflatten(struct, [x, y, z]) -> (x, (y, z))           (a structure or an indexed tree)
    gather(indexed, flat)     -> the tree of flat[i] for each leaf index i

A leaf is anything that is not a tuple. Lists count as tuples where a caller passes a
Python value (`leaves` accepts them), never in a structure. A tuple subclass with a
`rebuild(items)` method (the frontend's lists and range values) keeps its class in
structures and rebuilt trees.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Sequence


def is_node(x: Any) -> bool:
    return isinstance(x, tuple)


def leaves(tree: Any) -> list:
    """The leaves of `tree` in order (tuples and lists are nodes)."""
    if isinstance(tree, (tuple, list)):
        return [x for e in tree for x in leaves(e)]
    return [tree]


def _node(like: tuple, items) -> tuple:
    rebuild = getattr(like, "rebuild", None)
    return rebuild(tuple(items)) if rebuild is not None else tuple(items)


def structure(tree: Any) -> Any:
    """`tree` with every leaf replaced by None: two trees of one structure compare equal."""
    return _node(tree, (structure(e) for e in tree)) if is_node(tree) else None


def indexed(tree: Any) -> Any:
    """`tree` with each leaf replaced by its position among the leaves."""
    counter = iter(range(1 << 62))
    return tree_map(lambda _: next(counter), tree)


def unflatten(struct: Any, values: Iterable) -> Any:
    """The tree of `struct`'s shape whose leaves are taken from `values` in order."""
    it: Iterator = iter(values)

    def go(s: Any) -> Any:
        return _node(s, (go(e) for e in s)) if is_node(s) else next(it)
    return go(struct)


def gather(index_tree: Any, flat: Sequence) -> Any:
    """The tree of `index_tree`'s shape with leaf `i` replaced by `flat[i]`."""
    return tree_map(lambda i: flat[i], index_tree)


def tree_map(f: Callable[[Any], Any], tree: Any) -> Any:
    return _node(tree, (tree_map(f, e) for e in tree)) if is_node(tree) else f(tree)


def flatten_like(struct: Any, value: Any, what: str = "value") -> list:
    """The leaves of `value`, which must have the structure `struct` (lists accepted for
    tuples); TypeError naming `what` otherwise."""
    out: list = []
    _flatten_into(struct, value, what, out)
    return out


def _flatten_into(s: Any, v: Any, what: str, out: list) -> None:
    # module-level, not a closure: this runs on every call of a pullback (~0.1 us, not ~0.5)
    if isinstance(s, tuple):
        if not isinstance(v, (tuple, list)) or len(v) != len(s):
            raise TypeError(f"{what} must have the structure of the result: a tuple of "
                            f"{len(s)}, got {v!r}")
        for se, ve in zip(s, v):
            _flatten_into(se, ve, what, out)
    else:
        out.append(v)
