"""The jit_grad API: values, gradient structures, argnums, pullbacks, signatures, bad calls."""
from __future__ import annotations

import gc
import math
import weakref

import pytest

import pyad


@pyad.jit_grad
def f(a, b):
    return a / (a + b * b)


def test_value_gradient_and_pullback_of_the_example():
    assert f(2.0, 3.0) == 2.0 / 11.0
    ga = f.grad(2.0, 3.0)                       # argument 0, bare (jax.grad's convention)
    assert ga == pytest.approx(0.0743801652892562, rel=1e-15)
    val, g = f.value_and_grad(2.0, 3.0)
    assert val == 2.0 / 11.0 and g == ga
    y, back = f.pullback(2.0, 3.0)
    assert y == val
    assert back(1.0) == ga and back(2.0) == 2 * ga and back(1.0) == ga  # reusable
    fa = pyad.jit_grad(f, argnums="all")
    ga2, gb = fa.grad(2.0, 3.0)
    assert ga2 == ga and gb == pytest.approx(-0.09917355371900827, rel=1e-15)
    assert fa.value_and_grad(2.0, 3.0) == (val, (ga, gb))
    _, back = fa.pullback(2.0, 3.0)
    assert back(1.0) == (ga, gb) and back(2.0) == (2 * ga, 2 * gb)
    pyad.check_grad(f, 2.0, 3.0)


def test_repeated_calls_take_the_native_path_and_stay_right():
    for x in (0.5, 1.5, -2.0):
        assert f(x, 3.0) == x / (x + 9.0)
        assert f.grad(x, 3.0) == pytest.approx(9.0 / (x + 9.0) ** 2, rel=1e-14)


def test_int_arguments_are_another_signature():
    @pyad.jit_grad
    def g(x, n):
        return x * n + n // 2

    assert g(1.5, 3) == 1.5 * 3 + 1
    assert g(2, 3) == 7 and isinstance(g(2, 3), int)  # (i64, i64): an int result
    assert g.grad(1.5, 3) == 3.0
    assert pyad.jit_grad(g, argnums="all").grad(1.5, 3) == (3.0, None)
    with pytest.raises(TypeError, match="g: nothing to differentiate"):
        g.grad(2, 3)


def test_argnums():
    def h(a, b, c):
        return a * b * c

    assert pyad.jit_grad(h, argnums=1).grad(2.0, 3.0, 5.0) == 10.0
    assert pyad.jit_grad(h, argnums=(2, 0)).grad(2.0, 3.0, 5.0) == (6.0, 15.0)
    val, g = pyad.jit_grad(h, argnums=(1,)).value_and_grad(2.0, 3.0, 5.0)
    assert val == 30.0 and g == (10.0,)
    y, back = pyad.jit_grad(argnums=0)(h).pullback(2.0, 3.0, 5.0)
    assert back(2.0) == 30.0
    with pytest.raises(TypeError, match="parameter 'n'"):
        pyad.jit_grad(lambda_free_int, argnums=1).grad(1.0, 2)
    with pytest.raises(ValueError, match="out of range"):
        pyad.jit_grad(h, argnums=5).grad(2.0, 3.0, 5.0)


def lambda_free_int(x, n):
    return x * n


def test_tuple_results_and_pullback():
    @pyad.jit_grad(argnums="all")
    def polar(r, t):
        return r * math.cos(t), (r * math.sin(t), 7)

    (x, (y, k)), back = polar.pullback(2.0, 0.5)
    assert (x, (y, k)) == polar(2.0, 0.5)
    gr, gt = back((1.0, (0.0, None)))
    assert gr == pytest.approx(math.cos(0.5)) and gt == pytest.approx(-2.0 * math.sin(0.5))
    gr, gt = back((0.0, (1.0, 0)))
    assert gr == pytest.approx(math.sin(0.5)) and gt == pytest.approx(2.0 * math.cos(0.5))
    pyad.check_grad(polar, 2.0, 0.5)
    with pytest.raises(TypeError, match="single float"):
        polar.grad(2.0, 0.5)
    with pytest.raises(TypeError, match="structure of the result"):
        back(1.0)


