"""Control flow: `for ... in range(...)`, `while`, `break`, `continue`, `return` from anywhere,
nesting and loop-carried variables, compiled and differentiated.

Differential tests over tests/corpus_loops.py (as tests/frontend/test_corpus.py does for
straight-line code): every corpus function is compiled with `pyad.jit_grad` and checked
against

  * CPython running the plain function (values: exact for ints, rtol 1e-12 for floats),
  * the reference interpreter on the primal IR (`spec.func`),
  * for a single float result: the interpreter on the fused value-and-gradient IR (rtol
    1e-11), `pyad.check_grad` (finite differences plus a dot-product test, except for
    NO_FINITE_DIFFERENCES), `value_and_grad` and `pullback` (called twice),
  * for tuple results: the pullback and `pyad.check_grad`.

Then: `range` with step 0 or a float, located errors for possibly-unbound variables and for
run-time errors inside loops, IR round trips of structured control flow, and a hypothesis
property test over random programs with loops. Long loops and the tape are in
tests/ad/test_tape.py.
"""
from __future__ import annotations

import gc
import inspect
import itertools
import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyad

from pyad.ir import interp
from pyad.ir.nodes import F64

from ..modules import load_module
from .. import corpus_loops as C
from ..corpus_loops import CASES, LOOP_PROMOTION, NO_FINITE_DIFFERENCES
from ..ad.test_random_programs import BINARY, UNARY, _away_from_kinks
from .test_corpus import close, compiled, finite, has_float_param, rebuild

RTOL = 1e-12        # compiled value vs CPython
GRAD_RTOL = 1e-11   # compiled gradient vs the interpreter on the fused IR

def case_id(case) -> str:
    return case[0].__name__


def _has_float(v) -> bool:
    return any(_has_float(x) for x in v) if isinstance(v, tuple) else type(v) is float


def differentiable(case) -> bool:
    fn, samples = case
    return any(has_float_param(a) and _has_float(fn(*a)) for a in samples)


def _line_of(fn, needle: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if needle in s)


def oracle_grad(f, args):
    """(value, gradient tuple) from the interpreter on the fused IR."""
    unit = f.specialization(args).gradient("all")
    assert unit.fused is not None
    flat = interp.run(unit.fused, args)
    assert len(flat) == 1 + len(unit.wrt)
    grad = [None] * len(args)
    for k, p in enumerate(unit.wrt):
        grad[p] = flat[1 + k]
    return flat[0], tuple(grad)


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


linux_only = pytest.mark.skipif(not os.path.exists("/proc/self/statm"),
                                reason="RSS is read from /proc/self/statm")

SAMPLES = [(fn, args) for fn, samples in CASES for args in samples]



# =========================================================================== the corpus
def test_corpus_is_well_formed():
    names = [fn.__name__ for fn, _ in CASES]
    assert len(names) == len(set(names)) >= 40
    assert NO_FINITE_DIFFERENCES <= set(names) and LOOP_PROMOTION <= set(names)
    for fn, samples in CASES:
        assert samples, fn.__name__
        nparams = len(inspect.signature(fn).parameters)
        for args in samples:
            assert len(args) == nparams, (fn.__name__, args)
            assert all(type(a) in (float, int, bool) for a in args)
    assert sum(any(a < 0 for a in args) for _, args in SAMPLES) >= 30


def test_corpus_samples_are_away_from_kinks():
    """Finite differences are meaningful at every sample (CPython only, no pyad): central
    differences with steps 1e-5, 1e-6 (check_grad's) and 1e-7 agree. A branch decision,
    break, early return or trip count flipping within a step would make them disagree."""
    def flat(r):
        return [float(v) for v in r] if isinstance(r, tuple) else [float(r)]

    def fd(fn, args, i, eps):
        p, m = list(args), list(args)
        p[i] += eps
        m[i] -= eps
        return [(a - b) / (2 * eps) for a, b in zip(flat(fn(*p)), flat(fn(*m)))]

    for fn, args in SAMPLES:
        if fn.__name__ in NO_FINITE_DIFFERENCES:
            continue
        assert all(math.isfinite(v) for v in flat(fn(*args))), (fn.__name__, args)
        for i, a in enumerate(args):
            if type(a) is not float:
                continue
            for d5, d6, d7 in zip(*(fd(fn, args, i, e) for e in (1e-5, 1e-6, 1e-7))):
                scale = max(abs(d5), abs(d6), abs(d7), 1.0)
                assert max(abs(d5 - d6), abs(d7 - d6)) <= 1e-4 * scale, \
                    f"{fn.__name__}{args}: argument {i} is near a kink ({d5}, {d6}, {d7})"


