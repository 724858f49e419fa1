"""Differential tests over tests/corpus_scalar.py: every corpus function is compiled with
`pyad.jit_grad` and checked against

  * CPython running the plain function (values, exact for ints/bools, rtol 1e-12 for floats),
  * the reference interpreter on the primal IR (`spec.func`),
  * for a single float result: the interpreter on the fused value-and-gradient IR (the
    independent oracle for the compiled gradient) and `pyad.check_grad` (finite differences
    plus a dot-product test through the pullback),
  * for tuple results: `pyad.check_grad`,

and a second, all-int signature is compared with CPython after the float signature was
compiled first. Runtime errors must match Python's exception types.
"""
from __future__ import annotations

import inspect
import math

import pytest

import pyad
from pyad.ir import interp
from pyad.ir.nodes import F64

from ..corpus_scalar import CASES, NO_FINITE_DIFFERENCES

RTOL = 1e-12

_COMPILED: dict = {}


def compiled(fn):
    """One pyad.jit_grad object per corpus function (compiled specializations are cached),
    differentiating every parameter (argnums="all")."""
    jf = _COMPILED.get(fn)
    if jf is None:
        jf = _COMPILED[fn] = pyad.jit_grad(fn, argnums="all")
    return jf


def close(got, want, rtol=RTOL, promote=False) -> bool:
    """Python-typed comparison: tuples elementwise, bools and ints exactly (same type),
    floats to `rtol` (nan == nan, infinities exactly). With `promote`, a float equal to an
    expected int is accepted too (pyad gives a variable assigned an int on one path and a
    float on another the type float)."""
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and \
            all(close(g, w, rtol, promote) for g, w in zip(got, want))
    if want is None or got is None:
        return got is want
    if promote and type(want) is int and type(got) is float:
        return got == want
    if type(got) is not type(want):
        return False
    if isinstance(want, (bool, int)):
        return got == want
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want) or math.isinf(got):
        return got == want
    return abs(got - want) <= rtol * max(abs(got), abs(want))


def rebuild(shape, flat):
    if isinstance(shape, tuple):
        return tuple(rebuild(s, flat) for s in shape)
    return flat[shape]


def finite(g) -> bool:
    if isinstance(g, tuple):
        return all(finite(x) for x in g)
    return g is None or math.isfinite(g)


def has_float_param(args) -> bool:
    return any(type(a) is float for a in args)


def _id(case) -> str:
    return case[0].__name__


SAMPLES = [(fn, args) for fn, samples in CASES for args in samples]


def test_corpus_is_well_formed():
    names = [fn.__name__ for fn, _ in CASES]
    assert len(names) == len(set(names)) >= 40
    for fn, samples in CASES:
        assert samples, fn.__name__
        nparams = len(inspect.signature(fn).parameters)
        for args in samples:
            assert len(args) == nparams, (fn.__name__, args)
            assert all(type(a) in (float, int, bool) for a in args)
    # the corpus exercises negative inputs
    assert sum(any(a < 0 for a in args) for _, args in SAMPLES) >= 40


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_values_match_cpython_and_interpreter(case):
    fn, samples = case
    f = compiled(fn)
    for args in samples:
        want = fn(*args)
        got = f(*args)
        assert close(got, want), f"{fn.__name__}{args}: pyad {got!r}, CPython {want!r}"
        spec = f.specialization(args)
        ref = rebuild(spec.shape, interp.run(spec.func, args))
        assert close(ref, want), f"{fn.__name__}{args}: interpreter {ref!r}, CPython {want!r}"
        again = f(*args)  # the native fast path after the first call
        assert close(again, want)


def _has_float(v) -> bool:
    return any(_has_float(x) for x in v) if isinstance(v, tuple) else type(v) is float


def _differentiable(case) -> bool:
    """Some sample has a float argument and (in CPython) a float in its result."""
    fn, samples = case
    return any(has_float_param(a) and _has_float(fn(*a)) for a in samples)


