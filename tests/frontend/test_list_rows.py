"""Rows of a list of run-time length are read as copies (pyad/frontend/lists.py, `item`): a
write into such a row would change the list in CPython and not in compiled code, so every
spelling of it is refused at the write, naming the line the row was read at (it once
compiled and returned the list unchanged: 3.0 where CPython gives 150.0). Reading rows, and
writing into rows of a list of fixed length, still compile."""
import numpy as np
import pytest

import pyad
from ..gradients import check_against_python


def _grown(x, n):
    rows = []
    for k in range(n):
        rows.append(x * (k + 1.0))
    return rows


def element_store(x, n):
    rows = _grown(x, n)
    rows[1][0] = 100.0
    return rows[1][0] + rows[1][1]


def store_through_a_name(x, n):
    rows = _grown(x, n)
    r = rows[1]
    r[1] = 50.0
    return np.sum(rows[1])


def in_place_add(x, n):
    rows = _grown(x, n)
    r = rows[1]
    r += 1.0
    return np.sum(rows[1])


def in_place_sort(x, n):
    rows = _grown(x, n)
    r = rows[1]
    r.sort()
    return np.sum(rows[1] * x)


def write_in_a_helper(x, n):
    rows = _grown(x, n)
    _zero_first(rows[1])
    return np.sum(rows[1])


def _zero_first(a):
    a[0] = 0.0
    return 0.0


def loop_over_rows(x, n):
    rows = _grown(x, n)
    for r in rows:
        r[0] = 1.0
    return np.sum(rows[0])


@pytest.mark.parametrize("fn", [element_store, store_through_a_name, in_place_add,
                                in_place_sort, write_in_a_helper, loop_over_rows])
def test_writes_into_rows_of_a_run_time_list_are_refused(fn):
    x = np.array([3.0, 1.0, 2.0])
    with pytest.raises(pyad.PyadTypeError, match="cannot write into a row of a list") as info:
        pyad.jit_grad(fn)(x, 3)
    assert "the row read at line" in str(info.value)
    assert info.value.line is not None


def reads_rows(x, n):
    rows = _grown(x, n)
    t = 0.0
    for r in rows:
        t += np.sum(r * r) * r[0]
    c = rows[1].copy()
    c[0] = 5.0             # a copy the user made: theirs to write
    return t + np.sum(c * x) + rows[-1][2]


def fixed_list_rows(x):
    rows = [x * 1.0, x * 2.0]
    rows[1][0] = 100.0     # a list of fixed length holds the arrays themselves
    r = rows[0]
    r[1] = 50.0
    return rows[1][0] + rows[0][1] + np.sum(rows[1] * x)


def test_reading_rows_and_fixed_lists_still_compile():
    x = np.array([3.0, 1.0, 2.0])
    check_against_python(reads_rows, x, 3)
    check_against_python(fixed_list_rows, x)
