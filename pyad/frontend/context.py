"""Frontend, shared state: the one `Context` every lowering collaborator works on.

A function body is lowered by four collaborators (statements, expressions, arrays, calls;
composed in `frontend.Lowering`), and all of them emit through one context: the builder ops go
to (`b`), what each local name is bound to (`env`), fresh SSA names, and the source (for
locations and errors). A nested region (a branch, a loop body, an element loop) is emitted
with `with ctx.emitting(builder):`, and lowered in its own environment with
`with ctx.scope(env):`; nothing else swaps them.

Also here: scalar type promotion (`unify`, `arith`, one place for the whole frontend) and the
resolution of globals, closure variables and builtins to compile-time `Static` objects.
"""
from __future__ import annotations

import ast
import builtins
import linecache
import textwrap
import types
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Union

from ..ir.builder import Builder, NameGen
from ..errors import PyadSyntaxError, PyadTypeError
from ..ir.nodes import BOOL, F64, I64, Loc, Var, array_type, is_array
from .recover import display_name, function_source
from ..pytree import Record

# a tuple holds Values (compile-time tuples); a Record a dict, namedtuple, dataclass or None
# (records.py)
Value = Union[Var, tuple, Record]


def location_of(node: ast.AST) -> dict:
    """The location attributes of `node`, to give a node the compiler writes the same."""
    return {k: getattr(node, k) for k in ("lineno", "col_offset", "end_lineno",
                                           "end_col_offset") if hasattr(node, k)}


def parameters(a: ast.arguments) -> list[ast.arg]:
    """A def's named parameters in the order of `inspect.signature` (positional-only,
    positional-or-keyword, keyword-only); *args and **kwargs are refused where calls bind."""
    return a.posonlyargs + a.args + a.kwonlyargs


def located(nodes: list, at: ast.AST) -> list:
    """`nodes` (written by the compiler) located at `at` wherever they have no location."""
    for top in nodes:
        for n in ast.walk(top):
            if "lineno" in n._attributes and not hasattr(n, "lineno"):
                ast.copy_location(n, at)
    return nodes


#: how lists.py names an array appended to a list of run-time length (`shared_copies`)
APPENDED = "xs.append(a)"


@dataclass
class Lazy:
    """An elementwise array expression not yet stored: `gen(idx)` emits its element at
    `idx` into the current builder. `shares`, when set, is the array NumPy's result would
    be a view of, how it was made (`a.reshape(...)`) and where: pyad's is a new array, so
    lower.py refuses a write into one that the other would see (ir/sharing.py)."""
    elem: str
    dims: list[Var]
    gen: Callable[[list[Var]], Var]
    shares: tuple[Var, str, Loc] | None = None

    @property
    def type(self) -> str:
        return array_type(self.elem, len(self.dims))


class Undefined:
    """A name assigned on some paths only (reading it is an error, like UnboundLocalError);
    `why` names a path that reaches the read without assigning it ("when the `if` at line 7
    is false")."""

    def __init__(self, name: str, why: str) -> None:
        self.name = name
        self.why = why


class Compound(tuple):
    """A tuple of values with a meaning of its own: a tree node (pyad/pytree.py) that keeps
    its class when trees are rebuilt, and equal only to a node of its class. `owner` is the
    context that made it (lists: only that body may mutate one)."""

    def __new__(cls, items, owner: "Context | None" = None):
        obj = super().__new__(cls, items)
        obj.owner = owner
        return obj

    def rebuild(self, items) -> "Compound":
        return type(self)(items, self.owner)

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and tuple.__eq__(self, other)

    def __ne__(self, other) -> bool:
        return not self == other

    __hash__ = tuple.__hash__


class PyList(Compound):
    """A list whose length is known when compiling: its items are values (lists.py)."""


class DynList(Compound):
    """A list whose length is known at run time: (buf, n), the items are the first n entries
    (or rows) of the array `buf` (lists.py). `room`: `buf` is known to have room for every
    append of the loop being lowered (no capacity check)."""

    room = False
    buf = property(lambda self: self[0])
    n = property(lambda self: self[1])

    def rebuild(self, items) -> "DynList":
        out = DynList(items, self.owner)
        out.room = self.room
        return out


class RangeVal(Compound):
    """range(start, stop, step) as a value: (start, stop, step), i64 each (iteration.py)."""


