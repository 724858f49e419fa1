"""Array expressions on slices of one read-only array (`x[1:] - x[:-1]`, stencils) load the
array itself at offsets of the loop counter (pyad/ir/slice_loads.py), so that the reverse
sweep carries the partial sums of an element to the next trip (pyad/ad/window.py) instead of
giving each slice a temporary shadow. Each spelling is checked against CPython, central
differences with the dot-product test and the IR interpreter, at lengths where the slices
are empty too; written arrays keep their loads through the view."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python

WINDOW = "partial sums for %x carried to the next trip"


def laplacian(x):
    return np.sum((x[2:] - 2.0 * x[1:-1] + x[:-2]) ** 2)


def total_variation(x):
    return np.sum(np.sqrt((x[1:] - x[:-1]) ** 2 + 1e-6))


def rosenbrock(x):
    head = x[:-1]
    return np.sum(100.0 * (x[1:] - head * head) ** 2 + (1.0 - head) ** 2)


def slice_of_a_slice(x):
    y = x[1:]
    return np.sum(y[1:] * y[:-1] + x[:-2])


def inner_stop(x):
    """Slices that end before the array does, one starting past a short array's end."""
    return np.sum(x[1:4] * x[1:4] - x[0:3][:len(x[1:4])]) + np.sum(x[5:] * x[5:])


def rows_of_a_matrix(x):
    m = x.reshape(3, -1)
    return np.sum((m[1:] - m[:-1]) ** 2 * m[1:])


def written_array(x):
    """`y` is written: its loads stay through the view the stores use."""
    y = x * 1.0
    y[1:] += y[:-1]
    return np.sum(y[1:] * y[:-1])


CASES = [laplacian, total_variation, rosenbrock, slice_of_a_slice, inner_stop,
         rows_of_a_matrix, written_array]


@pytest.mark.parametrize("n", [9, 3, 2, 1, 0])
@pytest.mark.parametrize("fn", CASES, ids=lambda fn: fn.__name__)
def test_values_and_gradients(fn, n):
    if fn is rows_of_a_matrix and n % 3:
        n = 3 * n
    check_against_python(fn, np.cos(np.arange(n) * 0.7) + 0.1 * np.arange(n))


@pytest.mark.parametrize("fn", [laplacian, total_variation, rosenbrock, slice_of_a_slice],
                         ids=lambda fn: fn.__name__)
def test_the_slices_load_the_array_and_the_reverse_carries_a_window(fn):
    x = np.linspace(-1.0, 1.0, 40)
    f = pyad.jit_grad(fn)
    ir = f.ir(x)
    loads = [line for line in ir.splitlines() if " = load " in line]
    assert loads and all(" = load %x, " in line for line in loads), ir
    assert WINDOW in f.grad_ir(x)


def test_a_written_array_is_read_through_its_view():
    x = np.linspace(-1.0, 1.0, 40)
    ir = pyad.jit_grad(written_array).ir(x)
    assert any(" = load %x, " not in line for line in ir.splitlines() if " = load " in line)
