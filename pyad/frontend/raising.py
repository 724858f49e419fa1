"""Frontend, the user's own exceptions: `raise E(...)` and `assert test, message`.

Both become the IR's `raise_if` (the check the compiler already emits for an index out of
bounds): `assert test, msg` raises AssertionError when `test` is false, like CPython without
`-O`; `raise E(msg)` raises where it stands, and the statement leaves the function like a
`return` (the exit flag of control.py), so the code after it runs only on the paths that did
not raise.

The exception's class is one of the builtin classes native code can name (`RAISABLE`, a
subset of the error kinds of codegen/abi.py), resolved at compile time; the message is fixed
when compiling: a string literal as it is, an f-string with its replacement fields shown as
their source text (`f"n={n}"` gives "n={n}"), any other expression as its source text. The
location of the statement follows the message, as for every error of compiled code.
"""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.nodes import BOOL

#: builtin exception classes a `raise` may name: error kinds of native code (codegen/abi.py),
#: without those the runtime raises for itself (MemoryError, RecursionError)
RAISABLE = ("ValueError", "TypeError", "ZeroDivisionError", "IndexError", "KeyError",
            "LookupError", "ArithmeticError", "FloatingPointError", "OverflowError",
            "NotImplementedError", "RuntimeError", "AssertionError")


def lower_assert(lw, node: ast.Assert) -> None:
    """`assert test, msg`: AssertionError at this line when `test` is false."""
    from . import records   # import-time: records imports the lowering context, not raising
    ctx = lw.ctx
    message = _message(ctx, node.msg) if node.msg is not None else ""
    taken = records.static_truth(lw, node.test)
    if taken is True:
        return
    ex, b = lw.exprs, ctx.b
    bad = b.const(True, BOOL) if taken is False else \
        b.emit("not", ex.truth(ex.expr(node.test), node.test))
    b.loc = ctx.src.loc(node)
    b.emit("raise_if", bad, attrs=("AssertionError", message))


def lower_raise(lw, node: ast.Raise) -> None:
    """`raise E`, `raise E(msg)`, `raise E(msg) from cause`: raise here (the caller marks
    the path as left)."""
    ctx = lw.ctx
    if node.exc is None:
        raise ctx.error(node, "a bare `raise` re-raises the exception being handled, and "
                        "compiled code handles none", hint="raise a new exception: "
                        "`raise ValueError(\"...\")`")
    exc, args = node.exc, []
    if isinstance(exc, ast.Call):
        if exc.keywords or len(exc.args) > 1:
            raise ctx.error(exc, "an exception raised by compiled code takes one message",
                            hint="write `raise ValueError(\"...\")`")
        exc, args = exc.func, exc.args
    name = _class_name(ctx, exc)
    message = _message(ctx, args[0]) if args else ""
    ctx.b.loc = ctx.src.loc(node)
    ctx.b.emit("raise_if", ctx.b.const(True, BOOL), attrs=(name, message))


def _class_name(ctx, node: ast.expr) -> str:
    if ctx.is_local(node):
        raise ctx.error(node, "the exception raised by compiled code is a class named "
                        "in the code", cls=PyadTypeError, hint="write `raise ValueError(...)`")
    obj = ctx.resolve_static(node).obj
    if isinstance(obj, type) and issubclass(obj, BaseException):
        if obj.__module__ == "builtins" and obj.__name__ in RAISABLE:
            return obj.__name__
        bases = [c.__name__ for c in obj.__mro__ if c.__module__ == "builtins"
                 and c.__name__ in RAISABLE]
        hint = (f"raise {bases[0]} (a base class of {obj.__name__}) instead, or check "
                "before the call" if bases else "raise one of " + ", ".join(RAISABLE))
        raise ctx.error(node, f"compiled code cannot raise `{obj.__name__}`: it raises "
                        "the builtin exceptions " + ", ".join(RAISABLE),
                        cls=PyadTypeError, hint=hint)
    raise ctx.error(node, "`raise` needs an exception class", cls=PyadTypeError,
                    hint="write `raise ValueError(\"...\")`")


def _message(ctx, node: ast.expr) -> str:
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                parts.append("{" + ast.unparse(v.value) + "}")
        return "".join(parts)
    return ast.unparse(node)