@pytest.mark.parametrize("case", [c for c in CASES if _differentiable(c)], ids=_id)
def test_gradients(case):
    fn, samples = case
    f = compiled(fn)
    checked = 0
    for args in samples:
        if not has_float_param(args):
            continue
        spec = f.specialization(args)
        results = spec.func.results
        if spec.shape == 0 and results[0].type == F64:
            unit = spec.gradient("all")
            assert unit.fused is not None
            flat = interp.run(unit.fused, args)
            assert len(flat) == 1 + len(unit.wrt)
            want_grad = [None] * len(args)
            for k, p in enumerate(unit.wrt):
                want_grad[p] = flat[1 + k]
            want_grad = tuple(want_grad)
            got_grad = f.grad(*args)
            # check_grad cannot see nan/inf (its comparisons are then False): the corpus
            # samples are inside the domain, so every gradient must be finite
            assert finite(got_grad), f"{fn.__name__}{args}: gradient {got_grad!r}"
            assert close(got_grad, want_grad), \
                f"{fn.__name__}{args}: grad pyad {got_grad!r}, fused IR interpreter {want_grad!r}"
            val, g = f.value_and_grad(*args)
            assert close(val, fn(*args)) and close(val, flat[0])
            assert close(g, want_grad)
            y, back = f.pullback(*args)
            assert close(y, fn(*args))
            assert close(back(1.0), want_grad, rtol=1e-12)
            if fn.__name__ not in NO_FINITE_DIFFERENCES:
                pyad.check_grad(f, *args)
            checked += 1
        elif spec.shape != 0 and any(r.type == F64 for r in results):
            y, back = f.pullback(*args)
            assert close(y, fn(*args))
            ones = rebuild(spec.shape, [1.0] * len(results))
            assert finite(back(ones)), f"{fn.__name__}{args}: gradient {back(ones)!r}"
            pyad.check_grad(f, *args)
            checked += 1
    assert checked, f"{fn.__name__}: no sample was differentiated"


# corpus functions whose variables get an int on one path and a float on another: with
# all-int arguments CPython may return an int where pyad returns the equal float
BRANCH_PROMOTION = {"softplus", "piecewise_cubic", "gated", "reflect_into_box",
                    "sign_magnitude", "nested_branches"}


def _int_version(args):
    return tuple(int(round(a)) if type(a) is float else a for a in args)


@pytest.mark.parametrize("case", [c for c in CASES if any(has_float_param(a) for a in c[1])],
                         ids=_id)
def test_int_arguments_after_float_signature(case):
    """All-int arguments are a second signature: after the float signature was compiled
    (and installed as the native fast path) the int call must give CPython's result."""
    fn, samples = case
    f = compiled(fn)
    compared = 0
    for args in samples:
        if not has_float_param(args):
            continue
        f(*args)  # the float signature first
        iargs = _int_version(args)
        try:
            want = fn(*iargs)
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                f(*iargs)
            continue
        except (ValueError, OverflowError):
            continue  # math domain errors: pyad follows IEEE (nan/inf) by design
        try:
            got = f(*iargs)
        except ValueError as e:
            # documented: int ** negative int raises instead of returning a float
            assert "negative integer exponent" in str(e), (fn.__name__, iargs, e)
            compared += 1
            continue
        promote = fn.__name__ in BRANCH_PROMOTION
        assert close(got, want, promote=promote), \
            f"{fn.__name__}{iargs}: pyad {got!r}, CPython {want!r}"
        spec = f.specialization(iargs)
        assert close(rebuild(spec.shape, interp.run(spec.func, iargs)), want, promote=promote)
        compared += 1
        assert close(f(*args), fn(*args))  # the float signature still works
    assert compared, f"no int sample of {fn.__name__} was compared"


# --------------------------------------------------------------------------- runtime errors
def fdiv(a, b):
    return a / b


