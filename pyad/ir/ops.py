"""The op table: every primitive pyad knows, declared once.

Each row gives an op's
- type rule (`sigs`: argument types -> result type),
- meaning (`py`: a plain-Python reference implementation; the IR interpreter runs it),
- adjoint (`adjoint(b, ct, y, *args)`: the cotangent of each argument, written with the IR
  builder `b` so it reads like math; `None` for an argument means a zero contribution),
- lowering (`lower`: plain data that `pyad.codegen` turns into LLVM IR: an instruction, an
  LLVM intrinsic, a libm function, or ("inline", name), pyad's own vectorizable kernel of
  codegen/lower/vecmath.py),
- Python spellings (`spell`: every function the frontend maps onto the op, "math.exp",
  "builtins.abs", "numpy.exp"; numpy ones apply elementwise; pyad/frontend/functions.py says
  how the few that are more than "the op of float arguments" are lowered),
- sample points (`samples`: argument tuples inside the domain, used by the test harness).

Ops whose derivative is zero almost everywhere (comparisons, floor, ceil, floordiv, casts to
int or bool, sign) have `adjoint=ZERO`: they pass no gradient back. Ops that may only appear
in adjoint code (digamma) have `adjoint=None` and are refused by the AD pass if met.
Integer and bool values never carry gradients.
"""
from __future__ import annotations

import math

import numpy as np

from .array_rows import ARRAY_ROWS
from .linalg_rows import LINALG_ROWS
from .pick_rows import PICK_ROWS
from .nodes import BOOL, F64, I64, array_type, elem_type, is_array, ndim_of
from .opdef import ARITH, CALL, CMP, F_F, FF_F, II_I, RULE, STRUCTURAL, VOID, ZERO, OpDef, \
    call_sig, rule_sig
from .semantics import cbrt, digamma, floordiv, ieee, ieee_div, imul, ipow, lgamma, mod, pyfloat_ceil, pyfloat_floor, pyfloat_rint, toint, true_div, wrap



# ----------------------------------------------------------------------------- array type rules

def _indexed(ts: tuple[str, ...], extra: int) -> tuple[str, int] | None:
    """(array type, ndim) if `ts` is an array followed by one i64 index per dimension and
    `extra` more types."""
    if not ts or not is_array(ts[0]):
        return None
    nd = ndim_of(ts[0])
    if len(ts) != 1 + nd + extra or any(t != I64 for t in ts[1:1 + nd]):
        return None
    return ts[0], nd


def _load_sig(ts):
    r = _indexed(ts, 0)
    return elem_type(r[0]) if r else None


def _store_sig(ts):
    r = _indexed(ts, 1)
    return VOID if r and ts[-1] == elem_type(r[0]) else None


def _accum_sig(ts):
    r = _indexed(ts, 1)
    return VOID if r and elem_type(r[0]) == F64 and ts[-1] == F64 else None


def _dim_sig(ts):
    return I64 if len(ts) == 1 and is_array(ts[0]) else None


def _row_sig(ts):
    if len(ts) == 2 and is_array(ts[0]) and ndim_of(ts[0]) >= 2 and ts[1] == I64:
        return array_type(elem_type(ts[0]), ndim_of(ts[0]) - 1)
    return None


def _col_sig(ts):
    if len(ts) == 2 and is_array(ts[0]) and ndim_of(ts[0]) == 2 and ts[1] == I64:
        return array_type(elem_type(ts[0]), 1)
    return None


def _slice_sig(ts):
    return ts[0] if len(ts) == 3 and is_array(ts[0]) and ts[1:] == (I64, I64) else None


def _view_sig(ts, attrs):
    """view(a, operands...) with attrs[0] a pattern: one letter per index item, `i` an
    integer (one normalized operand), `s` a slice (start, count, step operands, normalized),
    `n` a new axis; the axes of `a` after the pattern are kept whole."""
    if not ts or not is_array(ts[0]) or len(attrs) != 1 or not isinstance(attrs[0], str):
        return None
    pat = attrs[0]
    if set(pat) - set("isn") or len(ts) - 1 != pat.count("i") + 3 * pat.count("s") \
            or any(t != I64 for t in ts[1:]):
        return None
    nd = ndim_of(ts[0])
    used = pat.count("i") + pat.count("s")
    out = pat.count("s") + pat.count("n") + nd - used
    return array_type(elem_type(ts[0]), out) if used <= nd and 1 <= out <= 3 else None


