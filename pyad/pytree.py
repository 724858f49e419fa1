"""Trees (pytrees): nested containers whose leaves are values (IR `Var`s at compile time,
numbers and arrays at run time), and the operations every layer needs on them.

Nodes are tuples, lists, dicts (string keys, visited in sorted order, as JAX does),
namedtuples, dataclasses and None (a node without children, as in JAX); anything else is a
leaf. Every node but a tuple is described by a :class:`Record` (its kind, its class or keys,
and its children), which is also what the frontend binds a container argument to at compile
time and what a result shape holds; `to_python` turns Records back into the user's objects.

    tree   = (a, {"w": b, "c": c})
    leaves(tree)              -> [a, c, b]             (dict keys sorted)
    structure(tree)           -> the tree with its leaves blanked (LEAF): a treedef
    indexed(tree)             -> the tree with leaf positions
    unflatten(struct, xs)     -> the tree of `struct`'s shape with leaves from `xs` (Records)
    gather(indexed, flat)     -> the tree of flat[i] for each leaf index i
    to_python(tree)           -> Records rebuilt as dicts, namedtuples, dataclasses, lists

The functions above work on compiler-side trees (tuples, lists, Records; their leaves may
be any objects, e.g. IR Vars). The public, JAX-named functions (`tree_leaves`,
`tree_structure`, `tree_flatten`, `tree_unflatten`, and `user_tree_map`, which is
`pyad.tree_map`) take and give the user's objects, whose dataclasses are nodes.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable, Iterator, Sequence


@dataclasses.dataclass(frozen=True)
class Record:
    """A node that is not a tuple. `kind` is "list", "dict", "namedtuple", "dataclass",
    "none", "str" (a compile-time string, its one field; frontend/records.py) or "object"
    (`self` of a compiled method, api/methods.py); `cls` the class
    (None for lists, dicts and None); `fields` the names of the children (dict keys sorted,
    fields and attributes in order; () for a list)."""

    kind: str
    cls: Any
    fields: tuple
    children: tuple

    def with_children(self, children: Iterable) -> "Record":
        if self.kind == "none":
            return NONE  # one None: the frontend tests `v is NONE`
        return Record(self.kind, self.cls, self.fields, tuple(children))

    def get(self, name: str) -> Any:
        """The child called `name` (KeyError if there is none)."""
        try:
            return self.children[self.fields.index(name)]
        except ValueError:
            raise KeyError(name) from None

    def describe(self) -> str:
        if self.kind in ("namedtuple", "dataclass", "object"):
            return f"{self.kind} {self.cls.__name__}"
        return {"none": "None", "str": "string"}.get(self.kind, self.kind)


NONE = Record("none", None, (), ())
_LEAF_TYPES = frozenset({float, int, bool, str})


def is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def as_node(x: Any) -> tuple | Record | None:
    """`x` as a node (a tuple or a Record of its children), or None for a leaf."""
    t = type(x)
    if t in _LEAF_TYPES:  # the common leaves, decided first: this runs on every call
        return None
    if t is tuple or t is Record or (isinstance(x, tuple) and not is_namedtuple(x)):
        return x
    if t is list:
        return Record("list", None, (), tuple(x))
    if t is dict:
        keys = tuple(sorted(x, key=str))
        return Record("dict", None, keys, tuple(x[k] for k in keys))
    if x is None:
        return NONE
    if is_namedtuple(x):
        return Record("namedtuple", t, t._fields, tuple(x))
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        names = tuple(f.name for f in dataclasses.fields(x))
        return Record("dataclass", t, names, tuple(getattr(x, n) for n in names))
    return None


def _structural(x: Any) -> tuple | Record | None:
    """`x` as a node of a compiler-side tree: tuples, lists (as tuples), Records, and tuple
    subclasses with a `rebuild(items)` method (the frontend's lists and range values, which
    keep their class in structures and rebuilt trees); the leaves, e.g. IR Vars, may be
    dataclasses themselves."""
    t = type(x)
    if t is tuple or t is Record:
        return x
    if t is list:
        return tuple(x)
    return x if isinstance(x, tuple) and hasattr(t, "rebuild") else None


def children(node: tuple | Record) -> tuple:
    return node.children if isinstance(node, Record) else node


def rebuild(node: tuple | Record, kids: Iterable) -> tuple | Record:
    if isinstance(node, Record):
        return node.with_children(kids)
    return node.rebuild(tuple(kids)) if type(node) is not tuple else tuple(kids)


def is_node(x: Any) -> bool:
    return _structural(x) is not None


def leaves(tree: Any, node_of: Callable = _structural) -> list:
    """The leaves of `tree` in order."""
    node = node_of(tree)
    if node is None:
        return [tree]
    return [x for e in children(node) for x in leaves(e, node_of)]


#: the leaf of a structure (None is a node: a None argument has no leaves, as in JAX)
LEAF = "*"


def structure(tree: Any, node_of: Callable = _structural) -> Any:
    """`tree` with every leaf replaced by `LEAF` and its containers by tuples and Records: two
    trees of one structure compare equal, and the structure is hashable (a treedef)."""
    node = node_of(tree)
    return LEAF if node is None else rebuild(node, (structure(e, node_of)
                                                    for e in children(node)))


def indexed(tree: Any) -> Any:
    """`tree` with each leaf replaced by its position among the leaves."""
    counter = iter(range(1 << 62))
    return tree_map(lambda _: next(counter), tree)


def unflatten(struct: Any, values: Iterable) -> Any:
    """The tree of `struct`'s shape whose leaves are taken from `values` in order (its
    containers as tuples and Records; see `to_python`)."""
    it: Iterator = iter(values)

    def go(s: Any) -> Any:
        node = _structural(s)
        return next(it) if node is None else rebuild(node, (go(e) for e in children(node)))
    return go(struct)


def gather(index_tree: Any, flat: Sequence) -> Any:
    """The tree of `index_tree`'s shape with leaf `i` replaced by `flat[i]`."""
    return tree_map(lambda i: flat[i], index_tree)