def ffloordiv(a, b):
    return a // b


def fmod(a, b):
    return a % b


def guarded_div(a, b):
    return a / b if b != 0 else 0.0


def to_int(x):
    return int(x)


def ipow(n, k):
    return n ** k


def div_in_branch(x, y):
    if x > 0:
        r = x * 2.0
    else:
        r = x / y
    return r


def _line_of(fn, needle: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if needle in s)


def test_float_division_by_zero_names_the_line():
    f = compiled(fdiv)
    assert f(1.0, 4.0) == 0.25
    line = _line_of(fdiv, "a / b")
    with pytest.raises(ZeroDivisionError, match=rf"line {line}\b"):
        f(1.0, 0.0)
    with pytest.raises(ZeroDivisionError):
        f(1.0, -0.0)
    with pytest.raises(ZeroDivisionError):
        f(0.0, 0.0)
    with pytest.raises(ZeroDivisionError, match=rf"line {line}\b"):
        f.grad(1.0, 0.0)
    with pytest.raises(ZeroDivisionError):
        f.value_and_grad(1.0, 0.0)
    with pytest.raises(ZeroDivisionError):
        f.pullback(1.0, 0.0)
    with pytest.raises(ZeroDivisionError):
        interp.run(f.specialization((1.0, 0.0)).func, (1.0, 0.0))
    with pytest.raises(ZeroDivisionError):
        f(3, 0)  # int / int is true division: still ZeroDivisionError
    assert f(1.0, 4.0) == 0.25  # still usable after an error
    assert f(3, 4) == 0.75


def test_division_by_zero_inside_a_branch():
    f = compiled(div_in_branch)
    assert f(1.5, 0.0) == 3.0  # the division is not reached
    assert f(-1.0, 4.0) == -0.25
    line = _line_of(div_in_branch, "x / y")
    with pytest.raises(ZeroDivisionError, match=rf"line {line}\b"):
        f(-1.0, 0.0)
    with pytest.raises(ZeroDivisionError):
        f.grad(-1.0, 0.0)


def test_guarded_division_does_not_raise():
    f = compiled(guarded_div)
    assert f(1.0, 0.0) == 0.0 == guarded_div(1.0, 0.0)
    assert f.grad(1.0, 0.0) == (0.0, 0.0)
    assert f(1.0, 2.0) == 0.5


@pytest.mark.parametrize("fn", [ffloordiv, fmod], ids=lambda fn: fn.__name__)
def test_int_floordiv_and_mod_by_zero(fn):
    f = compiled(fn)
    assert f(-7, 2) == fn(-7, 2)
    for a in (7, -7, 0):
        with pytest.raises(ZeroDivisionError):
            f(a, 0)
        with pytest.raises(ZeroDivisionError):
            interp.run(f.specialization((a, 0)).func, (a, 0))
    assert f(7, -2) == fn(7, -2)


@pytest.mark.parametrize("fn", [ffloordiv, fmod], ids=lambda fn: fn.__name__)
def test_float_floordiv_and_mod_by_zero(fn):
    f = compiled(fn)
    assert f(-7.5, 2.0) == fn(-7.5, 2.0)
    for a in (7.5, -7.5, 0.0):
        with pytest.raises(ZeroDivisionError):
            f(a, 0.0)
    with pytest.raises(ZeroDivisionError):
        f.grad(1.0, 0.0)


def test_int_of_nan_and_inf():
    f = compiled(to_int)
    assert f(-2.7) == -2 == int(-2.7)
    with pytest.raises(ValueError, match="NaN"):
        f(math.nan)
    with pytest.raises(ValueError):
        interp.run(f.specialization((math.nan,)).func, (math.nan,))
    with pytest.raises(OverflowError):  # like CPython: int(inf) raises OverflowError
        int(math.inf)
    with pytest.raises(OverflowError):
        f(math.inf)
    assert f(3.9) == 3