def test_pullback_outlives_the_function():
    def tmp(a):
        return math.exp(a) * a

    jf = pyad.jit_grad(tmp)
    _, back = jf.pullback(1.5)
    ref = weakref.ref(jf)
    del jf
    gc.collect()
    assert ref() is None
    assert back(1.0) == pytest.approx(math.exp(1.5) * 2.5, rel=1e-14)
    del back
    gc.collect()


def test_many_pullbacks_are_freed():
    for i in range(2000):
        y, back = f.pullback(float(i), 1.0)
        assert back(1.0) == pytest.approx(1.0 / (i + 1.0) ** 2)


def test_wrong_arguments_name_the_parameter():
    with pytest.raises(TypeError, match=r"missing 1 required positional argument: 'b'"):
        f(1.0)
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        f(1.0, 2.0, 3.0)
    with pytest.raises(TypeError, match=r"argument 'b' must be a float, int, bool, str, "
                                        r"numpy array, None, or a tuple, list, dict, "
                                        r"namedtuple or dataclass of them, not object"):
        f(1.0, object())
    with pytest.raises(pyad.PyadTypeError, match=r"test_api.py:15:.*a string cannot be used "
                                                 r"as a number"):
        f(1.0, "x")   # a compile-time value: refused where it is used as a number
    with pytest.raises(TypeError, match=r"argument 'a\[0\]' must be a float, int, bool, "
                                        r"str, numpy array, None, or a tuple.*, not set"):
        f.grad([{1}], 2.0)


def test_big_ints_and_bools():
    @pyad.jit_grad
    def scale(x, n, flag):
        return x * n if flag else -x

    assert scale(1.5, 2, True) == 3.0 and scale(1.5, 2, False) == -1.5
    assert scale.grad(1.5, 2, True) == 2.0
    assert pyad.jit_grad(scale, argnums="all").grad(1.5, 2, True) == (2.0, None, None)
    with pytest.raises(OverflowError, match="argument 'n' does not fit in a 64-bit integer"):
        scale(1.5, 2**70, True)


def test_numpy_scalars_are_accepted():
    import numpy as np
    assert f(np.float64(2.0), 3.0) == 2.0 / 11.0
    assert f.grad(np.float64(2.0), np.int64(3)) == pytest.approx(0.0743801652892562)


def test_runtime_error_names_the_line():
    @pyad.jit_grad
    def inv(x):
        return 1.0 / x

    with pytest.raises(ZeroDivisionError, match=r"float division by zero \(line \d+ of test_api.py\)"):
        inv(0.0)
    with pytest.raises(ZeroDivisionError):
        inv.grad(0.0)
    with pytest.raises(ZeroDivisionError):
        inv.pullback(0.0)


def test_introspection():
    assert "func f(%a: f64, %b: f64) -> (f64)" in f.ir(2.0, 3.0)
    text = f.grad_ir(2.0, 3.0)
    assert "func f.fwd" in text and "func f.bwd" in text and "func f.vg" in text
    assert "define" in f.llvm_ir(2.0, 3.0)
    assert "f.vg" in f.llvm_ir(2.0, 3.0, gradient=True)


def test_interpreter_exit_with_live_code_and_pullbacks(tmp_path):
    # Compiled code and pullbacks alive at exit must not crash the interpreter's shutdown.
    import subprocess
    import sys
    mod = tmp_path / "m.py"
    mod.write_text("import math, pyad\n@pyad.jit_grad\ndef f(a, b):\n    return math.sin(a) * b\n"
                   "y, back = f.pullback(1.0, 2.0)\ng = f.grad(1.0, 2.0)\nprint(f(1.0, 2.0), back(1.0))\n")
    r = subprocess.run([sys.executable, str(mod)], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()