def _view(a, *rest):
    *ops, pat = rest
    idx, it = [], iter(ops)
    for c in pat:
        if c == "i":
            idx.append(next(it))
        elif c == "n":
            idx.append(None)
        else:
            start, count, step = next(it), next(it), next(it)
            stop = start + count * step
            idx.append(slice(start, stop if stop >= 0 else None, step))
    return a[tuple(idx)]


def _constarray(ndim, *rest):
    return np.array(rest[ndim:]).reshape(rest[:ndim])


def _same_array(ts):
    return ts[0] if len(ts) == 1 and is_array(ts[0]) else None


def _tape_sig(ts):
    return VOID if len(ts) == 1 else None


def _load(a, *idx):
    return a[idx].item()


def _store(a, *idx_v):
    a[idx_v[:-1]] = idx_v[-1]


def _accum(a, *idx_v):
    a[idx_v[:-1]] += idx_v[-1]


def _normidx(i: int, n: int, axis: int, nonneg: bool = False) -> int:
    """i wrapped like Python's a[i] (negative counts from the end), bounds-checked. `nonneg`:
    a `wrapidx` whose i is known to be >= 0 (pyad/ir/split_sums.py; checked here all the
    same)."""
    j = i + n if i < 0 else i
    if not 0 <= j < n:
        raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
    return j


# ----------------------------------------------------------------------------- the table


def _atan2_adjoint(b, ct, y, x1, x2) -> tuple:
    """d atan2(a, b) = (b da - a db) / (a^2 + b^2), as (b / h) / h and (a / h) / h with h =
    hypot(a, b) (the squares neither overflow nor underflow); 0 at (0, 0), the least
    subgradient (as hypot's), where the quotients are nan."""
    h = b.hypot(x1, x2)
    zero = b.eq(h, b.const(0.0))
    d1, d2 = (b.select(zero, b.const(0.0), b.fdiv(b.fdiv(x, h), h)) for x in (x2, x1))
    return b.mul(ct, d1), b.neg(b.mul(ct, d2))