def test_negative_int_exponent():
    f = compiled(ipow)
    assert f(3, 4) == 81 and type(f(3, 4)) is int
    assert f(-2, 3) == -8
    with pytest.raises(ValueError, match="negative integer exponent"):
        f(2, -1)
    with pytest.raises(ValueError):
        interp.run(f.specialization((2, -1)).func, (2, -1))
    assert f(2.0, -1) == 0.5 == ipow(2.0, -1)  # a float base gives a float, like Python
    assert f(-1, 5) == -1


# --------------------------------------------------------------------------- edge cases
# Found while building the corpus (bugs since fixed, and one documented decision).
def fmod_py(a, b):
    return a % b


def ffloordiv_py(a, b):
    return a // b


def int_gt_float(n, x):
    return n > x


def sqrt_at(x):
    return math.sqrt(x)


def log_at(x):
    return math.log(x)


def atan2_at(y, x):
    return math.atan2(y, x)


@pytest.mark.parametrize("a, b", [(math.inf, 2.0), (math.nan, 1.0), (-math.inf, 2.0),
                                  (1.0, math.nan), (math.inf, math.inf)])
def test_float_divmod_of_nan_and_inf_is_nan(a, b):
    for fn in (fmod_py, ffloordiv_py):
        f = compiled(fn)
        want = fn(a, b)
        assert math.isnan(want)
        assert math.isnan(interp.run(f.specialization((a, b)).func, (a, b))[0])
        assert math.isnan(f(a, b)), f"{fn.__name__}({a}, {b}): pyad {f(a, b)!r}, CPython nan"


def test_int_float_comparison_converts_the_int_like_numpy():
    # Documented decision (README): an int compared with a float is converted to float first,
    # as numpy does; CPython compares exactly, which differs only for |n| > 2**53.
    import numpy as np
    f = compiled(int_gt_float)
    n, x = 2**53 + 1, 2.0**53
    assert f(n, x) is bool(np.int64(n) > np.float64(x)) is False
    assert f(3, 2.5) is True and f(2, 2.5) is False


@pytest.mark.parametrize("fn, args, want", [(sqrt_at, (0.0,), (math.inf,)),
                                            (log_at, (0.0,), (math.inf,))],
                         ids=["sqrt", "log"])
def test_gradient_at_domain_edge_is_ieee(fn, args, want):
    f = compiled(fn)
    f(*args)  # the primal is fine (IEEE)
    assert f.grad(*args) == want
    spec = f.specialization(args)
    assert interp.run(spec.gradient("all").fused, args)[1:] == want


def test_gradient_of_atan2_at_origin_is_zero_not_an_error():
    """0, the least subgradient, as hypot's (it was nan: 0 / 0)."""
    f = compiled(atan2_at)
    assert all(g == 0.0 and not math.isnan(g) for g in f.grad(0.0, 0.0))


class _NanGradient:
    """A stand-in for a compiled function whose gradient is nan."""
    argnums = None

    def __call__(self, x):
        return x * x

    def pullback(self, x):
        return x * x, lambda ct: (math.nan,)


def test_check_grad_rejects_nan_gradients():
    with pytest.raises(AssertionError):
        pyad.check_grad(_NanGradient(), 1.5)


def pow_py(a, b):
    return a ** b


def test_pow_gradient_at_zero_exponent_and_base():
    f = compiled(pow_py)
    assert f.grad(0.0, 0.0) == (0.0, 0.0)  # 0 ** b and a ** 0 are locally constant in a
    da, db = f.grad(3.0, 0.0)
    # log is pyad's own kernel (docs/vecmath.md): within an ulp of libm's math.log
    assert da == 0.0 and db == pytest.approx(math.log(3.0), rel=2.0 ** -52, abs=0.0)
    assert f.grad(0.0, 2.0) == (0.0, 0.0)
