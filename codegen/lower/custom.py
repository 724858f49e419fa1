"""Lowerings that are more than one LLVM instruction: Python's rounding rules, error checks
(division by zero, int conversion of nan), integer power. One function per op name; each
takes (emitter, stmt, result type, *llvm args) and returns the result value."""
from __future__ import annotations

from llvmlite import ir

from pyad.ir.nodes import F64
from pyad.ir.semantics import OVERFLOW

from .. import abi


def _f(x: float) -> ir.Constant:
    return ir.Constant(abi.F64, x)


def _i(x: int) -> ir.Constant:
    return ir.Constant(abi.I64, x)


def _zero_check(e, s, t, b_val, message):
    bad = (e.b.fcmp_ordered("==", b_val, _f(0.0)) if t == F64
           else e.b.icmp_signed("==", b_val, _i(0)))
    e.check(bad, abi.ERR_ZERO_DIVISION, message, s)


def div(e, s, t, a, b):
    _zero_check(e, s, t, b, "float division by zero")
    return e.b.fdiv(a, b, flags=e.flags)


def _fmod(e, a, b):
    return e.b.frem(a, b)  # C fmod semantics


def floordiv(e, s, t, a, b):
    return _floordiv_mod(e, s, t, a, b)[0]


def mod(e, s, t, a, b):
    return _floordiv_mod(e, s, t, a, b)[1]


def _floordiv_mod(e, s, t, a, b):
    """Python's divmod (CPython's float_divmod / long divmod, rounding toward -inf)."""
    bld = e.b
    if t == F64:
        _zero_check(e, s, t, b, "float divmod()")
        m = _fmod(e, a, b)
        div = bld.fdiv(bld.fsub(a, m), b)
        m_nz = bld.fcmp_unordered("!=", m, _f(0.0))  # C `if (mod)`: true for nan
        sign_differs = bld.xor(bld.fcmp_ordered("<", b, _f(0.0)), bld.fcmp_ordered("<", m, _f(0.0)))
        fix = bld.and_(m_nz, sign_differs)
        m = bld.select(fix, bld.fadd(m, b), m)
        div = bld.select(fix, bld.fsub(div, _f(1.0)), div)
        # the remainder of 0 takes the sign of b
        m = bld.select(m_nz, m, e_copysign(e, _f(0.0), b))
        floor = e_floor(e, div)
        floor = bld.select(bld.fcmp_ordered(">", bld.fsub(div, floor), _f(0.5)),
                           bld.fadd(floor, _f(1.0)), floor)
        div_nz = bld.fcmp_unordered("!=", div, _f(0.0))
        q = bld.select(div_nz, floor, e_copysign(e, _f(0.0), bld.fdiv(a, b)))
        return q, m
    _zero_check(e, s, t, b, "integer division or modulo by zero")
    minus_one = bld.icmp_signed("==", b, _i(-1))
    safe_b = bld.select(minus_one, _i(1), b)  # avoid the INT64_MIN / -1 trap
    q0 = bld.sdiv(a, safe_b)
    r0 = bld.srem(a, safe_b)
    q0 = bld.select(minus_one, bld.sub(_i(0), a), q0)
    r0 = bld.select(minus_one, _i(0), r0)
    fix = bld.and_(bld.icmp_signed("!=", r0, _i(0)),
                   bld.xor(bld.icmp_signed("<", r0, _i(0)), bld.icmp_signed("<", b, _i(0))))
    return bld.select(fix, bld.sub(q0, _i(1)), q0), bld.select(fix, bld.add(r0, b), r0)


def e_floor(e, x):
    return e.b.call(e.extern("llvm.floor.f64", abi.F64, [abi.F64]), [x])


def e_copysign(e, x, y):
    return e.b.call(e.extern("llvm.copysign.f64", abi.F64, [abi.F64, abi.F64]), [x, y])


def imul(e, s, t, a, b):
    """a * b of ints, OverflowError when the product leaves the 64-bit range."""
    both = e.b.smul_with_overflow(a, b)
    e.check(e.b.extract_value(both, 1), abi.ERR_OVERFLOW, OVERFLOW, s)
    return e.b.extract_value(both, 0)