def test_corpus_iterations_converge_in_cpython():
    """The corpus functions compute what their names say (sanity of the corpus itself)."""
    assert C.newton_sqrt(2.0) == pytest.approx(math.sqrt(2.0), rel=1e-15)
    assert C.newton_cbrt(-8.3) == pytest.approx(-(8.3 ** (1 / 3)), rel=1e-15)
    assert C.taylor_exp(-2.5) == pytest.approx(math.exp(-2.5), rel=1e-13)
    assert C.taylor_sin(3.0) == pytest.approx(math.sin(3.0), rel=1e-13)
    assert C.fixed_point_cos(1.0) == pytest.approx(math.cos(C.fixed_point_cos(1.0)), rel=1e-13)
    e = C.kepler_solve(2.5, 0.6)
    assert e - 0.6 * math.sin(e) == pytest.approx(2.5, rel=1e-15)
    assert C.bisect_cbrt(2.0, 0.0, 2.0) == pytest.approx(2.0 ** (1 / 3), rel=1e-14)
    assert C.bisect_while(0.3) == pytest.approx(math.atanh(0.3), abs=1e-8)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_values_match_cpython_and_interpreter(case):
    fn, samples = case
    f = compiled(fn)
    promote = fn.__name__ in LOOP_PROMOTION
    for args in samples:
        want = fn(*args)
        got = f(*args)
        assert close(got, want, promote=promote), \
            f"{fn.__name__}{args}: pyad {got!r}, CPython {want!r}"
        spec = f.specialization(args)
        ref = rebuild(spec.shape, interp.run(spec.func, args))
        assert close(ref, want, promote=promote), \
            f"{fn.__name__}{args}: interpreter {ref!r}, CPython {want!r}"
        again = f(*args)  # the native fast path after the first call
        assert close(again, want, promote=promote)


@pytest.mark.parametrize("case", [c for c in CASES if differentiable(c)], ids=case_id)
def test_gradients(case):
    fn, samples = case
    f = compiled(fn)
    promote = fn.__name__ in LOOP_PROMOTION
    checked = 0
    for args in samples:
        if not has_float_param(args):
            continue
        spec = f.specialization(args)
        results = spec.func.results
        want_value = fn(*args)
        if spec.shape == 0 and results[0].type == F64:
            oracle_value, want_grad = oracle_grad(f, args)
            assert close(oracle_value, want_value, promote=promote), \
                f"{fn.__name__}{args}: fused IR value {oracle_value!r}, CPython {want_value!r}"
            got_grad = f.grad(*args)
            # check_grad cannot see nan/inf: the samples are inside the domain, so every
            # gradient must be finite
            assert finite(got_grad), f"{fn.__name__}{args}: gradient {got_grad!r}"
            assert close(got_grad, want_grad, rtol=GRAD_RTOL), \
                f"{fn.__name__}{args}: grad pyad {got_grad!r}, fused IR interpreter {want_grad!r}"
            val, g = f.value_and_grad(*args)
            assert close(val, want_value, promote=promote)
            assert close(g, got_grad, rtol=RTOL)
            y, back = f.pullback(*args)
            assert close(y, want_value, promote=promote)
            first = back(1.0)
            assert close(first, got_grad, rtol=RTOL), \
                f"{fn.__name__}{args}: pullback {first!r}, grad {got_grad!r}"
            assert back(1.0) == first  # the tape is not consumed by the reverse sweep
            doubled = back(2.0)
            assert close(doubled, tuple(None if v is None else 2.0 * v for v in first))
            assert back(1.0) == first
            if fn.__name__ not in NO_FINITE_DIFFERENCES:
                pyad.check_grad(f, *args)
            checked += 1
        elif spec.shape != 0 and any(r.type == F64 for r in results):
            y, back = f.pullback(*args)
            assert close(y, want_value)
            ones = rebuild(spec.shape, [1.0] * len(results))
            first = back(ones)
            assert finite(first), f"{fn.__name__}{args}: gradient {first!r}"
            assert back(ones) == first
            pyad.check_grad(f, *args)
            checked += 1
    assert checked, f"{fn.__name__}: no sample was differentiated"


