"""`slice(...)` objects as indices: `x[slice(1, 4)]`, `s = slice(None, None, 2); x[s]`,
tuples of them, in reads, writes and `+=`, in loops (frontend/functions.py `slice_value`,
arrays.py `_slice_item`): the same view as `x[1:4]`."""
import numpy as np
import pytest

import pyad
from tests.gradients import check_against_python


def written_inline(x):
    return np.sum(x[slice(1, 4)]) * x[0]


def bound_to_a_name(x):
    s = slice(None, None, 2)
    r = slice(-1, None, -2)
    y = x * 1.0
    y[r] = 0.5 * x[0]
    return np.sum(x[s] * y[r]) + np.sum(y * x)


def in_a_tuple(x):
    A = np.outer(x, x)
    idx = (slice(1, 3), 0)
    sl = slice(1, None)
    return np.sum(A[idx]) + np.sum(A[sl, sl]) + np.sum(A[:, slice(2)])


def halves(x):
    n = len(x) // 2
    parts = (slice(0, n), slice(n, None))
    return np.sum(x[parts[0]] * x[parts[1]])


def in_loops(x):
    y = x * 1.0
    s = 0.0
    for i in range(3):
        w = slice(i, i + 3)
        s += np.sum(y[w]) * np.sum(x[slice(i + 1, None, 2)])
        y[slice(i, None, 2)] *= 1.5
    return s + np.sum(y * x)


@pytest.mark.parametrize("fn", [written_inline, bound_to_a_name, in_a_tuple, halves,
                                in_loops])
def test_a_slice_object_indexes_as_its_slice(fn):
    check_against_python(fn, np.linspace(0.5, 1.7, 6))


def float_bound(x):
    return np.sum(x[slice(0.5, 3)])


def no_arguments(x):
    return np.sum(x[slice()])


@pytest.mark.parametrize("fn, message", [
    (float_bound, "slice indices must be integers or None"),
    (no_arguments, "slice\\(\\) takes 1 to 3 positional arguments"),
])
def test_bad_slices_are_refused_where_written(fn, message):
    with pytest.raises(pyad.PyadTypeError, match=message) as info:
        pyad.jit_grad(fn)(np.ones(4))
    assert "test_slice_objects.py" in str(info.value)


def none_on_one_path(x):
    if x[0] > 0.0:
        sl = slice(1, None)
    else:
        sl = slice(0, 2)
    return np.sum(x[sl])


def bounds_on_both_paths(x):
    if x[0] > 0.0:
        sl = slice(1, len(x))
    else:
        sl = slice(0, 2)
    return np.sum(x[sl] ** 2)


def test_a_slice_merged_from_two_paths():
    with pytest.raises(pyad.PyadTypeError, match="bounds are None on one path"):
        pyad.jit_grad(none_on_one_path)(np.ones(4))
    check_against_python(bounds_on_both_paths, np.linspace(0.5, 1.7, 6))
    check_against_python(bounds_on_both_paths, np.linspace(-0.5, 1.7, 6))
