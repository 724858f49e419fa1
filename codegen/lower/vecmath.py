"""pyad's own elementwise math kernels (exp, expm1, log, log1p, tanh), emitted as LLVM IR.

A kernel is an internal `alwaysinline` function of the module (`pyad.math.<name>`, made on
first use), built only from arithmetic, integer bit operations on the double's bits and
`select`s: no branches, no tables, no calls. LLVM inlines it before the loop vectorizer
runs, so a loop around it vectorizes like one around `x * y` (libm's `exp` is an opaque call
that keeps the loop scalar). The same instructions run in scalar code, in a loop's vector
body and in its scalar remainder, and no fast-math or contraction flag is set on them (IEEE
results are the same per lane), so a kernel gives the same bits wherever it runs: in `f`,
`grad`, `value_and_grad`, `pullback`, `vmap` and an AOT library built for any x86-64 CPU.
The measured accuracy and the reasons for this design: docs/vecmath.md.

The algorithms (with the constants of fdlibm, the freely distributable libm of Sun that
FreeBSD, musl and Java's StrictMath use):
- exp, expm1: x = k ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 split in two, the rounding
  error of r kept as a correction), expm1(r) = r + t with t by its Taylor polynomial to
  degree 13 (the truncation error is below 0.05 ulp), the sum with 1 (exp) or with
  2^-k - 1 (expm1) rounded once (an exact two-sum first), then 2^k applied as two exact
  power-of-two factors (one rounding at most, also for subnormal results);
- log: x = 2^k (1 + f) with sqrt(2)/2 <= 1 + f < sqrt(2), s = f / (2 + f) and fdlibm's
  minimax polynomial in s^2 (e_log.c, both of its formulas, chosen by a select);
- log1p: log(u) + c / u with u = 1 + x rounded and c = x - (u - 1) its rounding error;
- tanh: t = expm1(2|x|) (|x| clamped to 20, where tanh rounds to 1), then t / (t + 2) with
  t + 2 as an exact sum of two doubles, its low part applied as a first-order correction,
  and the sign of x.
Special values (nan, +-inf, +-0, subnormals, overflow, underflow, log of negatives) are
handled by clamping the argument or by selects at the end.
"""
from __future__ import annotations

import math
from typing import Callable

from llvmlite import ir

from .. import abi

F64, I64 = abi.F64, abi.I64
PREFIX = "pyad.math."                 # the kernels' symbol names: pyad.math.exp, ...

LN2_HI = 6.93147180369123816490e-01   # 0x3fe62e42fee00000: k * LN2_HI is exact for |k| < 2^20
LN2_LO = 1.90821492927058770002e-10   # 0x3dea39ef35793c76: ln 2 - LN2_HI
INV_LN2 = 1.0 / math.log(2.0)
SHIFT = 6755399441055744.0            # 1.5 * 2^52: x + SHIFT rounds x to an integer
SHIFT_BITS = 0x4338000000000000
# expm1(r) = r + r^2 / 2 + r^3 (1/6 + r/24 + ... + r^10 / 13!): coefficients 1/3! .. 1/13!
EXPM1_Q = tuple(1.0 / math.factorial(n) for n in range(3, 14))
LOG_EVEN = (3.999999999940941908e-01, 2.222219843214978396e-01, 1.531383769920937332e-01)
LOG_ODD = (6.666666666666735130e-01, 2.857142874366239149e-01, 1.818357216161805012e-01,
           1.479819860511658591e-01)