def ipow(e, s, t, a, b):
    """a ** b of ints by squaring; ValueError for b < 0, OverflowError when a product that
    is used leaves the 64-bit range (the last squaring of the base is not)."""
    bld = e.b
    e.check(bld.icmp_signed("<", b, _i(0)), abi.ERR_VALUE,
            "negative integer exponent (use a float base for a float result)", s)
    pre = bld.block
    loop = e.fn.append_basic_block("ipow.loop")
    done = e.fn.append_basic_block("ipow.done")
    bld.branch(loop)
    bld.position_at_end(loop)
    acc, base, n, over = (bld.phi(ty) for ty in (abi.I64, abi.I64, abi.I64, abi.I1))
    odd = bld.icmp_signed("!=", bld.and_(n, _i(1)), _i(0))
    times = bld.smul_with_overflow(acc, base)
    acc2 = bld.select(odd, bld.extract_value(times, 0), acc)
    n2 = bld.ashr(n, _i(1))
    square = bld.smul_with_overflow(base, base)
    more = bld.icmp_signed("!=", n2, _i(0))
    over2 = bld.or_(over, bld.or_(bld.and_(odd, bld.extract_value(times, 1)),
                                  bld.and_(more, bld.extract_value(square, 1))))
    for phi, first, nxt in ((acc, _i(1), acc2), (base, a, bld.extract_value(square, 0)),
                            (n, b, n2), (over, ir.Constant(abi.I1, 0), over2)):
        phi.add_incoming(first, pre)
        phi.add_incoming(nxt, loop)
    bld.cbranch(more, loop, done)
    bld.position_at_end(done)
    e.check(over2, abi.ERR_OVERFLOW, OVERFLOW, s)
    # b == 0 never enters the multiply: handle it with a select afterwards
    return bld.select(bld.icmp_signed("==", b, _i(0)), _i(1), acc2)


def neg(e, s, t, a):
    return e.b.fneg(a) if t == F64 else e.b.sub(_i(0), a)


def not_(e, s, t, a):
    return e.b.xor(a, ir.Constant(abi.I1, 1))


def tofloat(e, s, t, a):
    return e.b.uitofp(a, abi.F64) if a.type == abi.I1 else e.b.sitofp(a, abi.F64)


def toint(e, s, t, a):
    bld = e.b
    if a.type == abi.I1:
        return bld.zext(a, abi.I64)
    e.check(bld.fcmp_unordered("uno", a, a), abi.ERR_VALUE, "cannot convert float NaN to integer", s)
    in_range = bld.and_(bld.fcmp_ordered(">=", a, _f(-2.0**63)), bld.fcmp_ordered("<", a, _f(2.0**63)))
    e.check(bld.not_(in_range), abi.ERR_OVERFLOW,
            "float too large to convert to a 64-bit integer", s)
    return bld.fptosi(a, abi.I64)


def tobool(e, s, t, a):
    if a.type == abi.F64:
        return e.b.fcmp_unordered("!=", a, _f(0.0))  # bool(nan) is True
    return e.b.icmp_signed("!=", a, _i(0))


def abs_(e, s, t, a):
    if t == F64:
        return e.b.call(e.extern("llvm.fabs.f64", abi.F64, [abi.F64]), [a])
    return e.b.select(e.b.icmp_signed("<", a, _i(0)), e.b.sub(_i(0), a), a)


def sign(e, s, t, a):
    bld = e.b
    neg_or_self = bld.select(bld.fcmp_ordered("<", a, _f(0.0)), _f(-1.0), a)
    return bld.select(bld.fcmp_ordered(">", a, _f(0.0)), _f(1.0), neg_or_self)


def strongzero(e, s, t, ct, c):
    """c, or 0.0 where ct == 0 and c is nan (a zero cotangent through an inf or nan
    partial); a zero c keeps its sign, as the kernel without strong zeros has it."""
    zero_nan = e.b.and_(e.b.fcmp_ordered("==", ct, _f(0.0)), e.b.fcmp_unordered("uno", c, c))
    return e.b.select(zero_nan, _f(0.0), c)


def _pick(sym):
    def pick(e, s, t, a, b):
        better = e.b.fcmp_ordered(sym, b, a) if t == F64 else e.b.icmp_signed(sym, b, a)
        return e.b.select(better, b, a)
    return pick


def tape_field(e, k):
    """A pointer to field `k` of the context (abi.CTX_TAPE_*)."""
    return e.b.gep(e.ctx, [abi.I32(0), abi.I32(k)], inbounds=True, source_etype=abi.CTX)


