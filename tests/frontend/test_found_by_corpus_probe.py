"""What a probe of real-world numerical functions (statistics, physics, finance, signal
processing, geometry; 2026-11-29) found in the Python surface: internal compiler errors where
CPython runs or raises, and `float("inf")` refused. Each test compares with CPython."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

import pyad
from ..gradients import check_against_python
from ..modules import load_module


def fit(X):
    if X.ndim != 2:
        raise ValueError("X must be 2-D")
    return np.sum(X)


def _always(w):
    raise NotImplementedError("not written yet")


def calls_a_raiser(x):
    return _always(x) + 1.0


def activation(x, kind="tanh"):
    if kind == "tanh":
        return np.sum(np.tanh(x))
    elif kind == "relu":
        return np.sum(np.maximum(x, 0.0))
    raise ValueError("unknown activation")


def test_a_raise_decided_when_compiling():
    """Every path raised (the branch taken was known when compiling): KeyError '%retval'."""
    with pytest.raises(ValueError, match="X must be 2-D"):
        pyad.jit_grad(fit)(np.ones(3))
    check_against_python(fit, np.ones((2, 3)))
    with pytest.raises(NotImplementedError, match="not written yet"):
        pyad.jit_grad(calls_a_raiser)(np.ones(2))
    with pytest.raises(ValueError, match="unknown activation"):
        pyad.jit_grad(activation)(np.ones(2), "gelu")
    check_against_python(activation, np.array([0.5, -1.0]), "relu")


def builtin_sum_of_rows(A):
    return np.sum(sum(A) * np.arange(A.shape[1]))


def functions_enumerated(x):
    s = 0.0
    for i, f in enumerate((np.tanh, np.sin)):
        s += (i + 1) * np.sum(f(x))
    return s


def test_python_builtins_the_probe_crashed_or_refused():
    A = np.arange(6.0).reshape(2, 3)
    check_against_python(builtin_sum_of_rows, A)             # 'Var' has no attribute 'n'
    check_against_python(functions_enumerated, np.array([0.3, -1.2, 2.5]))   # FuncRef.name
    x = np.array([3.0, 1.0, 2.0])
    assert pyad.jit_grad(lambda_free_float)(x) == lambda_free_float(x)
    with pytest.raises(pyad.errors.PyadTypeError, match="could not convert string"):
        pyad.jit_grad(bad_float)(x)


def lambda_free_float(x):
    best = float("inf")
    for v in x:
        best = min(best, v)
    return best + float("1e-3") + 0.0 * float("nan") ** 0


def bad_float(x):
    return x[0] + float("one")


def test_lambdas_in_a_display_over_several_lines(tmp_path):
    """`{"sq": lambda v: ...,` alone is not Python: the lambda is found in its statement."""
    mod = load_module(tmp_path / "lambdas_in_displays.py", textwrap.dedent('''
        import numpy as np
        losses = {
            "sq": lambda v: np.sum(v * v),
            "abs": lambda v: np.sum(np.abs(v)),
        }
        fs = [
            lambda v: np.sum(np.tanh(v)),
            lambda v: np.sum(v ** 3)]
        '''))
    x = np.array([1.0, -2.0, 0.5])
    for fn in (mod.losses["sq"], mod.losses["abs"], *mod.fs):
        assert pyad.jit_grad(fn)(x) == pytest.approx(fn(x), rel=1e-15)


def max_with_key(x):
    return max(range(len(x)), key=lambda i: x[i]) * 1.0


def kept_zip(x, names=("a", "b")):
    z = zip(names, x)
    return dict(z)["a"]


def test_messages_for_keywords_of_max_and_a_kept_zip():
    """Were "keyword arguments are not supported ... hint: pass them positionally" (max's key
    cannot be) and "call to unsupported function `zip`" (zip works in loops)."""
    with pytest.raises(pyad.errors.PyadTypeError, match=r"max\(\) with key= is not "
                       r"supported") as e:
        pyad.jit_grad(max_with_key)(np.array([1.0, 2.0]))
    assert "np.argmax" in str(e.value)
    with pytest.raises(pyad.errors.PyadSyntaxError, match="unsupported function `zip`") as e:
        pyad.jit_grad(kept_zip)(np.array([1.0, 2.0]))
    assert "for a, b in zip(x, y)" in str(e.value) and "dict(zip(names, values))" in \
        str(e.value)


NAMES = ("a", "b", "c")


def dict_of_zip(theta):
    p = dict(zip(NAMES, theta))
    return p["a"] * p["b"] + np.sin(p["c"])


def comprehension_of_zip(theta):
    p = {k: v for k, v in zip(NAMES, theta)}
    return p["a"] * p["b"] + np.sin(p["c"])


def zip_of_names_and_blocks(theta):
    p = dict(zip(["w", "b"], [theta[:2], theta[2]]))
    return np.sum(p["w"] ** 2) * p["b"]


def loop_over_names_and_values(theta):
    s = 0.0
    for name, v in zip(NAMES, theta):
        s += len(name) * v * v
    return s


@pytest.mark.parametrize("fn", [dict_of_zip, comprehension_of_zip, zip_of_names_and_blocks,
                                loop_over_names_and_values], ids=lambda f: f.__name__)
def test_parameter_dicts_from_names_and_an_array(fn):
    """Were "call to unsupported function `zip`" and "zip of a tuple of arrays with an
    iterable of run-time length is not supported"."""
    check_against_python(fn, np.array([0.5, -1.0, 2.0]))


def test_a_zip_whose_array_is_shorter_than_its_names():
    """Python would make a dict of two entries (and `p["c"]` would raise KeyError): pyad
    needs all three and says so where the zip is."""
    with pytest.raises(ValueError, match="fewer than the 3 items") as e:
        pyad.jit_grad(dict_of_zip)(np.array([0.5, -1.0]))
    assert f"line {dict_of_zip.__code__.co_firstlineno + 1}" in str(e.value)


def list_times_n(x):
    n = len(x)
    sc = [0.0] * n
    return sc[0] + x[0]


def test_a_list_repeated_a_run_time_number_of_times():
    """Was "a tuple repeated ... hint: use a list", for what was a list."""
    with pytest.raises(pyad.errors.PyadTypeError, match=r"a list repeated") as e:
        pyad.jit_grad(list_times_n)(np.ones(3))
    assert "[v for _ in range(n)]" in str(e.value)


def none_sentinel(x):
    prev = None
    s = 0.0
    for i in range(len(x)):
        if prev is not None:
            s += (x[i] - prev) ** 2
        prev = x[i]
    return s


def test_a_none_sentinel_in_a_loop_says_what_to_write():
    """Was "`prev` changes shape or becomes undefined inside the loop"."""
    with pytest.raises(pyad.errors.PyadSyntaxError, match=r"`prev` is None before the loop "
                       r"and a value after a trip") as e:
        pyad.jit_grad(none_sentinel)(np.ones(3))
    assert "first = True" in str(e.value) and "range(1, n)" in str(e.value)
    assert f"{none_sentinel.__code__.co_firstlineno + 3}" in str(e.value).splitlines()[0]