_ROWS: list[OpDef] = [
    # --- structure and arithmetic
    OpDef("const", {(): None}, lambda: None, ZERO, ("const",),
          "a constant; attrs = (value,); the result type is given by the out var"),
    OpDef("push", _tape_sig, None, ZERO, ("custom",),
          "push a value (a scalar or an array reference) on the AD tape (forward sweep)",
          effect=True),
    OpDef("pop", {(): None}, None, ZERO, ("custom",),
          "pop a value of the out var's type from the AD tape (reverse sweep)", effect=True),
    OpDef("tapemark", {(): I64}, None, ZERO, ("custom",),
          "the bytes on the AD tape now (checkpointing: pyad/ad/checkpoint.py)", effect=True),
    OpDef("tapecut", {(I64,): VOID}, None, ZERO, ("custom",),
          "drop the AD tape above its first `a` bytes (a tapemark), noting the peak",
          effect=True),
    OpDef("tapepeak", {(): VOID}, None, ZERO, ("custom",),
          "note the bytes on the AD tape now in its peak (a loop reversed inside its trips "
          "pops what each trip pushed: pyad/ad/fused.py)", effect=True),
    OpDef("raise_if", {(BOOL,): VOID}, None, ZERO, ("custom",),
          "raise exception attrs[0] (a builtins name) with message attrs[1] when the "
          "argument is true", effect=True),
    # --- derivative control (pyad.stop_gradient, pyad.custom_vjp)
    OpDef("stopgrad", F_F, lambda x: x, ZERO, ("custom",),
          "a, through which no gradient flows (pyad.stop_gradient)",
          strong_zero=False),
    OpDef("custom_vjp", rule_sig, lambda y, *rest: y, RULE, ("custom",),
          "y (args: y, residuals..., arguments...) whose adjoint is the backward function of "
          "custom rule attrs[0] (a pyad.frontend.custom.Rule) for value leaf attrs[1]"),
    # --- native calls (recursive functions: pyad/frontend/recursion.py); attrs[0] is the ir.Callee
    OpDef("call", call_sig, None, CALL, ("call",),
          "the results of callee attrs[0] applied to the arguments"),
    OpDef("callfwd", call_sig, None, None, ("call",),
          "call, forward sweep: args are the call's, then the shadows of its f64 array args; "
          "the results; the callee's saved values go on the tape",
          effect=True),
    OpDef("callbwd", call_sig, None, None, ("call",),
          "call, reverse sweep: pops the callee's saved values; arguments are the cotangents "
          "of its f64 results and f64 array results, results the cotangents of its f64 "
          "params (f64 array params' cotangents are added into the shadows callfwd took)",
          effect=True),
    OpDef("add", ARITH, lambda a, b: wrap(a + b) if isinstance(a, int) else a + b,
          lambda b, ct, y, x1, x2: (ct, ct),
          ("inst", {F64: "fadd", I64: "add"}), "a + b", samples=((1.5, -2.25), (-3.0, 0.5)),
          strong_zero=False),
    OpDef("sub", ARITH, lambda a, b: wrap(a - b) if isinstance(a, int) else a - b,
          lambda b, ct, y, x1, x2: (ct, b.neg(ct)),
          ("inst", {F64: "fsub", I64: "sub"}), "a - b", samples=((1.5, -2.25), (-3.0, 0.5)),
          strong_zero=False),
    OpDef("mul", ARITH, lambda a, b: wrap(a * b) if isinstance(a, int) else a * b,
          lambda b, ct, y, x1, x2: (b.mul(ct, x2), b.mul(ct, x1)),
          ("inst", {F64: "fmul", I64: "mul"}), "a * b", samples=((1.5, -2.25), (-3.0, 0.5))),
    OpDef("imul", II_I, imul, ZERO, ("custom",),
          "a * b of ints the user wrote; OverflowError outside the 64-bit range (index "
          "arithmetic the compiler makes uses `mul`)"),
    OpDef("div", FF_F, true_div,
          lambda b, ct, y, x1, x2: (b.fdiv(ct, x2), b.neg(b.fdiv(b.mul(ct, y), x2))),
          ("custom",), "a / b (true division; raises ZeroDivisionError for b == 0)",
          samples=((1.5, -2.25), (-3.0, 0.5))),
    OpDef("fdiv", FF_F, ieee_div,
          lambda b, ct, y, x1, x2: (b.fdiv(ct, x2), b.neg(b.fdiv(b.mul(ct, y), x2))),
          ("inst", {F64: "fdiv"}),
          "a / b with IEEE results (inf, nan) for b == 0; used by adjoint rules (which must "
          "not raise where the primal did not) and by np.mean"),
    OpDef("floordiv", ARITH, floordiv, ZERO, ("custom",),
          "a // b with Python's rounding toward -inf; ZeroDivisionError for b == 0",
          samples=((7.5, -2.0), (-7.0, 2.5))),
    OpDef("mod", ARITH, mod,
          lambda b, ct, y, x1, x2: (ct, b.neg(b.mul(ct, b.floordiv(x1, x2)))),
          ("custom",), "a % b with the sign of b (Python); ZeroDivisionError for b == 0",
          samples=((7.5, -2.0), (-7.2, 2.5))),
    OpDef("fmod", FF_F, ieee(math.fmod),
          lambda b, ct, y, x1, x2: (ct, b.neg(b.mul(ct, b.copysign(
              b.floor(b.abs(b.fdiv(x1, x2))), b.fdiv(x1, x2))))),
          ("libm", "fmod"), "a - trunc(a / b) * b, the remainder with the sign of a (C's "
          "fmod; nan for b == 0)", spell=("math.fmod", "numpy.fmod"),
          samples=((7.5, -2.0), (-7.2, 2.5))),
    OpDef("pow", FF_F, ieee(math.pow),
          lambda b, ct, y, x1, x2: (
              b.select(b.eq(x2, b.const(0.0)), b.const(0.0),
                       b.mul(ct, b.mul(x2, b.pow(x1, b.sub(x2, b.const(1.0)))))),
              b.select(b.eq(x1, b.const(0.0)), b.const(0.0), b.mul(ct, b.mul(y, b.log(x1))))),
          ("intrinsic", "llvm.pow"), "a ** b for floats (IEEE: nan for a < 0 and fractional b); d/da is 0 where b == 0 and "
          "d/db is 0 where a == 0",
          spell=("math.pow", "builtins.pow", "numpy.power"),
          samples=((1.5, -2.25), (0.7, 3.0), (2.0, 0.5))),
    OpDef("ipow", II_I, ipow, ZERO, ("custom",),
          "a ** b for ints; ValueError for b < 0 (Python would return a float), "
          "OverflowError outside the 64-bit range"),
    OpDef("neg", {(F64,): F64, (I64,): I64}, lambda a: wrap(-a) if isinstance(a, int) else -a,
          lambda b, ct, y, x: (b.neg(ct),), ("custom",), "-a", samples=((1.5,), (-0.25,)),
          strong_zero=False),
    OpDef("select", {(BOOL, F64, F64): F64, (BOOL, I64, I64): I64, (BOOL, BOOL, BOOL): BOOL},
          lambda c, a, b: a if c else b,
          lambda b, ct, y, c, x1, x2: (None, b.select(c, ct, b.const(0.0)),
                                       b.select(c, b.const(0.0), ct)),
          ("inst", "select"), "c ? a : b, both evaluated (used by rules, not by the frontend)",
          strong_zero=False),
    # --- arrays (differentiated structurally by pyad.ad, through shadow arrays)
    OpDef("alloc", lambda ts: None, None, STRUCTURAL, ("custom",),
          "a new zero-filled C-contiguous array of the out var's type; args = its shape",
          memory="alloc"),
    OpDef("constarray", lambda ts: None, _constarray, ZERO, ("custom",),
          "a read-only array constant (a global NumPy array, frozen when compiling); attrs = "
          "(ndim, *shape, *elements in row-major order); the out var gives the type"),
    OpDef("dim", _dim_sig, lambda a, k: a.shape[k], ZERO, ("custom",),
          "a.shape[k]; attrs = (k,)"),
    OpDef("normidx", {(I64, I64): I64}, _normidx, ZERO, ("custom",),
          "index i into an axis of size n, negative from the end; IndexError when out of "
          "bounds (unless boundscheck=False); attrs = (axis,)"),
    OpDef("wrapidx", {(I64, I64): I64}, _normidx, ZERO, ("custom",),
          "normidx known to be in bounds: a normidx of the forward sweep that the reverse "
          "sweep runs again on the same values (pyad/ad/taped.py), so native code does not "
          "check it again (the interpreter does: a failure there is a compiler bug), or "
          "one a split loop's block checked before its trips (pyad/ir/split_sums.py); "
          "attrs = (axis,), or (axis, True) when i is known to be >= 0 (used as it is)"),
    OpDef("load", _load_sig, _load, STRUCTURAL, ("custom",),
          "a[i, j, ...] with normalized indices", memory="read"),
    OpDef("store", _store_sig, _store, STRUCTURAL, ("custom",),
          "a[i, j, ...] = v with normalized indices", effect=True, memory="write"),
    OpDef("accum", _accum_sig, _accum, STRUCTURAL, ("custom",),
          "a[i, j, ...] += v (adjoint code: accumulation into a shadow array)",
          effect=True, memory="write"),
    OpDef("row", _row_sig, lambda a, i: a[i], STRUCTURAL, ("custom",),
          "the view a[i] of an array of 2 or more dimensions (i normalized)"),
    OpDef("col", _col_sig, lambda a, j: a[:, j], STRUCTURAL, ("custom",),
          "the view a[:, j] of a 2-D array (j normalized)"),
    OpDef("slice", _slice_sig, lambda a, lo, hi: a[lo:hi], STRUCTURAL, ("custom",),
          "the view a[lo:hi] along axis 0 (0 <= lo <= hi <= len(a))"),
    OpDef("transpose", _same_array, lambda a: a.T, STRUCTURAL, ("custom",),
          "the view a.T (dimensions reversed)"),
    OpDef("view", _view_sig, _view, STRUCTURAL, ("custom",),
          "the basic-indexing view a[items], attrs[0] spelling the items: `i` an integer "
          "(a normalized operand), `s` a slice (start, count, step operands, normalized: "
          "start is 0 when count is 0), `n` a new axis of size 1; later axes kept",
          attr_typed=True),
    # --- comparisons and logic
    OpDef("lt", CMP, lambda a, b: a < b, ZERO, ("cmp", "<"), "a < b"),
    OpDef("le", CMP, lambda a, b: a <= b, ZERO, ("cmp", "<="), "a <= b"),
    OpDef("gt", CMP, lambda a, b: a > b, ZERO, ("cmp", ">"), "a > b"),
    OpDef("ge", CMP, lambda a, b: a >= b, ZERO, ("cmp", ">="), "a >= b"),
    OpDef("eq", CMP, lambda a, b: a == b, ZERO, ("cmp", "=="), "a == b"),
    OpDef("ne", CMP, lambda a, b: a != b, ZERO, ("cmp", "!="), "a != b (true for nan)"),
    OpDef("not", {(BOOL,): BOOL}, lambda a: not a, ZERO, ("custom",), "not a"),
    # --- conversions
    OpDef("tofloat", {(I64,): F64, (BOOL,): F64}, float, ZERO, ("custom",), "float(a)",
          spell=("builtins.float",)),
    OpDef("toint", {(F64,): I64, (BOOL,): I64}, toint, ZERO, ("custom",),
          "int(a): truncation toward zero; ValueError for nan, OverflowError outside i64",
          spell=("builtins.int", "math.trunc")),
    OpDef("tobool", {(F64,): BOOL, (I64,): BOOL}, bool, ZERO, ("custom",), "bool(a): a != 0",
          spell=("builtins.bool",)),
    # --- piecewise functions
    OpDef("abs", {(F64,): F64, (I64,): I64}, lambda a: wrap(abs(a)) if isinstance(a, int) else abs(a),
          lambda b, ct, y, x: (b.mul(ct, b.sign(x)),), ("custom",),
          "|a|; the derivative at 0 is 0 (sign(0) = 0, as in JAX)",
          spell=("math.fabs", "builtins.abs", "numpy.abs", "numpy.absolute",
                 "numpy.fabs"), samples=((1.5,), (-0.25,)),
          strong_zero=False),
    OpDef("sign", F_F, lambda a: (a > 0) - (a < 0) + 0.0 if a == a else a, ZERO, ("custom",),
          "sign(a) in {-1, 0, 1} (nan for nan); used by rules and np.sign (a float, also "
          "for ints)", spell=("numpy.sign",)),
    OpDef("floor", F_F, pyfloat_floor, ZERO, ("intrinsic", "llvm.floor"),
          "floor as a float (math.floor = toint(floor(a)))",
          spell=("math.floor", "numpy.floor"), samples=((1.5,), (-0.25,))),
    OpDef("rint", F_F, pyfloat_rint, ZERO, ("intrinsic", "llvm.roundeven"),
          "a rounded to the nearest integer, ties to even, as a float (round(a) = "
          "toint(rint(a)))", spell=("numpy.rint",), samples=((1.25,), (-0.75,))),
    OpDef("ceil", F_F, pyfloat_ceil, ZERO, ("intrinsic", "llvm.ceil"),
          "ceil as a float (math.ceil = toint(ceil(a)))",
          spell=("math.ceil", "numpy.ceil"), samples=((1.5,), (-0.25,))),
    OpDef("copysign", FF_F, math.copysign,
          lambda b, ct, y, x1, x2: (b.mul(ct, b.mul(b.copysign(b.const(1.0), x1),
                                                    b.copysign(b.const(1.0), x2))), None),
          ("intrinsic", "llvm.copysign"), "|a| with the sign of b",
          spell=("math.copysign", "numpy.copysign"), samples=((1.5, -2.0), (-0.25, 3.0)),
          strong_zero=False),
    # --- elementary functions
    OpDef("exp", F_F, ieee(math.exp), lambda b, ct, y, x: (b.mul(ct, y),),
          ("inline", "exp"), "e ** a", spell=("math.exp", "numpy.exp"),
          samples=((0.5,), (-1.25,))),
    OpDef("log", F_F, ieee(math.log), lambda b, ct, y, x: (b.fdiv(ct, x),),
          ("inline", "log"), "natural log (nan for a < 0, -inf at 0)",
          spell=("math.log", "numpy.log"), samples=((0.5,), (3.25,))),
    OpDef("log2", F_F, ieee(math.log2),
          lambda b, ct, y, x: (b.fdiv(ct, b.mul(x, b.const(math.log(2.0)))),),
          ("intrinsic", "llvm.log2"), "base-2 log", spell=("math.log2", "numpy.log2"),
          samples=((0.5,), (3.25,))),
    OpDef("log10", F_F, ieee(math.log10),
          lambda b, ct, y, x: (b.fdiv(ct, b.mul(x, b.const(math.log(10.0)))),),
          ("intrinsic", "llvm.log10"), "base-10 log", spell=("math.log10", "numpy.log10"),
          samples=((0.5,), (3.25,))),
    OpDef("log1p", F_F, ieee(math.log1p), lambda b, ct, y, x: (b.fdiv(ct, b.add(x, b.const(1.0))),),
          ("inline", "log1p"), "log(1 + a)", spell=("math.log1p", "numpy.log1p"),
          samples=((0.5,), (-0.75,))),
    OpDef("expm1", F_F, ieee(math.expm1), lambda b, ct, y, x: (b.mul(ct, b.add(y, b.const(1.0))),),
          ("inline", "expm1"), "exp(a) - 1", spell=("math.expm1", "numpy.expm1"),
          samples=((0.5,), (-1.25,))),
    OpDef("sqrt", F_F, ieee(math.sqrt), lambda b, ct, y, x: (b.fdiv(b.mul(ct, b.const(0.5)), y),),
          ("intrinsic", "llvm.sqrt"), "square root (nan for a < 0)",
          spell=("math.sqrt", "numpy.sqrt"), samples=((0.5,), (3.25,))),
    OpDef("cbrt", F_F, cbrt, lambda b, ct, y, x: (b.fdiv(ct, b.mul(b.const(3.0), b.mul(y, y))),),
          ("libm", "cbrt"), "cube root (negative for a < 0); the derivative at 0 is inf",
          spell=("math.cbrt", "numpy.cbrt"), samples=((0.5,), (-3.375,))),
    OpDef("sin", F_F, ieee(math.sin), lambda b, ct, y, x: (b.mul(ct, b.cos(x)),),
          ("intrinsic", "llvm.sin"), "sine", spell=("math.sin", "numpy.sin"),
          samples=((0.5,), (-2.0,)),
          strong_zero=False),
    OpDef("cos", F_F, ieee(math.cos), lambda b, ct, y, x: (b.neg(b.mul(ct, b.sin(x))),),
          ("intrinsic", "llvm.cos"), "cosine", spell=("math.cos", "numpy.cos"),
          samples=((0.5,), (-2.0,)),
          strong_zero=False),
    OpDef("tan", F_F, ieee(math.tan),
          lambda b, ct, y, x: (b.mul(ct, b.add(b.const(1.0), b.mul(y, y))),),
          ("libm", "tan"), "tangent", spell=("math.tan", "numpy.tan"), samples=((0.5,), (-1.0,))),
    OpDef("asin", F_F, ieee(math.asin),
          lambda b, ct, y, x: (b.fdiv(ct, b.sqrt(b.sub(b.const(1.0), b.mul(x, x)))),),
          ("libm", "asin"), "arcsine", spell=("math.asin", "numpy.arcsin"),
          samples=((0.5,), (-0.75,))),
    OpDef("acos", F_F, ieee(math.acos),
          lambda b, ct, y, x: (b.neg(b.fdiv(ct, b.sqrt(b.sub(b.const(1.0), b.mul(x, x))))),),
          ("libm", "acos"), "arccosine", spell=("math.acos", "numpy.arccos"),
          samples=((0.5,), (-0.75,))),
    OpDef("atan", F_F, ieee(math.atan),
          lambda b, ct, y, x: (b.fdiv(ct, b.add(b.const(1.0), b.mul(x, x))),),
          ("libm", "atan"), "arctangent", spell=("math.atan", "numpy.arctan"),
          samples=((0.5,), (-2.0,)),
          strong_zero=False),
    OpDef("atan2", FF_F, ieee(math.atan2), _atan2_adjoint,
          ("libm", "atan2"), "atan(a / b) in the right quadrant; its derivative at (0, 0) is 0",
          spell=("math.atan2", "numpy.arctan2"),
          samples=((0.5, -1.5), (-2.0, 0.75))),
    OpDef("sinh", F_F, ieee(math.sinh), lambda b, ct, y, x: (b.mul(ct, b.cosh(x)),),
          ("libm", "sinh"), "hyperbolic sine", spell=("math.sinh", "numpy.sinh"),
          samples=((0.5,), (-2.0,))),
    OpDef("cosh", F_F, ieee(math.cosh), lambda b, ct, y, x: (b.mul(ct, b.sinh(x)),),
          ("libm", "cosh"), "hyperbolic cosine", spell=("math.cosh", "numpy.cosh"),
          samples=((0.5,), (-2.0,))),
    OpDef("tanh", F_F, ieee(math.tanh),
          lambda b, ct, y, x: (b.mul(ct, b.sub(b.const(1.0), b.mul(y, y))),),
          ("inline", "tanh"), "hyperbolic tangent", spell=("math.tanh", "numpy.tanh"),
          samples=((0.5,), (-2.0,)),
          strong_zero=False),
    OpDef("asinh", F_F, ieee(math.asinh),
          lambda b, ct, y, x: (b.fdiv(ct, b.sqrt(b.add(b.mul(x, x), b.const(1.0)))),),
          ("libm", "asinh"), "inverse hyperbolic sine", spell=("math.asinh", "numpy.arcsinh"),
          samples=((0.5,), (-2.0,))),
    OpDef("acosh", F_F, ieee(math.acosh),
          lambda b, ct, y, x: (b.fdiv(ct, b.sqrt(b.sub(b.mul(x, x), b.const(1.0)))),),
          ("libm", "acosh"), "inverse hyperbolic cosine", spell=("math.acosh", "numpy.arccosh"),
          samples=((1.5,), (3.0,))),
    OpDef("atanh", F_F, ieee(math.atanh),
          lambda b, ct, y, x: (b.fdiv(ct, b.sub(b.const(1.0), b.mul(x, x))),),
          ("libm", "atanh"), "inverse hyperbolic tangent", spell=("math.atanh", "numpy.arctanh"),
          samples=((0.5,), (-0.75,))),
    OpDef("erf", F_F, math.erf,
          lambda b, ct, y, x: (b.mul(ct, b.mul(b.const(2.0 / math.sqrt(math.pi)),
                                               b.exp(b.neg(b.mul(x, x))))),),
          ("libm", "erf"), "error function", spell=("math.erf",), samples=((0.5,), (-1.25,)),
          strong_zero=False),
    OpDef("erfc", F_F, math.erfc,
          lambda b, ct, y, x: (b.mul(ct, b.mul(b.const(-2.0 / math.sqrt(math.pi)),
                                               b.exp(b.neg(b.mul(x, x))))),),
          ("libm", "erfc"), "1 - erf(a)", spell=("math.erfc",), samples=((0.5,), (-1.25,)),
          strong_zero=False),
    OpDef("hypot", FF_F, ieee(math.hypot),
          lambda b, ct, y, x1, x2: tuple(   # at (0, 0): 0, the least subgradient (as JAX)
              b.mul(ct, b.select(b.eq(y, b.const(0.0)), b.const(0.0), b.fdiv(x, y)))
              for x in (x1, x2)),
          ("libm", "hypot"), "sqrt(a*a + b*b) without overflow; its derivative at (0, 0) is 0",
          spell=("math.hypot", "numpy.hypot"),
          samples=((0.5, -1.5), (-2.0, 0.75))),
    OpDef("lgamma", F_F, lgamma, lambda b, ct, y, x: (b.mul(ct, b.digamma(x)),),
          ("libm", "lgamma"), "log |gamma(a)| (+inf at poles)", spell=("math.lgamma",),
          samples=((0.5,), (3.25,), (-1.5,))),
    OpDef("digamma", F_F, digamma, None, ("runtime", "pyad_digamma"),
          "psi(a), the derivative of lgamma; adjoint code only"),
    OpDef("strongzero", FF_F, lambda ct, c: 0.0 if ct == 0.0 and c != c else c, None,
          ("custom",), "c, or 0 where ct == 0 and c is nan: the contribution c of a "
          "cotangent ct through partial derivatives that may be inf or nan (strong zeros; "
          "c is linear in ct, so it is +-0 or nan where ct == 0, and a zero keeps its sign "
          "as in the kernel without strong zeros); adjoint code only"),
]

_ALL = _ROWS + PICK_ROWS + ARRAY_ROWS + LINALG_ROWS
OPS: dict[str, OpDef] = {row.name: row for row in _ALL}
assert len(OPS) == len(_ALL), "duplicate op name"

#: Ops cheaper to run again in the reverse sweep than to save on the tape and read back (a
#: push and a pop): the AD pass recomputes values made of a few of them (and re-runs
#: scratch-array fills made of them, pyad/ad/refill.py) instead of taping.
CHEAP = frozenset({"add", "sub", "mul", "imul", "neg", "tofloat", "const", "dim", "normidx",
                   "wrapidx", "row", "col", "slice", "transpose", "view", "load", "floordiv",
                   "mod", "select", "eq", "ne", "lt", "le", "gt", "ge", "not", "min", "max",
                   "fmaximum", "fminimum"})