def _int_version(args):
    return tuple(int(round(a)) if type(a) is float else a for a in args)


@pytest.mark.parametrize("case", [c for c in CASES if any(has_float_param(a) for a in c[1])],
                         ids=case_id)
def test_int_arguments_after_float_signature(case):
    """All-int arguments are a second signature (loop-carried variables that start as ints
    and receive floats are floats: compare with promotion)."""
    fn, samples = case
    f = compiled(fn)
    for args in samples:
        if not has_float_param(args):
            continue
        f(*args)
        iargs = _int_version(args)
        try:
            want = fn(*iargs)
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                f(*iargs)
            continue
        except (ValueError, OverflowError):
            continue  # math domain errors: pyad follows IEEE by design
        got = f(*iargs)
        assert close(got, want, promote=True), f"{fn.__name__}{iargs}: pyad {got!r}, CPython {want!r}"
        assert close(f(*args), fn(*args), promote=fn.__name__ in LOOP_PROMOTION)


# Closed-form derivatives of the iterative solvers (the unrolled iteration converges to them).
@pytest.mark.parametrize("fn, args, want, rtol", [
    (C.newton_sqrt, (2.0,), (0.5 / math.sqrt(2.0),), 1e-12),
    (C.newton_sqrt, (123.0,), (0.5 / math.sqrt(123.0),), 1e-12),
    (C.newton_cbrt, (-8.3,), (1.0 / (3.0 * 8.3 ** (2.0 / 3.0)),), 1e-12),
    (C.taylor_exp, (-2.5,), (math.exp(-2.5),), 1e-12),
    (C.taylor_exp, (4.0,), (math.exp(4.0),), 1e-12),
    (C.taylor_sin, (0.7,), (math.cos(0.7),), 1e-12),
    (C.taylor_sin, (-2.5,), (math.cos(-2.5),), 1e-12),
], ids=lambda v: getattr(v, "__name__", None))
def test_iterative_solvers_have_exact_gradients(fn, args, want, rtol):
    assert close(compiled(fn).grad(*args), want, rtol=rtol)


def test_kepler_and_fixed_point_gradients_match_implicit_function_theorem():
    m, e = 2.5, 0.6
    big_e = C.kepler_solve(m, e)
    den = 1.0 - e * math.cos(big_e)
    g = compiled(C.kepler_solve).grad(m, e)
    assert close(g, (1.0 / den, math.sin(big_e) / den), rtol=1e-10)
    a = 1.0
    x = C.fixed_point_cos(a)
    s = math.sin(a * x)
    (ga,) = compiled(C.fixed_point_cos).grad(a)
    assert ga == pytest.approx(-x * s / (1.0 + a * s), rel=1e-9)


# =========================================================================== range step 0
def range_step(x, start, stop, step):
    s = x
    for i in range(start, stop, step):
        s = s * 1.5 + i
    return s


def literal_zero_step_not_reached(x):
    if x > 100.0:
        for i in range(0, 3, 0):
            x = x + i
    return x * 2.0