class _B:
    """An IR builder for double arithmetic without flags, plus the bit operations."""

    def __init__(self, b: ir.IRBuilder) -> None:
        self.b = b

    @staticmethod
    def c(v: float) -> ir.Constant:
        return ir.Constant(F64, v)

    @staticmethod
    def i(v: int) -> ir.Constant:
        return ir.Constant(I64, v)

    def add(self, x, y):
        return self.b.fadd(x, y)

    def sub(self, x, y):
        return self.b.fsub(x, y)

    def mul(self, x, y):
        return self.b.fmul(x, y)

    def div(self, x, y):
        return self.b.fdiv(x, y)

    def bits(self, x):
        return self.b.bitcast(x, I64)

    def double(self, n):
        return self.b.bitcast(n, F64)

    def poly(self, x, coeffs: tuple[float, ...]):
        """coeffs[0] + coeffs[1] x + coeffs[2] x^2 + ... by Estrin's scheme: pairs
        c0 + c1 x, then pairs of those with x^2, x^4, ...: a dependency chain of about
        2 log2(n) operations instead of Horner's 2n, so the CPU overlaps more."""
        terms = [self.c(a) for a in coeffs]
        while len(terms) > 1:
            paired = [self.add(terms[i], self.mul(terms[i + 1], x))
                      for i in range(0, len(terms) - 1, 2)]
            terms = paired + terms[len(paired) * 2:]
            if len(terms) > 1:
                x = self.mul(x, x)
        return terms[0]

    def cmp(self, op: str, x, y):
        return self.b.fcmp_ordered(op, x, y)

    def select(self, cond, x, y):
        return self.b.select(cond, x, y)

    def pow2(self, k):
        """2.0 ** k for an i64 k in [-1022, 1023], from its bits."""
        return self.double(self.b.shl(self.b.add(k, self.i(1023)), self.i(52)))

    def reduce_exp(self, x):
        """(k, r, t) with x = k ln2 + r' and expm1(r') = r + t to well below an ulp of r
        (k an i64; t holds the higher terms and the rounding error of r)."""
        kd = self.add(self.mul(x, self.c(INV_LN2)), self.c(SHIFT))
        k = self.b.sub(self.bits(kd), self.i(SHIFT_BITS))
        kf = self.sub(kd, self.c(SHIFT))
        hi = self.sub(x, self.mul(kf, self.c(LN2_HI)))
        lo = self.mul(kf, self.c(LN2_LO))
        r = self.sub(hi, lo)
        corr = self.sub(self.sub(hi, r), lo)   # r + corr = hi - lo, up to r's rounding
        r2 = self.mul(r, r)
        cubic = self.mul(self.mul(r2, r), self.poly(r, EXPM1_Q))
        return k, r, self.add(self.mul(self.c(0.5), r2), self.add(cubic, corr))

    def two_sum(self, a, b):
        """(s, e) with s = a + b rounded and s + e = a + b exactly (Knuth)."""
        s = self.add(a, b)
        bb = self.sub(s, a)
        return s, self.add(self.sub(a, self.sub(s, bb)), self.sub(b, bb))


def _exp(m: _B, x):
    # Outside [-746, 710] exp is 0 or inf; clamping keeps k in range (nan stays nan).
    x = m.select(m.cmp(">", x, m.c(710.0)), m.c(710.0), x)
    x = m.select(m.cmp("<", x, m.c(-746.0)), m.c(-746.0), x)
    k, r, t = m.reduce_exp(x)
    k1 = m.b.ashr(k, m.i(1))
    hi, lo = m.two_sum(m.c(1.0), r)                    # 1 + r + t, rounded once
    y = m.add(hi, m.add(lo, t))
    return m.mul(m.mul(y, m.pow2(k1)), m.pow2(m.b.sub(k, k1)))


def _expm1(m: _B, x):
    # Below -40 expm1 rounds to -1; above 710 it is inf. 2^(k-1) is then a normal double.
    xc = m.select(m.cmp(">", x, m.c(710.0)), m.c(710.0), x)
    xc = m.select(m.cmp("<", xc, m.c(-40.0)), m.c(-40.0), xc)
    k, r, t = m.reduce_exp(xc)
    h = m.pow2(m.b.sub(k, m.i(1)))
    # 2^k (1 + r + t) - 1 = 2 ((2^(k-1) - 1/2) + 2^(k-1) r + 2^(k-1) t), rounded once: the
    # difference is exact for k <= 53 (negligible above), the products are exact, the
    # doubling is exact (or overflows: inf).
    hi, lo = m.two_sum(m.sub(h, m.c(0.5)), m.mul(h, r))
    y = m.mul(m.c(2.0), m.add(hi, m.add(lo, m.mul(h, t))))
    # below 2^-54 in magnitude expm1(x) rounds to x (x^2 / 2 is under half an ulp of x);
    # the formula would halve a subnormal x. This keeps the sign of -0.0 too.
    magnitude = m.double(m.b.and_(m.bits(x), m.i(0x7FFFFFFFFFFFFFFF)))
    tiny = m.cmp("<", magnitude, m.c(2.0 ** -54))
    return m.select(tiny, x, y)