def reserve(e, size: int | ir.Value) -> int | ir.Value:
    """Room for `size` bytes on the tape (a number, or a value computed at run time),
    growing it in the runtime when it has less: one check for a run of pushes (emit.py
    `_push_run`) or for a whole loop's (emit.py `while_`). Returns `size`."""
    bld = e.b
    top_p, end_p = tape_field(e, abi.CTX_TAPE_TOP), tape_field(e, abi.CTX_TAPE_END)
    top, end = bld.load(top_p, typ=abi.PTR), bld.load(end_p, typ=abi.PTR)
    room = bld.sub(bld.ptrtoint(end, abi.I64), bld.ptrtoint(top, abi.I64))
    need = _i(size) if isinstance(size, int) else size
    with bld.if_then(bld.icmp_signed("<", room, need), likely=False):
        grow = e.extern("pyad_tape_grow", abi.I32, [abi.PTR, abi.I64])
        status = bld.call(grow, [e.ctx, need])
        with bld.if_then(bld.icmp_signed("!=", status, ir.Constant(abi.I32, 0)), likely=False):
            bld.ret(status)
    return size


def push(e, s, t, v):
    """*top++ = v (8 bytes a scalar; an array reference pushes its whole descriptor), in the
    room the run's check made (`reserve`)."""
    bld = e.b
    size = abi.tape_size(s.args[0].type)
    if v.type == abi.I1:
        v = bld.zext(v, abi.I64)
    if e.tape_top is not None:   # in a loop that made room for all its trips
        bld.store(v, bld.gep(e.tape_top, [_i(e.tape_off)], inbounds=True, source_etype=abi.I8))
        e.tape_off += size
        return
    assert e.reserved >= size, "a push outside a reserved run"
    e.reserved -= size
    top_p = tape_field(e, abi.CTX_TAPE_TOP)
    top = bld.load(top_p, typ=abi.PTR)
    bld.store(v, top)
    bld.store(bld.gep(top, [_i(size)], inbounds=True, source_etype=abi.I8), top_p)


def pop(e, s, t, *args):
    """v = *--top"""
    bld = e.b
    size = abi.tape_size(t)
    if e.tape_top is not None:   # in a loop whose trips pop a fixed size (emit.py while_)
        e.tape_off += size
        top = bld.gep(e.tape_top, [_i(-e.tape_off)], inbounds=True, source_etype=abi.I8)
    else:
        top_p = tape_field(e, abi.CTX_TAPE_TOP)
        top = bld.gep(bld.load(top_p, typ=abi.PTR), [_i(-size)], inbounds=True,
                      source_etype=abi.I8)
        bld.store(top, top_p)
    if t == "bool":
        return bld.trunc(bld.load(top, typ=abi.I64), abi.I1)
    return bld.load(top, typ=abi.value_type(t))


def tapemark(e, s, t):
    """top - base: the bytes on the tape (an offset stays valid when the tape grows)."""
    bld = e.b
    top = bld.load(tape_field(e, abi.CTX_TAPE_TOP), typ=abi.PTR)
    base = bld.load(tape_field(e, abi.CTX_TAPE_BASE), typ=abi.PTR)
    return bld.sub(bld.ptrtoint(top, abi.I64), bld.ptrtoint(base, abi.I64))


def tapecut(e, s, t, offset):
    """The runtime notes the peak and drops the tape above `offset` (once per segment)."""
    cut = e.extern("pyad_tape_cut", ir.VoidType(), [abi.PTR, abi.I64])
    e.b.call(cut, [e.ctx, offset])


def tapepeak(e, s, t):
    """ctx.tape_peak = max(ctx.tape_peak, top - base)."""
    bld = e.b
    peak_p = tape_field(e, abi.CTX_TAPE_PEAK)
    used = tapemark(e, s, t)
    peak = bld.load(peak_p, typ=abi.I64)
    bld.store(bld.select(bld.icmp_unsigned(">", used, peak), used, peak), peak_p)


_KIND = {name: k for k, name in enumerate(abi.ERROR_KINDS) if name}


def raise_if(e, s, t, bad):
    e.check(bad, _KIND[s.attrs[0]], s.attrs[1], s)


def identity(e, s, t, a, *rest):
    """stopgrad and custom_vjp: the value itself (they only matter to the AD pass)."""
    return a


CUSTOM = {
    "push": push, "pop": pop, "tapemark": tapemark, "tapecut": tapecut, "tapepeak": tapepeak, "raise_if": raise_if, "stopgrad": identity, "custom_vjp": identity,
    "div": div, "floordiv": floordiv, "mod": mod, "ipow": ipow, "imul": imul, "neg": neg, "not": not_,
    "tofloat": tofloat, "toint": toint, "tobool": tobool, "abs": abs_, "sign": sign,
    "max": _pick(">"), "min": _pick("<"), "strongzero": strongzero,
}
