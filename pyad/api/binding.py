"""The compiled function's own signature: binding a call's arguments to the parameters of
the user's `def` (keywords, defaults, keyword-only parameters, `*args`) and describing the
bound values as a tree of leaf types, the key of a compiled specialization.

    params = Params(fn)
    bound  = params.bind(args, kwargs)       # one value per parameter, defaults filled in
    leaves, treedef, sig = describe(params, bound)

A parameter's value may be a number, a NumPy array, None, or a container of them (tuples,
lists, dicts with string keys, namedtuples, dataclasses; pytree.py): the kernel takes the
leaves (`sig`: their types), the frontend rebuilds the containers at compile time from
`treedef`, so a different structure (other keys, a None in place of a number) is another
specialization. `*args` is one parameter whose value is the tuple of the extra arguments.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np

from .. import pytree
from . import arrays as api_arrays
from ..ir.types import BOOL, F64, I64

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_EMPTY = inspect.Parameter.empty


class Params:
    """The parameters of `fn` (see the module docstring); `**kwargs` is refused."""

    def __init__(self, fn: Callable, fname: str) -> None:
        self.fname = fname
        ps = list(inspect.signature(fn).parameters.values())
        for p in ps:
            if p.kind is p.VAR_KEYWORD:
                raise TypeError(f"pyad.jit_grad cannot compile {fname}: its parameter "
                                f"**{p.name} takes any keywords, which a compiled signature "
                                "cannot; name the keyword parameters instead")
        self.names = tuple(p.name for p in ps)
        self.positional = tuple(p.name for p in ps if p.kind in _POSITIONAL)
        self.posonly = frozenset(p.name for p in ps if p.kind is p.POSITIONAL_ONLY)
        self.vararg = next((i for i, p in enumerate(ps) if p.kind is p.VAR_POSITIONAL), None)
        self.defaults = {p.name: p.default for p in ps if p.default is not _EMPTY}
        #: every parameter positional, none with a default: a native wrapper taking the
        #: parameters in order accepts exactly the calls Python would
        self.plain = len(self.positional) == len(ps)

    def bind(self, args: tuple, kwargs: dict | None) -> tuple:
        """One value per parameter (in `names` order) for the call `(*args, **kwargs)`, with
        Python's TypeErrors for calls that do not fit."""
        n = len(self.positional)
        if not kwargs and len(args) == n and self.plain:
            return args
        fname, values = self.fname, {}
        extra = args[n:]
        if extra and self.vararg is None:
            given = len(args) + sum(1 for k in (kwargs or ()) if k in self.positional)
            raise TypeError(f"{fname}() takes {_count(n, self.defaults, self.positional)} "
                            f"positional argument{'s' if n != 1 else ''} but {given} "
                            f"{'was' if given == 1 else 'were'} given")
        values.update(zip(self.positional, args))
        for k, v in (kwargs or {}).items():
            if k not in self.names or k in self.posonly or \
                    (self.vararg is not None and k == self.names[self.vararg]):
                raise TypeError(f"{fname}() got an unexpected keyword argument {k!r}")
            if k in values:
                raise TypeError(f"{fname}() got multiple values for argument {k!r}")
            values[k] = v
        if self.vararg is not None:
            values[self.names[self.vararg]] = tuple(extra)
        missing = [k for k in self.names if k not in values and k not in self.defaults]
        if missing:
            kind = "positional" if missing[0] in self.positional else "keyword-only"
            missing = [k for k in missing if (k in self.positional) == (kind == "positional")]
            listed = _and_list([repr(k) for k in missing])
            raise TypeError(f"{fname}() missing {len(missing)} required {kind} argument"
                            f"{'s' if len(missing) > 1 else ''}: {listed}")
        return tuple(values[k] if k in values else self.defaults[k] for k in self.names)


    def call_args(self, values: tuple) -> tuple[tuple, dict]:
        """`(args, kwargs)` of a call binding the parameters to `values` (`bind`'s inverse)."""
        args, kwargs = [], {}
        for i, (name, v) in enumerate(zip(self.names, values)):
            if i == self.vararg:
                args += list(v)
            elif name in self.positional:
                args.append(v)
            else:
                kwargs[name] = v
        return tuple(args), kwargs


