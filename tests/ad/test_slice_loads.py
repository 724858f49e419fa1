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
    """The loop writes `y`: its loads stay through the views; the sum after it reads `y`."""
    y = x * 1.0
    for _ in range(2):
        y[1:] += 0.5 * y[:-1]
    return np.sum(y[1:] * y[:-1])


def computed_array(x):
    """`t` is filled by one loop and read through slices by the next."""
    t = np.tanh(x)
    return np.sum((t[1:] - t[:-1]) ** 2)


CASES = [laplacian, total_variation, rosenbrock, slice_of_a_slice, inner_stop,
         rows_of_a_matrix, written_array, computed_array]


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


def _loads_by_line(ir: str) -> dict[int, list[str]]:
    """The arrays the IR's loads read ("slice" for one made by a slice), by source line."""
    slices = {line.split(":")[0].strip() for line in ir.splitlines() if " = slice " in line}
    out: dict[int, list[str]] = {}
    for line in ir.splitlines():
        if " = load " in line:
            array = line.split(" = load ")[1].split(",")[0]
            line_no = int(line.rsplit("!", 1)[1].split(":")[0])
            out.setdefault(line_no, []).append("slice" if array in slices else array)
    return out


def test_a_loop_that_writes_an_array_reads_it_through_its_views():
    x = np.linspace(-1.0, 1.0, 40)
    loads = _loads_by_line(pyad.jit_grad(written_array).ir(x))
    first = written_array.__code__.co_firstlineno
    assert "slice" in loads[first + 4], loads     # y[:-1] inside the loop writing y
    assert loads[first + 5] and "slice" not in loads[first + 5], loads   # the sum after it


def test_an_array_a_loop_computed_is_read_through_itself():
    x = np.linspace(-1.0, 1.0, 40)
    f = pyad.jit_grad(computed_array)
    ir = f.ir(x)
    assert ir.count(" = tanh ") == 1, ir      # stored once, though read through two slices
    loads = _loads_by_line(ir)[computed_array.__code__.co_firstlineno + 3]  # the return
    t = [a for a in loads if a != "%x"]   # the fill loads %x, the sum loads t twice
    assert loads.count("%x") == 1 and len(t) == 2 and t[0] == t[1] != "slice", loads
