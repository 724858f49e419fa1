"""NumPy functions that return views where pyad makes a new array (`reshape`, `ravel`,
`np.diagonal`, `np.flip`, `np.broadcast_to`, a 3-D `np.transpose`): a program that writes into
one and then reads the other would see NumPy's shared memory, so pyad refuses the write
(pyad/ir/sharing.py); every other use compiles and agrees with CPython."""
import numpy as np
import pytest

import pyad
from tests.gradients import check_against_python


def written_copy_read_source(x):
    a = x * 2.0
    r = a.reshape(2, 3)
    r[0, 0] = 100.0
    return np.sum(a * x)


def written_source_read_copy(x):
    a = x * 2.0
    r = a.reshape(2, 3)
    a[0] = 100.0
    return np.sum(r[0] * x[:3])


def ravel_then_write(x):
    a = x * 2.0
    r = np.ravel(a)
    a[1] = 100.0
    return r[1] * x[0]


def ravel_of_a_copy_written(x):
    a = (x * 2.0).reshape(2, 3)
    r = a.ravel()
    r[2] = 7.0
    return np.sum(a) * x[0]


def written_in_a_loop(x):
    a = x * 2.0
    for t in range(3):      # NumPy: a[0] grows by one each trip through the view
        r = a.reshape(-1)
        r[0] += 1.0
    return np.sum(a * x)


def diagonal_then_write(x):
    A = np.outer(x, x)
    d = np.diagonal(A)
    A[0, 0] = 3.0
    return np.sum(d * x)


def flip_returned(x):
    a = x * 2.0
    b = np.flip(a)
    a[0] = 1.0
    return b


def row_of_a_reshape(x):
    a = x * 2.0
    r = a.reshape(2, 3)[1]
    a[4] = 1.0
    return np.sum(r * x[:3])


def broadcast_then_write(x):
    a = x[:3] * 2.0
    b = np.broadcast_to(a, (2, 3))
    a[0] = 1.0
    return np.sum(b)


def transposed_3d_then_write(x):
    a = (x * 2.0).reshape(1, 2, 3) + 0.0
    t = np.transpose(a, (2, 0, 1))
    a[0, 0, 0] = 5.0
    return np.sum(t * t)


@pytest.mark.parametrize("fn", [
    written_copy_read_source, written_source_read_copy, ravel_then_write,
    ravel_of_a_copy_written, written_in_a_loop, diagonal_then_write, flip_returned,
    row_of_a_reshape, broadcast_then_write, transposed_3d_then_write])
def test_a_write_numpy_would_show_through_a_view_is_refused(fn):
    x = np.arange(1.0, 7.0)
    with pytest.raises(pyad.PyadTypeError, match="would be seen through a view in NumPy") \
            as info:
        pyad.jit_grad(fn)(x)
    assert ".copy()" in str(info.value)
    assert "test_view_copies.py" in str(info.value)


def fresh_source(x):
    M = np.arange(6.0).reshape(2, 3)
    M[0, 0] = 1.0
    return np.sum(M * x.reshape(2, 3))


def zeros_reshaped(x):
    M = np.zeros(9).reshape(3, 3)
    M[1, 1] = x[0]
    return np.sum(M) * x[1]


def explicit_copy(x):
    a = x * 2.0
    r = a.reshape(2, 3).copy()
    a[0] = 5.0
    r[1, 1] = 0.5
    return r.sum() + np.sum(a * x)


def new_arrays_each_trip(x):
    s = 0.0
    for t in range(3):
        a = x * t
        r = a.reshape(2, 3)
        s += np.sum(r * r)
        a[0] = 1.0
        s += a[0] * x[0]
    return s


def written_before(x):
    a = np.zeros(6)
    for i in range(6):
        a[i] = x[i] ** 2
    X = a.reshape(2, 3)
    return np.sum(X[0] * X[1])


def read_before_the_write(x):
    a = x * 2.0
    r = a.reshape(2, 3)
    s = r.sum() * r[0, 0]
    a[0] = 100.0
    return s + np.sum(a * x)


def diagonal_used_up(x):
    A = np.outer(x, x)
    d = np.diag(A) * 1.0
    A[0, 0] = 3.0
    return np.sum(d) + np.sum(A)


def flatten_is_a_copy(x):
    a = x * 2.0
    f = a.reshape(2, 3).flatten()
    f[0] = 4.0
    a[1] = 3.0
    return np.sum(f * x) + np.sum(a)


@pytest.mark.parametrize("fn", [
    fresh_source, zeros_reshaped, explicit_copy, new_arrays_each_trip, written_before,
    read_before_the_write, diagonal_used_up, flatten_is_a_copy])
def test_uses_numpy_agrees_with_compile(fn):
    check_against_python(fn, np.linspace(0.5, 1.7, 6))


def stepped_state_viewed_each_trip(x):
    u = x * 1.0
    s = 0.0
    for t in range(3):
        u[1:] = u[1:] + 0.1 * u[:-1]      # the state changes first
        grid = u.reshape(2, 3)           # then a view of it is read in the same trip
        s += np.sum(grid[0] * grid[1])
    return s


def view_carried_to_the_next_trip(x):
    u = x * 1.0
    grid = u.reshape(2, 3)
    s = 0.0
    for t in range(3):
        u[t] = s + 1.0
        s += np.sum(grid[0])            # NumPy: last trip's view sees this write
        grid = u.reshape(2, 3)
    return s


def test_a_view_made_after_the_write_in_each_trip_compiles():
    check_against_python(stepped_state_viewed_each_trip, np.linspace(0.5, 1.7, 6))


def test_a_view_read_in_the_next_trip_is_refused():
    with pytest.raises(pyad.PyadTypeError, match="would be seen through a view in NumPy"):
        pyad.jit_grad(view_carried_to_the_next_trip)(np.linspace(0.5, 1.7, 6))
