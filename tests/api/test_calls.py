"""Calls from compiled code: helpers are inlined and differentiated with their caller;
custom_vjp rules and stop_gradient; grad / value_and_grad / vjp.

Every gradient is checked three ways: central finite differences and a dot-product test
(pyad.check_grad) and the IR interpreter on the fused gradient IR (check.interp_value_and_grad).
"""
from __future__ import annotations

import math
import sys
import textwrap

import numpy as np
import pytest

import pyad

from pyad.api.check import interp_value_and_grad

from ..modules import load_module
from .. import calls_lib as L
from ..gradients import check_against_python


# =========================================================================== inlining
def local_helper(x, y):
    return 3.0 * x * y + math.sin(x)


def uses_local_helper(x, y):
    return local_helper(x, y) * local_helper(y, x)


def uses_imported_helpers(x, y):
    return L.hypot2(x, b=y) + L.hypot2(y) + L.sq(L.clipped(x, -1.0, 1.0))


def uses_keywords_in_any_order(x, y):
    return L.clipped(hi=y, lo=-y, x=x) + L.hypot2(b=x, a=y)


def level3(x):
    return math.exp(-x * x)


def level2(x):
    return level3(x) + level3(2.0 * x)


def level1(x):
    s = 0.0
    for k in range(3):
        s += level2(x + k)
    return s


def uses_nested_helpers(x):
    return level1(x) * level2(x)


def uses_array_helpers(w, x):
    out = np.zeros(len(x))
    n = L.fill_squares(out, x)
    m, dev = L.moments(out)
    return L.weighted_sum(w, out) + n * m + np.sum(dev)


def tuple_helper(a, b):
    return a + b, a * b


def uses_tuple_helper(x, y):
    s, p = tuple_helper(x, y)
    t = tuple_helper(s, p)
    return t[0] * t[1]


def helper_in_branch_and_loop(x, n):
    s = 0.0
    for i in range(n):
        if i % 2 == 0:
            s += L.sq(x + i)
        else:
            s -= L.clipped(x * i, -2.0, 2.0)
    return s


