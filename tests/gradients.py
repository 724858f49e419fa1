"""The three-way gradient check the call, recursion and loop tests share. Of the three, the
finite differences and the dot-product test check the AD; the IR interpreter runs the IR the
AD pass made, so it checks the backend only (tests/fuzz is the independent AD oracle)."""
from __future__ import annotations

import numpy as np
import pytest

import pyad
from pyad.api.check import interp_value_and_grad


def assert_gradients(f, *args) -> None:
    """`f`'s gradient passes central finite differences and the dot-product test
    (pyad.check_grad), equals the IR interpreter's on the fused gradient IR, and the pullback
    (forward and backward apart) gives value_and_grad's gradient bit for bit."""
    pyad.check_grad(f, *args)
    v, g = f.value_and_grad(*args)
    iv, ig = interp_value_and_grad(f, *args)
    assert v == pytest.approx(iv, rel=1e-12)
    for a, b in zip(g, ig):
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    _, back = f.pullback(*args)
    for a, b in zip(back(1.0), g):
        if a is not None:
            np.testing.assert_array_equal(a, b)


def check_against_python(fn, *args, rtol: float = 1e-10):
    """Compile `fn`: its value equals CPython's; if it has float arguments, its gradient
    passes `assert_gradients`. Returns the compiled function."""
    f = pyad.jit_grad(fn)
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = f(*args)
    assert isinstance(got, int) == isinstance(want, (int, np.integer))
    np.testing.assert_allclose(got, want, rtol=rtol)
    if any(isinstance(a, (float, np.ndarray)) for a in args):
        assert_gradients(f, *args)
    return f