def test_range_step_zero_raises_value_error():
    f = compiled(range_step)
    with pytest.raises(ValueError, match=r"range\(\) arg 3 must not be zero"):
        range_step(1.0, 0, 10, 0)  # CPython
    line = _line_of(range_step, "in range(start, stop, step)")
    with pytest.raises(ValueError, match=r"range\(\) arg 3 must not be zero") as info:
        f(1.0, 0, 10, 0)
    assert f"line {line}" in str(info.value)
    with pytest.raises(ValueError, match=r"range\(\) arg 3 must not be zero"):
        f.grad(1.0, 0, 10, 0)
    with pytest.raises(ValueError, match=r"range\(\) arg 3 must not be zero"):
        f.value_and_grad(-2.0, 5, 5, 0)  # even for an empty range
    with pytest.raises(ValueError, match=r"range\(\) arg 3 must not be zero"):
        f.pullback(1.0, 0, 10, 0)
    with pytest.raises(ValueError):
        interp.run(f.specialization((1.0, 0, 10, 0)).func, (1.0, 0, 10, 0))
    # still usable afterwards
    assert f(1.0, 0, 10, 3) == range_step(1.0, 0, 10, 3)
    assert f.grad(1.0, 0, 10, 3) == (1.5 ** 4, None, None, None)


def test_literal_zero_step():
    """CPython raises only when the range is reached. pyad may instead refuse a literal step
    0 at compile time, but then with a located error at the step argument."""
    f = pyad.jit_grad(literal_zero_step_not_reached, argnums="all")
    assert literal_zero_step_not_reached(1.5) == 3.0
    try:
        value = f(1.5)
    except pyad.PyadSyntaxError as e:
        assert "range() arg 3 must not be zero" in str(e)
        assert e.filename == __file__
        assert e.line == _line_of(literal_zero_step_not_reached, "range(0, 3, 0)")
        return
    assert value == 3.0 and f.grad(1.5) == (2.0,)  # compiled; the range is never built
    with pytest.raises(ValueError, match=r"range\(\) arg 3 must not be zero"):
        f(150.0)


def test_range_of_a_float_is_a_type_error_like_python():
    with pytest.raises(TypeError):
        range_step(1.0, 0.0, 10, 1)
    with pytest.raises(TypeError):
        pyad.jit_grad(range_step, argnums="all")(1.0, 0.0, 10, 1)




# =========================================================================== errors
def maybe_unbound_after_branch(x):
    if x > 0.0:
        y = x * 2.0
    return y  # unbound when x <= 0


def maybe_unbound_after_loop(x, n):
    for i in range(n):
        z = x * i
    return z  # unbound when n <= 0


def bound_on_every_path(x):
    if x > 0.0:
        y = x * 2.0
    else:
        y = -x
    return y


@pytest.mark.parametrize("fn, args, name", [(maybe_unbound_after_branch, (1.0,), "y"),
                                            (maybe_unbound_after_loop, (1.0, 3), "z")],
                         ids=["branch", "loop"])
def test_possibly_unbound_variable_is_a_located_error(fn, args, name):
    """A variable first assigned inside a branch (or a loop body) may be used later
    only if it is defined on every path; otherwise a located error like UnboundLocalError."""
    f = pyad.jit_grad(fn, argnums="all")
    with pytest.raises(pyad.PyadSyntaxError) as info:
        f(*args)
    err = info.value
    assert name in err.bare_message
    assert err.filename == __file__
    assert err.line in (_line_of(fn, f"return {name}"), _line_of(fn, f"{name} = x"))
    with pytest.raises(pyad.PyadSyntaxError):
        f.grad(*args)


def test_defined_on_every_path_is_fine():
    f = pyad.jit_grad(bound_on_every_path, argnums="all")
    assert f(1.5) == 3.0 and f(-2.0) == 2.0
    assert f.grad(1.5) == (2.0,) and f.grad(-2.0) == (-1.0,)


def div_in_loop(x, k, n):
    s = 0.0
    for i in range(n):
        s = s * x + x / (i - k)
    return s