class SliceVal(Compound):
    """slice(start, stop, step) as a value: (start, stop, step), each an int value or NONE
    (pytree.NONE); indexing with it is indexing with `start:stop:step` (arrays.py)."""


#: values NumPy takes wherever it takes an array (np.asarray of them): lists and ranges
ARRAY_LIKE = (PyList, DynList, RangeVal)


def is_value(v: Any) -> bool:
    """Whether an environment entry is a value (not missing, not `Undefined`)."""
    return isinstance(v, (Var, tuple, Record))


@dataclass(frozen=True)
class Static:
    """A compile-time object: a module, a function, or another non-numeric global."""

    obj: Any
    name: str


# ----------------------------------------------------------------------------- types

def arith(t: str) -> str:
    """Bools act as ints in arithmetic."""
    return I64 if t == BOOL else t


def unify(a: str, b: str) -> str:
    """The type two values meet in (branch results, loop-carried values, comparison
    operands): f64 if either is f64, else i64; a type meets itself unchanged. Arrays never
    change type (a mismatch fails later, located, in `Context.convert`). For arithmetic,
    unify `arith(a)` and `arith(b)`."""
    if a == b or is_array(a) or is_array(b):
        return a
    return F64 if F64 in (a, b) else I64


# ----------------------------------------------------------------------------- source

class Source:
    """The function's source text and the mapping from its AST back to the file."""

    def __init__(self, fn: types.FunctionType, top_file: str | None = None,
                 at: Loc | None = None) -> None:
        """`at`: where every node of `fn` is located instead (the user's call of a NumPy
        function written in pyad's prelude: its errors name the user's line)."""
        self.at, self.top_file = at, top_file
        found = function_source(fn)  # verified: the text `fn` was compiled from
        lines, start, self.filename = found.lines, found.start, found.filename
        self.first_line = max(start, 1)
        self.indent = len(lines[0]) - len(lines[0].lstrip())
        self.lines = lines
        self.tree = ast.parse(textwrap.dedent("".join(lines)))
        # locations in code inlined from another file carry that file
        self.loc_file = self.filename if top_file not in (None, self.filename) else None

    def loc(self, node: ast.AST) -> Loc:
        if self.at is not None:
            return self.at
        line = self.first_line + getattr(node, "lineno", 1) - 1
        col = getattr(node, "col_offset", 0) + self.indent
        end = getattr(node, "end_col_offset", None)
        same_line = getattr(node, "end_lineno", None) == getattr(node, "lineno", None)
        return Loc(line, col, end + self.indent if end is not None and same_line else None,
                   self.loc_file)

    def error(self, node: ast.AST, message: str, hint: str = "", cls=PyadSyntaxError):
        return self.error_at(self.loc(node), message, hint, cls)

    def error_at(self, loc: Loc, message: str, hint: str = "", cls=PyadSyntaxError):
        # inlined from another file, or (`at`) the call in the compiled function's own file
        where = loc.file or (self.top_file if self.at is not None else None)
        if where is not None and where != self.filename:
            return cls(message, filename=display_name(where), line=loc.line, col=loc.col,
                       end_col=loc.end_col, source_line=linecache.getline(where, loc.line),
                       hint=hint)
        idx = loc.line - self.first_line
        src = self.lines[idx] if 0 <= idx < len(self.lines) else ""
        return cls(message, filename=display_name(self.filename), line=loc.line, col=loc.col,
                   end_col=loc.end_col, source_line=src, hint=hint)


_CONSTRUCT_NAMES = {
    ast.For: "for loop", ast.AsyncFor: "async for loop", ast.While: "while loop",
    ast.With: "with statement", ast.Try: "try statement", ast.TryStar: "try statement",
    ast.Match: "match statement", ast.AsyncWith: "async with statement",
    ast.Raise: "raise statement",
    ast.Assert: "assert statement", ast.Global: "global statement",
    ast.Nonlocal: "nonlocal statement", ast.Delete: "del statement", ast.Import: "import",
    ast.ImportFrom: "import", ast.ClassDef: "class definition",
    ast.FunctionDef: "nested function definition", ast.Lambda: "lambda",
    ast.ListComp: "list comprehension", ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension", ast.GeneratorExp: "generator expression",
    ast.List: "list", ast.Dict: "dict", ast.Set: "set", ast.JoinedStr: "f-string",
    ast.Starred: "starred expression", ast.Await: "await", ast.Yield: "yield",
    ast.YieldFrom: "yield from", ast.NamedExpr: "assignment expression (:=)",
    ast.Slice: "slice", ast.Break: "break statement", ast.Continue: "continue statement",
}
_HINTS = {
    ast.SetComp: "use a list comprehension",
    ast.DictComp: "use a list comprehension, or a tuple",
    ast.Set: "use a list or a tuple",
    ast.Try: "compiled code handles no exceptions: remove the try; an error in compiled code "
             "(IndexError, ZeroDivisionError, ...) raises at the call, naming your line",
    ast.TryStar: "compiled code handles no exceptions: remove the try",
    ast.Match: "write the cases as an if/elif chain",
    ast.Import: "move the import to the top of the module (names it binds there are read "
                "when compiling)",
    ast.ImportFrom: "move the import to the top of the module (names it binds there are "
                    "read when compiling)",
}


