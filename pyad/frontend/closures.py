"""Frontend, functions as values: `lambda`, nested `def` (closures over the enclosing
function's locals, arrays included), functions passed to helpers and called there, and
`functools.partial`.

A function value is known at compile time, so every call of one is inlined, specialized to
the callee, like any call of the user's functions (Numba's first-class functions, without a
dispatch at run time). Three kinds:

- `Closure`: a `lambda` or nested `def` of the body being compiled. Its free variables are
  read from the enclosing body's environment at the call (Python's late binding: the values
  the names have when the function is called); its default values are evaluated at the `def`.
  It cannot rebind them (`nonlocal` is refused) nor mutate a list it reads (lists.py).
- `FuncRef`: a function object used as a value: a function of the user's, a math or builtin
  function, a NumPy function, a `jit_grad` or `custom_vjp` function.
- `Partial`: `functools.partial(f, *args, **kwargs)`.

A function value is not a number: it can be bound to names, passed, returned from helpers and
stored in tuples, not carried through a loop that rebinds it or merged from two branches
that bind different functions (refused, located).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from .. import pytree
from ..errors import PyadTypeError
from .context import DynList, RangeVal, SliceVal, Static, located


class Scope:
    """The scope of a comprehension (lists.run_scoped): its variables, and once it has
    ended the values they were left with, which the functions made in it read when they
    are called later (CPython's closure cells: `[lambda t: t * k for k in ks]` all see the
    last k, also where the enclosing body has a `k` of its own)."""

    def __init__(self, names: set[str]) -> None:
        self.names = frozenset(names)
        self.final: dict[str, Any] | None = None   # None: still running

    def end(self, env: dict) -> None:
        self.final = {n: env[n] for n in self.names if n in env}


@dataclass(frozen=True, eq=False)
class Closure:
    node: ast.Lambda | ast.FunctionDef
    lw: Any                   # the Lowering of the body that defines it
    defaults: tuple           # values of the trailing positional defaults
    kw_defaults: dict         # keyword-only parameter -> default value
    scopes: tuple = ()        # the comprehension scopes it was made in, innermost last


@dataclass(frozen=True, eq=False)
class FuncRef:
    static: Static


@dataclass(frozen=True, eq=False)
class Partial:
    func: Any
    args: tuple
    kwargs: dict = field(default_factory=dict)


def holds_code(value: Any) -> bool:
    """Whether a value is, or holds, a function, closure or module (a compiled function
    cannot return one)."""
    if is_function(value) or isinstance(value, Static):
        return True
    if isinstance(value, tuple):
        return any(map(holds_code, value))
    if isinstance(value, pytree.Record):
        return any(map(holds_code, value.children))
    return False


def is_function(v: Any) -> bool:
    return isinstance(v, (Closure, FuncRef, Partial))


def local_names(node: ast.Lambda | ast.FunctionDef) -> set[str]:
    a = node.args
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    body = node.body if isinstance(node, ast.FunctionDef) else []
    return params | {n.id for s in body for n in ast.walk(s)
                     if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


class Closures:
    """Function values (see the module docstring); one per function body."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    # ------------------------------------------------------------------ making them
    def define(self, node: ast.Lambda | ast.FunctionDef) -> Closure:
        ctx, ex = self.ctx, self.lw.exprs
        a = node.args
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            raise ctx.error(node.decorator_list[0], "a decorator on a nested function is not "
                            "supported", hint="define the decorated function at module level")
        for p, what in ((a.vararg, "*args"), (a.kwarg, "**kwargs")):
            if p is not None:
                raise ctx.error(node, f"a nested function or lambda with {what} is not "
                                "supported", hint="give it plain parameters")
        for s in ast.walk(node):
            if isinstance(s, (ast.Nonlocal, ast.Global)):
                raise ctx.error(s, f"unsupported syntax: {type(s).__name__.lower()} statement",
                                hint="return the new value instead")
        mat = self.lw.arrayops.materialize
        defaults = tuple(mat(ex.expr(d)) for d in a.defaults)
        kw_defaults = {p.arg: mat(ex.expr(d)) for p, d in zip(a.kwonlyargs, a.kw_defaults)
                       if d is not None}
        return Closure(node, self.lw, defaults, kw_defaults, tuple(ctx.scopes))

    def partial(self, node: ast.Call) -> Partial:
        ctx, ex = self.ctx, self.lw.exprs
        if not node.args:
            raise ctx.error(node, "functools.partial takes a function", cls=PyadTypeError)
        f = ex.expr(node.args[0])
        if not is_function(f):
            raise ctx.error(node.args[0], "the first argument of functools.partial must be "
                            "a function", cls=PyadTypeError)
        args, kwargs = self.arguments(node.args[1:], node.keywords)
        return Partial(f, tuple(args), kwargs)

    # ------------------------------------------------------------------ calling them
    def arguments(self, args: list[ast.expr], keywords: list[ast.keyword]):
        ctx, ex = self.ctx, self.lw.exprs
        mat = self.lw.arrayops.materialize
        values = []
        for a in args:
            if isinstance(a, ast.Starred):
                v = mat(ex.expr(a.value))
                if isinstance(v, RangeVal):   # `g(*range(3))`: its items, when known
                    v = tuple(self.lw.arrays.known_items(v, a, "a starred range"))
                if not isinstance(v, tuple) or isinstance(v, (DynList, SliceVal)):
                    raise ctx.error(a, "a starred argument must be a tuple or a list of "
                                    "fixed length", cls=PyadTypeError)
                values.extend(v)
            else:
                values.append(mat(ex.expr(a)))
        kwargs = {}
        for k in keywords:
            if k.arg is None:
                raise ctx.error(k.value, "unsupported syntax: ** argument",
                                hint="pass the arguments by name one by one")
            kwargs[k.arg] = mat(ex.expr(k.value))
        return values, kwargs

    def call(self, f, node: ast.Call):
        args, kwargs = self.arguments(node.args, node.keywords)
        return self.apply(f, args, kwargs, node)

    def apply(self, f, args: list, kwargs: dict, node: ast.Call):
        if isinstance(f, Partial):
            return self.apply(f.func, list(f.args) + args, {**f.kwargs, **kwargs}, node)
        if isinstance(f, Closure):
            return self.inline(f, args, kwargs, node)
        return self.static_call(f, args, kwargs, node)

    def static_call(self, f: FuncRef, args: list, kwargs: dict, node: ast.Call):
        """A call of a function object with values: the call written with temporary names
        bound to the values, lowered as any call (functions.py)."""
        env = self.ctx.env
        base = self.ctx.temp("f")
        temps = {base: f}
        arg_nodes = []
        for k, v in enumerate(args):
            temps[f"{base}a{k}"] = v     # never a name ctx.temp makes (`.f`, `.f.1`, ...)
            arg_nodes.append(ast.Name(f"{base}a{k}", ast.Load()))
        kw_nodes = []
        for k, v in kwargs.items():
            temps[f"{base}k{k}"] = v
            kw_nodes.append(ast.keyword(k, ast.Name(f"{base}k{k}", ast.Load())))
        call, = located([ast.Call(ast.Name(base, ast.Load()), arg_nodes, kw_nodes)], node)
        env.update(temps)
        try:
            return self.lw.functions.call(call)
        finally:
            for t in temps:
                env.pop(t, None)

    def inline(self, c: Closure, args: list, kwargs: dict, node: ast.Call):
        ctx = self.ctx
        fname = c.node.name if isinstance(c.node, ast.FunctionDef) else "<lambda>"
        here = ctx
        while here is not None:
            if getattr(here, "closure_node", None) is c.node:
                raise ctx.error(node, f"the nested function `{fname}` calls itself",
                                hint="define it at module level: recursion works there")
            here = here.parent
        sub = self.lw.nested(c.node, c.lw)
        sub.ctx.closure_node = c.node
        for n, v in self.bind(c, fname, args, kwargs, node).items():
            sub.ctx.env[n] = v
        enclosing = c.lw.ctx.env
        mine = local_names(c.node)
        for n in {x.id for x in ast.walk(c.node) if isinstance(x, ast.Name)} - mine:
            scope = next((s for s in reversed(c.scopes) if n in s.names), None)
            if scope is not None and scope.final is not None:  # the comprehension ended
                if n in scope.final:
                    sub.ctx.env[n] = scope.final[n]
            elif n in enclosing:
                sub.ctx.env[n] = enclosing[n]
        if isinstance(c.node, ast.Lambda):   # an array expression is made here, in its body
            return sub.arrayops.materialize(sub.exprs.expr(c.node.body))
        return sub.body()

    def bind(self, c: Closure, fname: str, args: list, kwargs: dict, node: ast.AST) -> dict:
        """Parameter name -> value for a call of `c`, as Python binds them."""
        a = c.node.args
        pos = [p.arg for p in a.posonlyargs + a.args]
        if len(args) > len(pos):
            raise self.ctx.error(node, f"{fname}() takes {len(pos)} positional arguments but "
                                 f"{len(args)} were given", cls=PyadTypeError)
        out = dict(zip(pos, args))
        for k, v in kwargs.items():
            if k in out:
                raise self.ctx.error(node, f"{fname}() got multiple values for argument "
                                     f"'{k}'", cls=PyadTypeError)
            if k not in pos + [p.arg for p in a.kwonlyargs] \
                    or k in [p.arg for p in a.posonlyargs]:
                raise self.ctx.error(node, f"{fname}() got an unexpected keyword argument "
                                     f"'{k}'", cls=PyadTypeError)
            out[k] = v
        defaults = dict(zip(pos[len(pos) - len(c.defaults):], c.defaults))
        for p in pos + [p.arg for p in a.kwonlyargs]:
            if p not in out:
                if p in defaults or p in c.kw_defaults:
                    out[p] = defaults[p] if p in defaults else c.kw_defaults[p]
                else:
                    raise self.ctx.error(node, f"{fname}() missing required argument '{p}'",
                                         cls=PyadTypeError)
        return out
