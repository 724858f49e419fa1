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
a float base case widens the guess to f64 on the next round). Where the body cannot be
lowered with a number for the call's value (`a @ mat_power(a, k - 1)`), f64 arrays of 1, 2
and 3 dimensions are tried next.

Arguments are numbers and arrays (1-3-D, any layout: a view or a transpose crosses the call
as its descriptor, data pointer, shape and strides, so the callee reads the caller's memory, as
Python passes arrays by reference). A recursive function may not write into an array it was
given (refused by `Lowering.run` like writes into a compiled function's arguments), so a call
only reads its array arguments. Results are numbers, arrays and tuples of them; an array
result that may share memory with an argument or a global is refused
(`_check_fresh_results`), so every array a call returns is new, as the caller's alias
analysis assumes. Tuple arguments are refused (pass their elements one by one). The callee's Func is
otherwise left as lowered: the pipeline simplifies it with its caller (`ir.callees_of`).
"""
from __future__ import annotations

import ast
import itertools
import inspect
import sys
import textwrap
import types

from .. import pytree
from ..errors import PyadError, PyadTypeError
from ..ir.memory import points_to
from ..ir.nodes import F64, I64, MAX_NDIM, Callee, Func, Op, Var, array_type, is_array, \
    ndim_of, walk

MAX_ROUNDS = 4
MAX_GUESSES = 32
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
        if isinstance(v, tuple) or not isinstance(v, Var):
            raise ctx.error(node, f"recursive call to `{name}` with a "
                            f"{'tuple' if isinstance(v, tuple) else 'list or structured'} "
                            "argument: recursive functions take numbers and arrays",
                            cls=PyadTypeError,
                            hint="pass the elements one by one (or a list as `np.array(...)`)")
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
    guesses = _guesses(n or 1, arg_types)
    callee.result_types, callee.shape = guesses[0], tuple(range(n)) if n else 0
    failures: list[PyadError] = []
    for _ in range(len(guesses) + MAX_ROUNDS):
        sub = lw.separate(fn, tuple(arg_types))
        try:
            func = sub.run(signature_checked=True)
        except PyadError as exc:
            if sub.result is not None:
                raise  # the body lowered: a check on the whole function (writes into arguments)
            failures.append(exc)
            if len(failures) < len(guesses):
                callee.result_types = guesses[len(failures)]
                continue
            if str(failures[0]) == str(exc):
                raise  # not about the guessed result type: located in the callee's source
            raise lw.ctx.error(node, f"cannot determine the result type of recursive "
                               f"function `{name}`: recursive functions return numbers, "
                               f"arrays or tuples of them (assuming it returns "
                               f"{'/'.join(callee.result_types)}: "
                               f"{getattr(exc, 'bare_message', exc)})",
                               cls=PyadTypeError) from None
        leaves = pytree.leaves(sub.result)
        types_, shape = tuple(v.type for v in leaves), pytree.indexed(sub.result)
        if (types_, shape) == (callee.result_types, callee.shape):
            _check_fresh_results(func, sub)
            callee.func = func
            return
        callee.result_types, callee.shape = types_, shape
    raise lw.ctx.error(node, f"cannot determine the result type of recursive function "
                       f"`{name}`", cls=PyadTypeError,
                       hint="make every return statement return the same types")


def _guesses(n: int, arg_types: list[str]) -> list[tuple[str, ...]]:
    """The result types to assume, in order, for a function returning `n` values (a tuple
    of n if n > 1): the same type for every value (an int, a float, then f64 arrays of the
    arguments' dimensions first), then mixtures of ints, floats and f64 arrays of the
    arguments' dimensions (an array and a norm), at most MAX_GUESSES in all."""
    arg_dims = sorted({ndim_of(t) for t in arg_types if is_array(t)})
    dims = arg_dims + [k for k in range(1, MAX_NDIM + 1) if k not in arg_dims]
    uniform = [(t,) * n for t in (I64, F64, *(array_type(F64, k) for k in dims))]
    kinds = (I64, F64, *(array_type(F64, k) for k in arg_dims))
    mixed = [g for g in itertools.product(kinds, repeat=n) if g not in uniform]
    return (uniform + mixed)[:MAX_GUESSES]


def _check_fresh_results(func: Func, sub) -> None:
    """Refuse an array result that may share memory with a parameter or a global array
    (`return a`, `return a[1:]`): Python would return the caller's own array, which the
    caller may then write into; a call's array results must be new arrays (the caller's
    alias analysis treats them so). `sub` is the callee's Lowering, for the location."""
    pts = points_to(func.block)
    params = {p.name: name for p, name in zip(func.params, func.arg_names)
              if is_array(p.type)}
    consts = {s.outs[0].name for s in walk(func.block)
              if isinstance(s, Op) and s.op == "constarray"}
    for r in func.results:
        roots = pts.get(r.name, set()) if is_array(r.type) else set()
        if roots & (params.keys() | consts):
            hit = sorted(roots & params.keys())
            what = f"its argument `{params[hit[0]]}`" if hit else "a global array"
            raise sub.ctx.error(_sharing_return(sub.fdef, set(params.values())),
                                f"recursive function `{sub.fdef.name}` may return {what} or "
                                "a view of it: the array results of a recursive function "
                                "must be new arrays", cls=PyadTypeError,
                                hint="return a copy (`return a.copy()`)")


def _sharing_return(fdef: ast.FunctionDef, params: set[str]) -> ast.AST:
    """The `return` statement that most likely returns a parameter's memory (for the error's
    location): the first one naming a parameter outside any call; else the `def`."""
    for node in ast.walk(fdef):
        if isinstance(node, ast.Return) and node.value is not None:
            calls = {id(n) for c in ast.walk(node.value) if isinstance(c, ast.Call)
                     for n in ast.walk(c)}
            if any(isinstance(n, ast.Name) and n.id in params and id(n) not in calls
                   for n in ast.walk(node.value)):
                return node
    return fdef


def _returned_tuple_length(fn) -> int:
    """The length of the first tuple literal that `fn` returns (0 if none)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            return len(node.value.elts)
    return 0