# ----------------------------------------------------------------------------- the context

class Context:
    """What the collaborators lowering one function body share (see the module docstring).

    `parent` is the context of the caller this body is inlined into (None for the function
    being compiled); `callees` holds the recursive functions met in this compile
    (recursion.py), shared with every body inlined into it."""

    def __init__(self, fn: types.FunctionType, src: Source, names: NameGen, b: Builder,
                 parent: "Context | None", callees: dict) -> None:
        self.fn = fn
        self.src = src
        self.names = names
        self.b = b
        self.env: dict[str, Value | Undefined] = {}
        self.parent = parent
        self.callees = callees
        self.loop_depth = 0
        self.conditional = 0   # inside a part of an expression that may not run (exprs.branch)
        #: name -> the exits (%brk, %cont) that leave an iteration of the innermost loop
        #: without assigning it (loops.py)
        self.unset_at_exit: dict[str, set[str]] = {}
        #: name -> a value a `break` of the innermost loop leaves it bound to (loops.py)
        self.bound_at_break: dict[str, Any] = {}
        self.closure: dict[str, Any] = {}
        #: the local names of a lambda or nested def (closures.py); None: the code's own
        self.local_names: set[str] | None = None
        self.closure_node: ast.AST | None = None   # the lambda or def being inlined
        #: the comprehensions being lowered, innermost last (closures.Scope)
        self.scopes: list = []
        #: int and bool literals of the source by the name of their const value (shared
        #: with the bodies inlined into this one): a helper's `axis` parameter is known at
        #: compile time
        self.literals: dict[str, int] = parent.literals if parent is not None else {}
        #: rows copied out of a list of run-time length (lists.item), by name: the writes
        #: that made the copy, and where the row was read (a later write into the copy
        #: would not reach the list, so lower.py refuses it); shared like `literals`
        self.row_copies: dict[str, tuple[frozenset[int], Loc]] = \
            parent.row_copies if parent is not None else {}
        #: copies CPython would not make (ir/sharing.py): a Lazy's `shares` (NumPy's view)
        #: stored, or an array appended to a list of run-time length: the stores that
        #: filled the copy, the copy, the array CPython would share, how (`a.reshape(...)`,
        #: `xs.append(a)`) and where; lower.py refuses writes that would tell them apart
        self.shared_copies: list[tuple[frozenset[int], Var, Var, str, Loc]] = \
            parent.shared_copies if parent is not None else []
        #: the stores lists.py makes into list buffers (appends, growth), shared likewise
        self.list_stores: set[int] = parent.list_stores if parent is not None else set()
        #: the statements whose ids the three above hold, kept alive: code lowered and
        #: dropped (a probe) must not free an id that a later statement could take
        self.pinned: list = parent.pinned if parent is not None else []
        if fn.__closure__:
            self.closure = {name: cell.cell_contents for name, cell
                            in zip(fn.__code__.co_freevars, fn.__closure__)}

    # ------------------------------------------------------------------ where ops go
    def builder(self) -> Builder:
        """A new, empty builder for a nested region, at the current location."""
        return Builder(self.names, self.b.loc)

    @contextmanager
    def emitting(self, b: Builder) -> Iterator[Builder]:
        """Emit into `b` inside the `with` block (a region's body, an element loop)."""
        saved, self.b = self.b, b
        try:
            yield b
        finally:
            self.b = saved

    @contextmanager
    def scope(self, env: dict) -> Iterator[dict]:
        """Bind names in `env` inside the `with` block (a branch, a loop body)."""
        saved, self.env = self.env, env
        try:
            yield env
        finally:
            self.env = saved

    @contextmanager
    def located(self, node: ast.AST) -> Iterator[None]:
        """Stamp the ops emitted inside the `with` block with `node`'s location."""
        saved = self.b.loc
        self.b.loc = self.src.loc(node)
        try:
            yield
        finally:
            self.b.loc = saved

    def call_chain(self) -> tuple:
        """The code objects of this body and of the callers it is inlined into."""
        chain, ctx = [], self
        while ctx is not None:
            chain.append(ctx.fn.__code__)
            ctx = ctx.parent
        return tuple(chain)

    def temp(self, what: str) -> str:
        """A fresh environment name for a value the compiler binds (`.lc`, `.lc.1`, ...):
        never a Python name, and never the name of another temporary, even one made while
        the first is still bound (a comprehension over a comprehension)."""
        return self.names.fresh("." + what)

    # ------------------------------------------------------------------ errors
    def error(self, node: ast.AST, message: str, hint: str = "", cls=PyadSyntaxError):
        return self.src.error(node, message, hint, cls)

    def unsupported(self, node: ast.AST, what: str = "") -> PyadSyntaxError:
        name = _CONSTRUCT_NAMES.get(type(node), what or type(node).__name__)
        return self.src.error(node, f"unsupported syntax: {name}", hint=_HINTS.get(
            type(node), "see the supported subset in the README"))

    # ------------------------------------------------------------------ conversions
    def convert(self, v: Var, t: str) -> Var:
        """`v` as a value of scalar type `t` (bools and ints widen, floats truncate)."""
        if v.type == t:
            return v
        if is_array(v.type) or is_array(t):
            message = (f"a value of type {v.type} is used where {t} is expected; a variable "
                       "must keep one array type, and arrays are not numbers")
            if self.b.loc is not None:
                raise self.src.error_at(self.b.loc, message, cls=PyadTypeError)
            raise PyadTypeError(message)
        if t == F64:
            return self.b.tofloat(v)
        if t == I64:
            return self.b.toint(v)
        return self.b.tobool(v)

    # ------------------------------------------------------------------ names
    def declares(self, name: str) -> bool:
        """Whether `name` is a local variable of this body (assigned somewhere in it)."""
        if self.local_names is not None:
            return name in self.local_names
        code = self.fn.__code__
        return name in code.co_varnames + code.co_cellvars

    def is_local(self, node: ast.expr) -> bool:
        """Whether `node` is a value of the function (not a module or global object)."""
        if isinstance(node, ast.Name):
            return node.id in self.env
        if isinstance(node, ast.Attribute):
            return self.is_local(node.value)
        return True

    def calls_nothing(self, node: ast.expr) -> bool:
        """Whether `node` calls nothing but len, tuple, range and int: lowering it twice (to
        see if it is known when compiling, then as written) repeats no effect."""
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and not (
                    isinstance(n.func, ast.Name) and n.func.id not in self.env
                    and getattr(builtins, n.func.id, None) in (len, tuple, range, int)
                    and n.func.id not in self.fn.__globals__ and n.func.id not in self.closure):
                return False
        return True

    def resolve_static(self, node: ast.expr) -> Static:
        """The compile-time object a non-local name or attribute path refers to."""
        if isinstance(node, ast.Name):
            if node.id in self.closure:
                return Static(self.closure[node.id], node.id)
            g = self.fn.__globals__
            if node.id in g:
                return Static(g[node.id], node.id)
            if hasattr(builtins, node.id):
                return Static(getattr(builtins, node.id), node.id)
            raise self.error(node, f"name `{node.id}` is not defined",
                             hint="define it (at module level) before the first call")
        if isinstance(node, ast.Attribute):
            local = isinstance(node.value, ast.Name) and node.value.id in self.env
            if local or not isinstance(node.value, (ast.Name, ast.Attribute)):
                raise self.error(node, f"unsupported attribute access `.{node.attr}` on a "
                                 "value", hint="only attributes of modules (math.pi, "
                                 "math.exp) are supported on scalars")
            base = self.resolve_static(node.value)
            if not hasattr(base.obj, node.attr):
                raise self.error(node, f"`{base.name}` has no attribute `{node.attr}`")
            return Static(getattr(base.obj, node.attr), f"{base.name}.{node.attr}")
        raise self.unsupported(node)