def tree_map(f: Callable[[Any], Any], tree: Any) -> Any:
    """`f` applied to the leaves of a compiler-side tree (tuples and Records)."""
    node = _structural(tree)
    return f(tree) if node is None else rebuild(node, (tree_map(f, e) for e in children(node)))


def to_python(tree: Any) -> Any:
    """`tree` with its Records rebuilt as the user's dicts, lists, namedtuples, dataclasses,
    strings and None."""
    if isinstance(tree, tuple) and not is_namedtuple(tree):
        return tuple(to_python(e) for e in tree)
    if not isinstance(tree, Record):
        return tree
    kids = [to_python(e) for e in tree.children]
    if tree.kind == "list":
        return kids
    if tree.kind == "dict":
        return dict(zip(tree.fields, kids))
    if tree.kind == "namedtuple":
        return tree.cls(*kids)
    if tree.kind == "dataclass":
        return _make_dataclass(tree.cls, dict(zip(tree.fields, kids)))
    if tree.kind == "object":
        return dict(zip(tree.fields, kids))  # the attributes read from `self`
    if tree.kind == "str":
        return tree.fields[0]   # a compile-time string
    return None


def _make_dataclass(cls: type, values: dict) -> Any:
    obj = object.__new__(cls)  # no __init__/__post_init__: the fields are the values
    for k, v in values.items():
        object.__setattr__(obj, k, v)  # frozen dataclasses too
    return obj


def has_str_keys(struct: Any) -> bool:
    """Whether every dict of the structure `struct` has string keys (the only keys a
    compiled function can read: `p['key']`)."""
    if isinstance(struct, Record):
        if struct.kind == "dict" and not all(type(k) is str for k in struct.fields):
            return False
        return all(map(has_str_keys, struct.children))
    return all(map(has_str_keys, struct)) if type(struct) is tuple else True


def flatten_like(struct: Any, value: Any, what: str = "value") -> list:
    """The leaves of `value`, which must have the structure `struct` (lists accepted for
    tuples); TypeError naming `what` otherwise."""
    out: list = []
    _flatten_into(struct, value, what, out)
    return out


def _flatten_into(s: Any, v: Any, what: str, out: list) -> None:
    # module-level, not a closure: this runs on every call of a pullback (~0.1 us, not ~0.5)
    if type(s) is tuple:
        if not isinstance(v, (tuple, list)) or len(v) != len(s):
            raise TypeError(f"{what} must have the structure of the result: a tuple of "
                            f"{len(s)}, got {v!r}")
        for se, ve in zip(s, v):
            _flatten_into(se, ve, what, out)
    elif isinstance(s, Record):
        if not s.children:   # a string, None, {}: no numbers, whatever is given is ignored
            return
        node = as_node(v)
        if not isinstance(node, Record) or node.kind != s.kind or node.fields != s.fields \
                or node.cls is not s.cls or len(node.children) != len(s.children):
            raise TypeError(f"{what} must have the structure of the result: a "
                            f"{_describe(s)}, got {v!r}")
        for se, ve in zip(s.children, node.children):
            _flatten_into(se, ve, what, out)
    else:
        out.append(v)


def _describe(s: Record) -> str:
    if s.kind == "dict":
        return f"dict with keys {list(s.fields)}"
    if s.kind == "list":
        return f"list of {len(s.children)}"
    return s.describe()


# ----------------------------------------------------------------------------- public, JAX names

def tree_leaves(tree: Any) -> list:
    """The leaves of `tree` in order (dict entries by sorted key)."""
    return leaves(tree, as_node)


def tree_structure(tree: Any) -> Any:
    """The treedef of `tree` (hashable; equal for trees of one structure)."""
    return structure(tree, as_node)


def tree_flatten(tree: Any) -> tuple[list, Any]:
    """`(leaves, treedef)`; `tree_unflatten(treedef, leaves)` rebuilds `tree`."""
    out: list = []
    return out, _flatten(tree, out)


def _flatten(tree: Any, out: list) -> Any:
    """The structure of `tree`, its leaves appended to `out` (one pass: the dispatcher of a
    call with containers runs this)."""
    node = as_node(tree)
    if node is None:
        out.append(tree)
        return LEAF
    return rebuild(node, [_flatten(e, out) for e in children(node)])


def user_tree_map(f: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """`pyad.tree_map`: `f` applied to the leaves of `tree` (and to the leaves at the same
    places of `rest`, trees of the same structure); the result has `tree`'s structure and
    container types."""
    struct = tree_structure(tree)
    flats = [flatten_like(struct, r, "tree_map argument") for r in rest]
    return tree_unflatten(struct, [f(*xs) for xs in zip(tree_leaves(tree), *flats)])


def tree_unflatten(treedef: Any, values: Iterable) -> Any:
    """The tree of structure `treedef` (from `tree_flatten`) with leaves `values`."""
    return to_python(unflatten(treedef, values))
