"""A lambda bound at module level is a function like a def (was refused: "pyad compiles
plain `def` functions", found by a probe), and `pyad.jit_grad(lambda ...)` compiles it.
Values against CPython, gradients against central differences and the interpreter."""
import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python
from . import module_lambdas as m


def test_module_level_lambdas_are_called_like_defs():
    check_against_python(m.uses_lambdas, np.array([0.5, -1.2, 0.3]))


def test_a_lambda_given_to_jit_grad():
    f = pyad.jit_grad(lambda x, y: x * math.sin(y) + y * y, argnums="all")
    assert f(1.5, 0.3) == 1.5 * math.sin(0.3) + 0.09
    gx, gy = f.grad(1.5, 0.3)
    assert gx == pytest.approx(math.sin(0.3), rel=1e-15)
    assert gy == pytest.approx(1.5 * math.cos(0.3) + 0.6, rel=1e-15)
    pyad.check_grad(f, 1.5, 0.3)


def test_two_lambdas_on_one_line_are_refused_where_written():
    with pytest.raises(pyad.PyadError, match="several lambdas") as info:
        pyad.jit_grad(m.uses_one_of_a_pair)(np.array([0.5, 1.0]))
    assert "module_lambdas.py:17" in str(info.value)   # the call
    assert "line 9 of" in str(info.value)               # the line that makes them
