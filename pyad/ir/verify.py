"""The IR verifier: SSA (each name defined once, used after its definition and in scope),
types agree with the op table, If blocks yield what the If declares. Run after every pass
in tests; a failure is a pyad bug (PyadInternalError)."""
from __future__ import annotations

import math

from ..errors import PyadInternalError
from .nodes import F64, TYPES, elem_type, is_array, ndim_of, Block, Func, If, Op, While
from .ops import OPS

CALL_OPS = ("call", "callfwd", "callbwd")


def is_float_array(t: str) -> bool:
    return is_array(t) and elem_type(t) == F64


def call_types(s: Op) -> tuple[list[str], list[str]]:
    """The argument and result types a call op must have, from its callee."""
    callee = s.attrs[0]
    params, results = list(callee.arg_types), list(callee.result_types)
    if s.op == "callfwd":   # the primal args, then the shadows of the f64 array args
        return params + [t for t in params if is_float_array(t)], results
    if s.op == "callbwd":   # cotangents of the f64 (array) results -> of the f64 params
        return [t for t in results if t == F64 or is_float_array(t)], \
            [t for t in params if t == F64]
    return params, results


def verify(func: Func) -> Func:
    defined: set[str] = set()
    _block(func.block, {}, defined, func.name)
    return func


def _fail(fname: str, msg: str) -> None:
    raise PyadInternalError(f"IR verification failed in {fname}: {msg}")


def _block(block: Block, scope: dict[str, str], defined: set[str], fname: str) -> None:
    scope = dict(scope)

    def define(v) -> None:
        if v.name in defined:
            _fail(fname, f"%{v.name} defined twice")
        if v.type not in TYPES:
            _fail(fname, f"%{v.name} has unknown type {v.type}")
        defined.add(v.name)
        scope[v.name] = v.type

    def use(v, where: str) -> None:
        if v.name not in scope:
            _fail(fname, f"%{v.name} used before definition or out of scope in {where}")
        if scope[v.name] != v.type:
            _fail(fname, f"%{v.name} used as {v.type} but defined as {scope[v.name]} in {where}")

    for p in block.params:
        define(p)
    for s in block.body:
        if isinstance(s, Op):
            row = OPS.get(s.op)
            if row is None:
                _fail(fname, f"unknown op {s.op}")
            for a in s.args:
                use(a, s.op)
            if s.op == "alloc":
                if len(s.outs) != 1 or not is_array(s.outs[0].type) \
                        or [a.type for a in s.args] != ["i64"] * ndim_of(s.outs[0].type):
                    _fail(fname, "alloc takes one i64 per dimension of its array result")
            elif s.op in CALL_OPS:
                want_args, want_outs = call_types(s)
                if [a.type for a in s.args] != want_args or [o.type for o in s.outs] != want_outs:
                    _fail(fname, f"{s.op} {s.attrs[0]} takes ({', '.join(want_args)}) and "
                          f"gives ({', '.join(want_outs)})")
            elif s.op == "constarray":
                nd = s.attrs[0] if s.attrs else -1
                if len(s.outs) != 1 or not is_array(s.outs[0].type) \
                        or nd != ndim_of(s.outs[0].type) \
                        or len(s.attrs) != 1 + nd + math.prod(s.attrs[1:1 + nd]):
                    _fail(fname, "constarray has one array result and attrs (ndim, *shape, "
                          "*elements)")
            elif s.op in ("const", "pop"):
                if len(s.attrs) != (s.op == "const") or len(s.outs) != 1:
                    _fail(fname, f"{s.op} has one result (and const one value)")
            else:
                want = row.result_type(tuple(a.type for a in s.args), s.attrs)
                if want == "void" and not s.outs:
                    pass
                elif want is None or len(s.outs) != 1 or s.outs[0].type != want:
                    sig = ", ".join(a.type for a in s.args)
                    _fail(fname, f"{s.op}({sig}) cannot produce "
                          f"{', '.join(o.type for o in s.outs)}")
        elif isinstance(s, If):
            use(s.cond, "if")
            if s.cond.type != "bool":
                _fail(fname, "if condition must be bool")
            for b in (s.then, s.orelse):
                if b.params:
                    _fail(fname, "if blocks take no params")
                _block(b, scope, defined, fname)
                if [r.type for r in b.results] != [o.type for o in s.outs]:
                    _fail(fname, "if block yields do not match the if's results")
        elif isinstance(s, While):
            for v in s.inits:
                use(v, "while")
            types = [v.type for v in s.inits]
            if [o.type for o in s.outs] != types:
                _fail(fname, "while results do not match its carried values")
            for b in (s.cond, s.body):
                if [p.type for p in b.params] != types:
                    _fail(fname, "while block params do not match its carried values")
                _block(b, scope, defined, fname)
            if [r.type for r in s.cond.results] != ["bool"]:
                _fail(fname, "while condition must yield one bool")
            if [r.type for r in s.body.results] != types:
                _fail(fname, "while body must yield the next carried values")
        else:
            _fail(fname, f"unknown statement {type(s).__name__}")
        for o in s.outs:
            define(o)
    for r in block.results:
        use(r, "yield/return")
