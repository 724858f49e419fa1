"""Global NumPy arrays a function reads are frozen as constants of its compiled code (like
global numbers): read when a signature is compiled, never written. Values against NumPy,
gradients by the differential harness; the freezing rule; located refusals."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..modules import load_module
from .harness import check_function

W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
B = np.array([0.1, -0.2])
IDX = np.array([2, 0, 1], dtype=np.int32)     # converted to int64, as arguments are
MASK = np.array([True, False, True])
HALF = np.linspace(0.0, 1.0, 3, dtype=np.float32)   # converted to float64
STRIDED = np.arange(12.0).reshape(3, 4)[::2, ::-1]  # a view: its elements are frozen


def layer(x):
    return np.tanh(W @ x + B)


def uses_every_kind(x):
    return np.sum(layer(x)) + np.sum(x[IDX] * HALF) + np.sum(np.where(MASK, x, 0.0)) \
        + np.sum(STRIDED[:, :3] @ x) + W.shape[0] + len(B)


def helper_reads_global(x):
    return np.sum(layer(x) * layer(x))


@pytest.mark.parametrize("fn", [layer, uses_every_kind, helper_reads_global],
                         ids=lambda f: f.__name__)
def test_values_and_gradients(fn):
    check_function(fn, (np.array([0.3, -0.7, 1.1]),))


def carried(x, n):
    """A constant joining differentiated arrays through a loop and a branch."""
    y = B
    for _ in range(n):
        y = y * x[:2]
    z = W[0] if n > 5 else x
    return np.sum(y) + np.sum(z * z)


@pytest.mark.parametrize("n", [0, 3, 6])
def test_a_constant_carried_with_differentiated_arrays(n):
    check_function(carried, (np.array([0.3, -0.7, 1.1]), n))


def test_frozen_when_a_signature_is_compiled(tmp_path):
    mod = load_module(tmp_path / "frozen.py", "import numpy as np\nC = np.array([1.0, 2.0])\n\n"
                      "def f(x):\n    return np.sum(C * x)\n")
    f = pyad.jit_grad(mod.f)
    x = np.array([1.0, 1.0])
    assert f(x) == 3.0
    mod.C[0] = 10.0                     # a change after compiling is not seen ...
    mod.C = np.array([5.0, 5.0])        # ... nor is rebinding the name
    assert f(x) == 3.0
    assert f.grad(x).tolist() == [1.0, 2.0]
    assert pyad.jit_grad(mod.f)(x) == 10.0                # a new compilation reads it again
    assert f(np.array([1, 1])) == 10.0                    # and so does a new signature


@pytest.mark.parametrize("body, message", [
    ("C[0] = 1.0\n    return C[0]", "cannot assign into the global array `C`"),
    ("v = C[:1]\n    v += x\n    return v[0]", "cannot assign into the global array `C`"),
    ("return np.sum(T4)", r"global array `T4` \(float64, 4-D\) cannot be a constant"),
    ("return np.sum(Z)", r"global array `Z` \(complex128, 1-D\) cannot be a constant"),
    ("return np.sum(BIG)", "has 70000 elements, more than the 65536"),
])
def test_refusals_are_located(tmp_path, body, message):
    src = ("import numpy as np\nC = np.ones(2)\nT4 = np.ones((1, 1, 1, 1))\n"
           "Z = np.ones(2, complex)\nBIG = np.ones(70000)\n\n\ndef f(x):\n    " + body + "\n")
    f = load_module(tmp_path / "refused.py", src).f
    with pytest.raises(pyad.PyadError, match=message) as info:
        pyad.jit_grad(f)(1.0)
    assert info.value.line in (9, 10), info.value