@pytest.mark.parametrize("fn, args", [
    (uses_local_helper, (0.7, -1.3)),
    (uses_imported_helpers, (0.4, 2.5)),
    (uses_imported_helpers, (1.7, 0.5)),
    (uses_keywords_in_any_order, (0.3, 1.5)),
    (uses_nested_helpers, (0.35,)),
    (uses_tuple_helper, (0.6, 1.1)),
    (helper_in_branch_and_loop, (0.45, 7)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_scalar_helpers_are_inlined_and_differentiated(fn, args):
    check_against_python(fn, *args)


def test_array_helpers_write_into_the_callers_arrays():
    w, x = np.array([0.5, -1.0, 2.0, 0.25]), np.array([1.5, -0.5, 0.75, 2.0])
    check_against_python(uses_array_helpers, w, x)


jitted_helper = pyad.jit_grad(local_helper)


def uses_jitted_helper(x, y):
    return jitted_helper(x, y) + 1.0


def test_a_jit_grad_function_can_be_called_from_another():
    check_against_python(uses_jitted_helper, 0.2, 0.9)
    assert jitted_helper(0.2, 0.9) == local_helper(0.2, 0.9)  # still usable on its own


def test_helpers_leave_no_call_in_the_ir():
    ir = pyad.jit_grad(uses_imported_helpers).ir(0.4, 2.5)
    assert "sqrt" in ir and "call" not in ir


def test_a_runtime_error_inside_a_helper_names_the_helpers_file_and_line():
    def caller(x):
        return L.bad_index(x) + 1.0
    mod = _module("bad_caller", caller)
    f = pyad.jit_grad(mod.caller)
    line = _line_of(L.bad_index, "return x[len(x)]")
    for call in (f, f.grad):
        with pytest.raises(IndexError, match=rf"line {line} of calls_lib\.py"):
            call(np.ones(3))


def test_writes_into_an_argument_through_a_helper_are_refused_at_the_helpers_line():
    def caller(x):
        L.fill_squares(x, x)
        return x[0]
    mod = _module("writes_arg", caller)
    with pytest.raises(pyad.PyadSyntaxError) as e:
        pyad.jit_grad(mod.caller)(np.ones(3))
    msg = str(e.value)
    assert "calls_lib.py" in msg and "cannot assign into argument array" in msg
    assert "out[i] = x[i] * x[i]" in msg  # the helper's source line under the caret


def test_a_redefined_helper_is_picked_up_by_a_new_compile(tmp_path):
    src = textwrap.dedent("""
        def helper(x):
            return 2.0 * x
        def f(x):
            return helper(x) + 1.0
        g = f
    """)
    mod = _load(tmp_path, "redef", src)
    old = pyad.jit_grad(mod.f)
    assert old(3.0) == 7.0
    # redefined later in the module (the module's global is what a compile sees)
    mod = _load(tmp_path, "redef", src + "def helper(x):\n    return 10.0 * x\n")
    f = pyad.jit_grad(mod.f)
    assert f(3.0) == 31.0 and f.grad(3.0) == 10.0
    assert old(3.0) == 7.0  # compiled code is a snapshot, like Numba's


def star_helper(*xs):
    return xs[0]


def uses_star_helper(x):
    return star_helper(x)


def list_default(x, c=[1.0]):
    return x


def uses_list_default(x):
    return list_default(x)


def uses_too_many_arguments(x):
    return L.sq(x, x)


def unsupported_inside(x):
    return sum({x, x})


def uses_unsupported_helper(x):
    return unsupported_inside(x)


@pytest.mark.parametrize("fn, needle, message", [
    (uses_star_helper, "return star_helper(x)", "*args or **kwargs"),
    (uses_list_default, "return list_default(x)", "default value of parameter `c`"),
    (uses_too_many_arguments, "L.sq(x, x)", "too many positional arguments"),
    (uses_unsupported_helper, "sum({x, x})", "unsupported syntax: set"),
], ids=lambda v: getattr(v, "__name__", None))
def test_unsupported_calls_raise_located_errors(fn, needle, message):
    with pytest.raises(pyad.PyadSyntaxError) as e:
        pyad.jit_grad(fn)(1.5)
    text = str(e.value)
    assert message in text, text
    line = _line_of(sys.modules[__name__], needle)
    assert f"test_calls.py:{line}:" in text.splitlines()[0], text
    assert needle in text and "^" in text


# =========================================================================== custom_vjp
@pyad.custom_vjp
def safe_log(x):
    return math.log(x)


def safe_log_fwd(x):
    return math.log(x), x


def safe_log_bwd(res, ct):
    return (ct / res,)


safe_log.defvjp(safe_log_fwd, safe_log_bwd)


@pyad.custom_vjp
def scaled(x, y):
    """A rule that deliberately differs from the true derivative, to prove it is used."""
    return x * y


def scaled_fwd(x, y):
    return x * y, (x, y)


def scaled_bwd(res, ct):
    x, y = res
    return (2.0 * ct * y, 3.0 * ct * x)


scaled.defvjp(scaled_fwd, scaled_bwd)


@pyad.custom_vjp
def polar(r, t, n):
    """Tuple value, an int argument, residuals computed in the forward rule."""
    return r * math.cos(t) * n, r * math.sin(t)


def polar_fwd(r, t, n):
    c, s = math.cos(t), math.sin(t)
    return (r * c * n, r * s), (r, c, s, n)


def polar_bwd(res, ct):
    r, c, s, n = res
    cx, cy = ct
    return (cx * c * n + cy * s, -cx * r * s * n + cy * r * c, 0.0)


polar.defvjp(polar_fwd, polar_bwd)


def uses_safe_log(x):
    return safe_log(x * x) + 1.0


def uses_scaled(x, y):
    return scaled(x, y) + x


def uses_polar_in_a_loop(r, t):
    s = 0.0
    for k in range(1, 4):
        a, b = polar(r * k, t + 0.1 * k, k)
        s += a * b
    return s


def polar_plain(r, t, n):
    return r * math.cos(t) * n, r * math.sin(t)


def uses_polar_plain_in_a_loop(r, t):
    s = 0.0
    for k in range(1, 4):
        a, b = polar_plain(r * k, t + 0.1 * k, k)
        s += a * b
    return s


def test_a_correct_custom_rule_gives_the_true_gradient():
    check_against_python(uses_safe_log, 1.7)
    check_against_python(uses_polar_in_a_loop, 0.8, 0.4)
    f, g = pyad.jit_grad(uses_polar_in_a_loop), pyad.jit_grad(uses_polar_plain_in_a_loop)
    np.testing.assert_allclose(f.grad(0.8, 0.4), g.grad(0.8, 0.4), rtol=1e-12)


def test_the_custom_rule_is_what_the_gradient_uses():
    f = pyad.jit_grad(uses_scaled, argnums="all")
    x, y = 1.25, -0.5
    assert f(x, y) == x * y + x
    assert f.grad(x, y) == (2.0 * y + 1.0, 3.0 * x)
    iv, ig = interp_value_and_grad(f, x, y)
    assert ig == (2.0 * y + 1.0, 3.0 * x)
    _, back = f.pullback(x, y)
    assert back(2.0) == (2.0 * (2.0 * y + 1.0), 6.0 * x)


def test_a_custom_vjp_function_called_from_python_is_the_plain_function():
    assert safe_log(2.0) == math.log(2.0)
    assert scaled(2.0, 3.0) == 6.0
    assert scaled.__name__ == "scaled" and "deliberately" in scaled.__doc__


@pyad.custom_vjp
def no_rules(x):
    return x


def uses_no_rules(x):
    return no_rules(x)


@pyad.custom_vjp
def wrong_count(x, y):
    return x + y


wrong_count.defvjp(lambda x, y: (x + y, 0.0), lambda res, ct: (ct,))


def wc_fwd(x, y):
    return x + y, 0.0


def wc_bwd(res, ct):
    return (ct,)


wrong_count.defvjp(wc_fwd, wc_bwd)


def uses_wrong_count(x):
    return wrong_count(x, x)


def uses_rule_on_an_array(x):
    return safe_log(x)


def test_custom_rule_errors():
    with pytest.raises(pyad.PyadSyntaxError, match="without rules"):
        pyad.jit_grad(uses_no_rules)(1.0)
    with pytest.raises(pyad.PyadTypeError, match="returns 1 cotangent; `wrong_count` takes 2"):
        pyad.jit_grad(uses_wrong_count).grad(1.0)
    with pytest.raises(pyad.PyadTypeError, match="not arrays"):
        pyad.jit_grad(uses_rule_on_an_array)(np.ones(2))
    with pytest.raises(TypeError, match="must be a function"):
        no_rules.defvjp(1, wc_bwd)


# =========================================================================== stop_gradient
def uses_stop_gradient(x, a):
    c = pyad.stop_gradient(x * x)
    t = pyad.stop_gradient((x, a))
    b = pyad.stop_gradient(a * 2.0)
    return c * x + t[0] + np.sum(b * a) + np.sum(t[1])


def test_stop_gradient_on_numbers_arrays_and_tuples():
    x, a = 1.5, np.array([0.5, -1.0, 2.0])
    f = pyad.jit_grad(uses_stop_gradient, argnums="all")
    assert f(x, a) == pytest.approx(uses_stop_gradient(x, a), rel=1e-14)
    gx, ga = f.grad(x, a)
    assert gx == x * x
    np.testing.assert_array_equal(ga, 2.0 * a)
    _, (ix, ia) = interp_value_and_grad(f, x, a)
    assert ix == gx
    np.testing.assert_array_equal(ia, ga)
    assert pyad.stop_gradient(a) is a


# =========================================================================== API
def two_args(x, y):
    return x * x * y + math.sin(y)


def with_aux(x, a):
    v = np.sum(a * x)
    return v * v, (v, a * 2.0, 3)


def test_grad_follows_jax_argnums():
    x, y = 0.75, -1.25
    assert pyad.grad(two_args)(x, y) == pytest.approx(2 * x * y)
    assert pyad.grad(two_args, argnums=1)(x, y) == pytest.approx(x * x + math.cos(y))
    gx, gy = pyad.grad(two_args, argnums=(0, 1))(x, y)
    assert (gx, gy) == pytest.approx((2 * x * y, x * x + math.cos(y)))
    v, g = pyad.value_and_grad(two_args, argnums=(1,))(x, y)
    assert v == two_args(x, y) and g == pytest.approx((x * x + math.cos(y),))
    assert pyad.grad(two_args).__name__ == "two_args"


def test_value_and_grad_with_aux():
    x, a = 0.5, np.array([1.0, 2.0, -0.5])
    (value, aux), g = pyad.value_and_grad(with_aux, has_aux=True)(x, a)
    v = np.sum(a * x)
    assert value == pytest.approx(v * v) and aux[0] == pytest.approx(v) and aux[2] == 3
    np.testing.assert_array_equal(aux[1], a * 2.0)
    assert g == pytest.approx(2 * v * np.sum(a))
    (_, _), (g0, g1) = pyad.value_and_grad(with_aux, argnums=(0, 1), has_aux=True)(x, a)
    np.testing.assert_allclose(g1, 2 * v * x * np.ones(3))
    with pytest.raises(TypeError, match="must return a pair"):
        pyad.value_and_grad(two_args, has_aux=True)(x, 1.0)


def test_grad_with_aux_is_jaxs_pair():
    x, a = 0.5, np.array([1.0, 2.0, -0.5])
    g, aux = pyad.grad(with_aux, has_aux=True)(x, a)
    v = np.sum(a * x)
    assert g == pytest.approx(2 * v * np.sum(a)) and aux[0] == pytest.approx(v)
    np.testing.assert_array_equal(aux[1], a * 2.0)
    (g0, g1), _ = pyad.grad(with_aux, argnums=(0, 1), has_aux=True)(x, a)
    np.testing.assert_allclose(g1, 2 * v * x * np.ones(3))
    with pytest.raises(TypeError, match="must return a pair"):
        pyad.grad(two_args, has_aux=True)(x, 1.0)


def test_introspection_takes_keyword_arguments():
    f = pyad.jit_grad(two_args)
    assert f.tape_bytes(0.5, y=2.0) == f.tape_bytes(0.5, 2.0)
    assert "define" in f.llvm_ir(0.5, y=2.0)


def test_vjp_returns_one_cotangent_per_argument():
    x, y = 0.75, -1.25
    v, f_vjp = pyad.vjp(two_args, x, y)
    assert v == two_args(x, y)
    gx, gy = f_vjp(2.0)
    assert (gx, gy) == pytest.approx((4 * x * y, 2 * (x * x + math.cos(y))))
    jg = pyad.jit_grad(L.moments)
    (m, dev), back = pyad.vjp(jg, np.array([1.0, 2.0, 4.0]))
    (g,) = back((1.0, np.zeros(3)))
    np.testing.assert_allclose(g, np.full(3, 1 / 3))


def test_the_transformations_accept_jit_grad_objects_and_reuse_compiles():
    jg = pyad.jit_grad(two_args)
    assert pyad.grad(jg, 1)(0.5, 0.25) == pyad.jit_grad(jg, argnums="all").grad(0.5, 0.25)[1]
    assert pyad.grad(jg)(0.5, 0.25) == jg.grad(0.5, 0.25)
    g1, g2 = pyad.grad(two_args), pyad.grad(two_args, argnums=1)
    g1(0.5, 0.25)
    g2(0.5, 0.25)
    from pyad.api.transforms import _compiled
    assert _compiled(two_args) is _compiled(two_args)


# =========================================================================== helpers
def _line_of(obj, needle: str) -> int:
    import inspect
    lines, start = inspect.getsourcelines(obj)
    for k, text in enumerate(lines):
        if needle in text:
            return max(start, 1) + k
    raise AssertionError(f"{needle!r} not found")


def _load(tmp_path, name: str, src: str):
    return load_module(tmp_path / f"{name}.py", src)


_made: dict = {}


def _module(name: str, fn):
    """`fn` (defined inside a test) as a module-level function of a real file next to this
    one, so that pyad can read its source; it sees calls_lib as `L`."""
    import inspect
    import tempfile
    from pathlib import Path
    if name not in _made:
        d = Path(tempfile.mkdtemp(prefix="pyad_calls_"))
        src = "import numpy as np\nfrom tests import calls_lib as L\n\n" + \
            textwrap.dedent(inspect.getsource(fn))
        _made[name] = _load(d, name, src)
    return _made[name]