def _log(m: _B, x):
    b = m.b
    sub = m.cmp("<", x, m.c(2.0 ** -1022))            # subnormal (or <= 0: fixed below)
    xs = m.select(sub, m.mul(x, m.c(2.0 ** 54)), x)
    k0 = b.select(sub, m.i(-54 - 1023), m.i(-1023))
    ix = m.bits(xs)
    hx = b.lshr(ix, m.i(32))                            # sign bit 0 for x > 0
    mant_hi = b.and_(hx, m.i(0x000FFFFF))
    # i = 0x100000 when the mantissa is >= sqrt(2)'s: then 1 + f is x's mantissa / 2
    i = b.and_(b.add(mant_hi, m.i(0x95F64)), m.i(0x100000))
    k = b.add(b.add(k0, b.lshr(hx, m.i(20))), b.lshr(i, m.i(20)))
    high = b.or_(mant_hi, b.xor(i, m.i(0x3FF00000)))
    one_f = m.double(b.or_(b.shl(high, m.i(32)), b.and_(ix, m.i(0xFFFFFFFF))))
    f = m.sub(one_f, m.c(1.0))
    # k as a double without a conversion instruction (|k| < 2^51): the bits of SHIFT + k
    dk = m.sub(m.double(b.add(k, m.i(SHIFT_BITS))), m.c(SHIFT))
    s = m.div(f, m.add(m.c(2.0), f))
    z = m.mul(s, s)
    w = m.mul(z, z)
    r = m.add(m.mul(z, m.poly(w, LOG_ODD)), m.mul(w, m.poly(w, LOG_EVEN)))
    hfsq = m.mul(m.mul(m.c(0.5), f), f)
    kh, kl = m.mul(dk, m.c(LN2_HI)), m.mul(dk, m.c(LN2_LO))
    big = m.sub(kh, m.sub(m.sub(hfsq, m.add(m.mul(s, m.add(hfsq, r)), kl)), f))
    small = m.sub(kh, m.sub(m.sub(m.mul(s, m.sub(f, r)), kl), f))
    # fdlibm's choice between its two formulas: the first where 1 + f is away from 1
    choose = b.or_(b.sub(mant_hi, m.i(0x6147A)), b.sub(m.i(0x6B851), mant_hi))
    y = m.select(b.icmp_signed(">", choose, m.i(0)), big, small)
    y = m.select(m.cmp("==", x, m.c(math.inf)), x, y)
    y = m.select(m.cmp("==", x, m.c(0.0)), m.c(-math.inf), y)
    y = m.select(m.cmp("<", x, m.c(0.0)), m.c(math.nan), y)
    return m.select(b.fcmp_unordered("uno", x, x), x, y)


def _log1p(m: _B, x):
    # u = 1 + x rounded; log(1 + x) = log(u) + log(1 + c/u) ~ log(u) + c/u with c = x - (u - 1),
    # the rounding error of u (exact for |x| < 1; negligible against log(u) above)
    u = m.add(m.c(1.0), x)
    c = m.sub(x, m.sub(u, m.c(1.0)))
    lu = m.b.call(function(m.b.module, "log"), [u])
    y = m.select(m.cmp("==", c, m.c(0.0)), lu, m.add(lu, m.div(c, u)))   # x = -1: -inf
    y = m.select(m.cmp("==", x, m.c(math.inf)), x, y)
    return m.select(m.cmp("==", x, m.c(0.0)), x, y)     # keeps the sign of -0.0


def _tanh(m: _B, x):
    fabs = _intrinsic(m.b.module, "llvm.fabs.f64", 1)
    copysign = _intrinsic(m.b.module, "llvm.copysign.f64", 2)
    a = m.b.call(fabs, [x])
    a = m.select(m.cmp(">", a, m.c(20.0)), m.c(20.0), a)    # tanh(20) rounds to 1; nan stays
    t = m.b.call(function(m.b.module, "expm1"), [m.add(a, a)])
    d, dl = m.two_sum(t, m.c(2.0))                     # t + 2 = d + dl exactly
    # tanh |x| = t / (t + 2) ~ q - q dl / d with q = t / d and 1 / d = (1 - q) / 2: the
    # correction for dl is below an ulp, so 1 / d need not be exact
    q = m.div(t, d)
    y = m.sub(q, m.mul(m.mul(q, dl), m.mul(m.sub(m.c(1.0), q), m.c(0.5))))
    return m.b.call(copysign, [y, x])


def _intrinsic(module: ir.Module, name: str, arity: int) -> ir.Function:
    fn = module.globals.get(name)
    return fn if fn is not None else ir.Function(module, ir.FunctionType(F64, [F64] * arity), name)


KERNELS: dict[str, Callable] = {"exp": _exp, "expm1": _expm1, "log": _log, "log1p": _log1p,
                                "tanh": _tanh}


def function(module: ir.Module, name: str) -> ir.Function:
    """The kernel `name` (a key of KERNELS) of `module`: `double (double)`, internal,
    always inlined; emitted on first use."""
    sym = PREFIX + name
    fn = module.globals.get(sym)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(F64, [F64]), name=sym)
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")
        fn.attributes.add("nounwind")
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        b.ret(KERNELS[name](_B(b), fn.args[0]))
    return fn