@linux_only
def test_runtime_error_inside_a_loop_names_the_line_and_frees_the_tape():
    f = pyad.jit_grad(div_in_loop, argnums="all")
    line = _line_of(div_in_loop, "x / (i - k)")
    assert f(0.5, -1, 10) == pytest.approx(div_in_loop(0.5, -1, 10), rel=1e-12)
    with pytest.raises(ZeroDivisionError, match=rf"line {line}\b"):
        f(0.5, 5, 10)
    with pytest.raises(ZeroDivisionError, match=rf"line {line}\b"):
        f.grad(0.5, 5, 10)
    with pytest.raises(ZeroDivisionError):
        f.pullback(0.5, 5, 10)
    k = 100_000  # the error comes after 100,000 iterations of pushes
    for _ in range(10):
        with pytest.raises(ZeroDivisionError):
            f.value_and_grad(0.5, k, 2 * k)
    gc.collect()
    before = rss_bytes()
    for _ in range(200):
        with pytest.raises(ZeroDivisionError):
            f.value_and_grad(0.5, k, 2 * k)
        with pytest.raises(ZeroDivisionError):
            f.pullback(0.5, k, 2 * k)
    gc.collect()
    grown = rss_bytes() - before
    assert grown < 5 * 2**20, f"RSS grew by {grown / 2**20:.1f} MB over 400 failing calls"
    g, oracle = f.grad(0.5, -1, 10), oracle_grad(f, (0.5, -1, 10))[1]
    assert g[1:] == oracle[1:] == (None, None)
    assert g[0] == pytest.approx(oracle[0], rel=1e-11)


# =========================================================================== IR
@pytest.mark.parametrize("fn, args", [
    (C.newton_sqrt, (2.0,)),
    (C.early_returns, (0.1, 0.5)),
    (C.triple_loop, (0.4, 0.7, 3)),
    (C.while_continue_break, (0.4,)),
    (C.return_from_nested, (1.3, 4)),
    (C.five_deep, (0.3, 3)),
    (C.lorenz_rk4, (10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0, 20, 0.01)),
], ids=lambda v: getattr(v, "__name__", None))
def test_loop_ir_round_trips_and_verifies(fn, args):
    """Structured control flow is printed and parsed like the rest of the IR."""
    from pyad.ir.parse import parse_func
    from pyad.ir.verify import verify
    f = compiled(fn)
    spec = f.specialization(args)
    unit = spec.gradient("all")
    for func in (spec.func, unit.fwd, unit.bwd, unit.fused):
        verify(func)
        again = parse_func(str(func))
        verify(again)
        assert str(again) == str(func)
    value, *grads = interp.run(parse_func(str(unit.fused)), args)
    cval, cgrads = f.value_and_grad(*args)
    assert value == pytest.approx(cval, rel=1e-13)
    assert [g for g in cgrads if g is not None] == pytest.approx(grads, rel=1e-11)


# =========================================================================== random programs
LEAVES = ["x", "y", "t", "u", "1.25", "2"]


@st.composite
def expressions(draw, leaves, depth=2):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(leaves))
    if draw(st.booleans()):
        return draw(st.sampled_from(UNARY)).format(draw(expressions(leaves, depth - 1)))
    form = draw(st.sampled_from(BINARY))
    return form.format(draw(expressions(leaves, depth - 1)), draw(expressions(leaves, depth - 1)))