def _count(n: int, defaults: dict, positional: tuple) -> str:
    low = sum(1 for k in positional if k not in defaults)
    return str(n) if low == n else f"from {low} to {n}"


def _and_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def describe(params: Params, bound: tuple) -> tuple[list, Any, tuple[str, ...]]:
    """`(leaves, treedef, sig)` of the bound values: the kernel's arguments, the structure
    the frontend rebuilds, and the leaves' types (TypeError naming the argument otherwise)."""
    flat = all(type(v) in _LEAF_TYPES for v in bound)  # numbers and arrays: no containers
    if flat:
        leaves, treedef = list(bound), (pytree.LEAF,) * len(bound)
    else:
        leaves, treedef = pytree.tree_flatten(bound)
        if any(type(v) is str for v in leaves):   # compile-time values, like None: no leaves
            leaves, treedef = pytree.tree_flatten(_static_strings(bound))
    try:
        sig = tuple(map(leaf_type, leaves))
        if not flat and not pytree.has_str_keys(treedef):
            raise _BadLeaf
    except _BadLeaf:
        sig = tuple(_checked_types(params, bound))  # again, to name the argument
    return leaves, treedef, sig


_LEAF_TYPES = frozenset({float, int, bool, np.ndarray})


class _BadLeaf(Exception):
    pass


def leaf_type(a: Any) -> str:
    if isinstance(a, float) and type(a) is float:
        return F64
    if isinstance(a, np.ndarray):
        try:
            return api_arrays.array_arg_type("", "", a)
        except TypeError:  # a dtype or ndim pyad does not take: named on the retry
            raise _BadLeaf from None
    if isinstance(a, (bool, np.bool_)):
        return BOOL
    if isinstance(a, (int, np.integer)):
        if not -2**63 <= a < 2**63:
            raise _BadLeaf
        return I64
    if isinstance(a, (float, np.floating)) and not isinstance(a, np.longdouble):
        return F64
    raise _BadLeaf


def _static_strings(v: Any) -> Any:
    """`v` with its strings as the frontend's compile-time strings (frontend/records.py
    `string`: a Record without children)."""
    if type(v) is str:
        return pytree.Record("str", None, (v,), ())
    node = pytree.as_node(v)
    if node is None:
        return v
    return pytree.rebuild(node, [_static_strings(c) for c in pytree.children(node)])


def _checked_types(params: Params, bound: tuple) -> list[str]:
    out: list[str] = []
    for name, v in zip(params.names, bound):
        _walk(params.fname, name, v, out)
    return out


def _walk(fname: str, path: str, v: Any, out: list) -> None:
    node = pytree.as_node(v)
    if node is not None:
        if isinstance(node, pytree.Record) and node.kind == "dict":
            bad = [k for k in v if not isinstance(k, str)]
            if bad:
                raise TypeError(f"{fname}() argument {path!r}: dict keys must be strings, "
                                f"not {type(bad[0]).__name__}")
        names = node.fields if isinstance(node, pytree.Record) and node.fields \
            else range(len(pytree.children(node)))
        attr = isinstance(node, pytree.Record) and node.kind in ("namedtuple", "dataclass")
        for k, e in zip(names, pytree.children(node)):
            _walk(fname, f"{path}.{k}" if attr else f"{path}[{k!r}]", e, out)
        return
    if isinstance(v, np.ndarray):
        out.append(api_arrays.array_arg_type(fname, path, v))
        return
    if type(v) is str:   # a compile-time value: no leaf
        return
    try:
        out.append(leaf_type(v))
    except _BadLeaf:
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            raise OverflowError(f"{fname}() argument {path!r} does not fit in a 64-bit "
                                "integer") from None
        raise TypeError(f"{fname}() argument {path!r} must be a float, int, bool, str, "
                        "numpy array, None, or a tuple, list, dict, namedtuple or dataclass of "
                        f"them, not {type(v).__name__}") from None
