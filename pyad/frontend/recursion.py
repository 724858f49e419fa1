"""Frontend, recursion: a recursive function becomes a native function of its own.

Calls are inlined (calls.py) except where a function calls itself, directly or through other
functions being inlined: that call becomes a `call` op to an `ir.Callee`, whose `func` is the
function lowered on its own for the argument types of the call (one Callee per function and
argument types, shared by every call in one compile). Codegen emits it as a separate native
function with a hidden depth argument (RecursionError past `max_depth()`); the AD pass gives it
a forward half that pushes its saved values on the tape and a backward half that pops them.

The result type of a recursive call must be known before the body that contains the call is
lowered. It is found by iteration: assume i64 results (or a tuple of them, if a `return`
returns a tuple literal), lower the body, and lower again with the types the body actually
returned, until they agree (i64 first, so that `n * fact(n - 1)` stays an int as in Python;
a float base case widens the guess to f64 on the next round).

Recursive functions take and return numbers (and tuples of numbers), not arrays. The callee's
Func is left as lowered: the pipeline simplifies it with its caller (`ir.callees_of`).
"""
from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import types

from .. import pytree
from ..errors import PyadError, PyadTypeError
from ..ir.nodes import F64, I64, Callee, Op, Var, is_array

MAX_ROUNDS = 4
DEPTH_CAP = 10_000


def max_depth() -> int:
    """The native call depth past which a recursive function raises RecursionError: Python's
    recursion limit when the function is compiled, at most DEPTH_CAP (native frames are small,
    but a thread's stack may be too)."""
    return min(sys.getrecursionlimit(), DEPTH_CAP)


def recursive_call(lw, fn: types.FunctionType, name: str, values: list, node: ast.Call):
    """The value of the recursive call `node` (in the body lowered by `lw`, a
    `frontend.Lowering`) of `fn` with `values`."""
    ctx = lw.ctx
    args = []
    for v in values:
        v = lw.arrayops.materialize(v)
        if isinstance(v, tuple) or is_array(v.type):
            raise ctx.error(node, f"recursive call to `{name}` with "
                            f"{'a tuple' if isinstance(v, tuple) else 'an array'} argument: "
                            "recursive functions take numbers", cls=PyadTypeError,
                            hint="pass the numbers one by one, or write the recursion as "
                            "a loop")
        args.append(v)
    key = (fn.__code__, tuple(a.type for a in args))
    callee = ctx.callees.get(key)
    if callee is None:
        callee = ctx.callees[key] = Callee(f"{name}.{len(ctx.callees)}", key[1])
        _lower_callee(lw, callee, fn, name, [a.type for a in args], node)
    outs = tuple(Var(ctx.names.fresh(name), t) for t in callee.result_types)
    ctx.b.stmts.append(Op(outs, "call", tuple(args), (callee,), ctx.b.loc))
    return pytree.gather(callee.shape, outs)


def _lower_callee(lw, callee: Callee, fn, name: str, arg_types: list[str], node) -> None:
    """Lower `fn` on its own into `callee.func`, iterating on its result types."""
    n = _returned_tuple_length(fn)
    guesses = [(I64,) * (n or 1), (F64,) * (n or 1)]
    callee.result_types, callee.shape = guesses[0], tuple(range(n)) if n else 0
    failures: list[PyadError] = []
    for _ in range(MAX_ROUNDS):
        sub = lw.separate(fn, tuple(arg_types))
        try:
            func = sub.run(signature_checked=True)
        except PyadError as exc:
            failures.append(exc)
            if len(failures) < len(guesses):
                callee.result_types = guesses[len(failures)]
                continue
            if str(failures[0]) == str(exc):
                raise  # not about the guessed result type: located in the callee's source
            raise lw.ctx.error(node, f"cannot determine the result type of recursive "
                               f"function `{name}`: recursive functions return numbers or "
                               f"tuples of numbers (assuming it returns "
                               f"{'/'.join(callee.result_types)}: "
                               f"{getattr(exc, 'bare_message', exc)})",
                               cls=PyadTypeError) from None
        leaves = pytree.leaves(sub.result)
        if any(is_array(v.type) for v in leaves):
            raise lw.ctx.error(node, f"recursive function `{name}` returns an array: "
                               "recursive functions return numbers", cls=PyadTypeError,
                               hint="write the recursion as a loop")
        types_, shape = tuple(v.type for v in leaves), pytree.indexed(sub.result)
        if (types_, shape) == (callee.result_types, callee.shape):
            callee.func = func
            return
        callee.result_types, callee.shape = types_, shape
    raise lw.ctx.error(node, f"cannot determine the result type of recursive function "
                       f"`{name}`", cls=PyadTypeError,
                       hint="make every return statement return the same types")


def _returned_tuple_length(fn) -> int:
    """The length of the first tuple literal that `fn` returns (0 if none)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            return len(node.value.elts)
    return 0