@st.composite
def blocks(draw, indent, leaves, depth, in_loop):
    """A list of source lines at `indent` (1 for the function body), inside `depth` loops.
    Values stay bounded: inside loops, assignments go through tanh/sin or small increments;
    trip counts are at most 5 per loop, loops at most 2 deep, statements at most 4 deep."""
    pad = "    " * indent
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        kinds = ["assign", "aug", "return"]
        if indent < 4:
            kinds.append("if")
            if depth < 2:
                kinds += ["for", "while"] * 2
        if in_loop:
            kinds += ["break", "continue"]
        kind = draw(st.sampled_from(kinds))
        e = draw(expressions(leaves))
        c = draw(st.sampled_from(["0.3", "-0.2", "0.9", "1.7"]))
        if kind == "assign":
            if in_loop:
                stmt = draw(st.sampled_from([f"t = math.tanh({e})",
                                             f"u = 0.5 * u + 0.5 * math.sin({e})",
                                             f"t = 0.75 * t + 0.25 * math.tanh({e})"]))
            else:
                stmt = draw(st.sampled_from([f"t = {e}", f"u = {e}"]))
            lines.append(pad + stmt)
        elif kind == "aug":
            lines.append(pad + draw(st.sampled_from([
                f"t += 0.25 * math.sin({e})", f"u -= 0.125 * math.tanh({e})", "t *= 0.75",
                f"u /= 2.25 + math.cos({e})", "u += t * 0.125"])))
        elif kind == "if":
            lines.append(f"{pad}if {e} > {c}:")
            lines += draw(blocks(indent + 1, leaves, depth, in_loop))
            if draw(st.booleans()):
                lines.append(f"{pad}else:")
                lines += draw(blocks(indent + 1, leaves, depth, in_loop))
        elif kind == "return":
            lines.append(f"{pad}if {e} > {c}:")
            lines.append(f"{pad}    return 0.5 * {draw(expressions(leaves))} + t")
        elif kind in ("break", "continue"):
            lines.append(f"{pad}if {e} > {c}:")
            lines.append(f"{pad}    {kind}")
        elif kind == "for":
            var = f"i{depth}"
            start = draw(st.integers(-2, 3))
            step = draw(st.sampled_from([1, 1, 2, -1, -2, 3]))
            trips = draw(st.sampled_from([0, 1, 2, 3, 3, 4, 5]))
            stop = start + trips * step - draw(st.integers(0, abs(step) - 1)) * (step // abs(step))
            rng = f"range({stop})" if draw(st.booleans()) and step == 1 and start == 0 else \
                f"range({start}, {stop}, {step})"
            lines.append(f"{pad}for {var} in {rng}:")
            lines += draw(blocks(indent + 1, leaves + [var, f"({var} * 0.5)"], depth + 1, True))
        else:  # while with a counter, sometimes with a float condition too
            var = f"k{depth}"
            bound = draw(st.integers(0, 4))
            cond = f"{var} < {bound}"
            if draw(st.booleans()):
                cond += f" and {draw(expressions(leaves))} < 3.0"
            lines.append(f"{pad}{var} = 0")
            lines.append(f"{pad}while {cond}:")
            lines.append(f"{pad}    {var} += 1")
            lines += draw(blocks(indent + 1, leaves, depth + 1, True))
    return lines


@st.composite
def loop_programs(draw):
    lines = ["    t = x * y", "    u = 0.5"]
    lines += draw(blocks(1, LEAVES, 0, False))
    lines.append(f"    return 0.5 * {draw(expressions(LEAVES))} + t + u")
    return "\n".join(lines)


_counter = itertools.count()


def _load(body: str, tmp_path_factory):
    path = tmp_path_factory.mktemp("loopprog") / f"loopprog{next(_counter)}.py"
    return load_module(path, "import math\n\n\ndef prog(x, y):\n" + body + "\n").prog


# Derandomized so CI is reproducible; run with PYAD_HYPOTHESIS_EXAMPLES=5000 to explore more.
@pytest.mark.heavy
@settings(max_examples=int(os.environ.get("PYAD_HYPOTHESIS_EXAMPLES", 50)), deadline=None,
          derandomize=not os.environ.get("PYAD_HYPOTHESIS_EXAMPLES"),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=loop_programs(), x=st.floats(-2.0, 2.0), y=st.floats(-2.0, 2.0))
def test_random_loop_program(body, x, y, tmp_path_factory):
    py = _load(body, tmp_path_factory)
    f = pyad.jit_grad(py, argnums="all")
    want = py(x, y)
    assert math.isfinite(want)
    assert f(x, y) == pytest.approx(want, rel=1e-12, abs=1e-12)
    spec = f.specialization((x, y))
    assert rebuild(spec.shape, interp.run(spec.func, (x, y))) == \
        pytest.approx(want, rel=1e-12, abs=1e-12)
    value, *oracle = interp.run(spec.gradient("all").fused, (x, y))
    val, grads = f.value_and_grad(x, y)
    assert val == pytest.approx(value, rel=1e-13, abs=1e-13)
    assert val == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert list(grads) == pytest.approx(oracle, rel=1e-11, abs=1e-11)
    _, back = f.pullback(x, y)
    assert list(back(1.0)) == pytest.approx(list(grads), rel=1e-12, abs=1e-12)
    if _away_from_kinks(py, x, y) and all(math.isfinite(g) for g in grads):
        pyad.check_grad(f, x, y, rtol=1e-5, atol=1e-6)


