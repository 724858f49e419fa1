"""An array added to a list whose length is known at run time only (appended in a loop or in
one branch of an `if`) is copied into the list's buffer (pyad/frontend/lists.py,
`appended`); CPython's list holds the array itself. A later write into the array (`acc +=
x`, `acc[i] = v`, through a view or another name) would change the list in CPython and not
in pyad: it compiled and returned the values of the moment of the append (for
`for i in range(3): acc += x * i; hist.append(acc)`, 0.0 where CPython gives 27.156). Such a
write is now refused, naming the line of the append; appends of arrays that are not written
afterwards still compile and agree with CPython."""
import numpy as np
import pytest

import pyad
from tests.gradients import check_against_python

X = np.linspace(0.3, 1.9, 6)


def accumulated_then_appended(x):
    acc = np.zeros(6)
    hist = []
    for i in range(3):
        acc += x * i
        hist.append(acc)
    return np.sum(hist[0] * x)


def appended_then_accumulated(x):
    acc = x * 1.0
    hist = []
    for i in range(2):
        hist.append(acc)
        acc += x
    return np.sum(hist[0] * x)


def appended_then_element_written(x):
    acc = x * 1.0
    hist = []
    for i in range(2):
        hist.append(acc)
        acc[i] = 5.0
    return np.sum(hist[0] * x)


def appended_in_a_branch(x):
    acc = x * 1.0
    hist = []
    if x[0] > 0:
        hist.append(acc)
    acc *= 2.0
    return np.sum(hist[0] * x)


def view_appended_then_base_written(x):
    a = x * 1.0
    hist = []
    for i in range(3):
        hist.append(a[i:i + 2])
    a += 1.0
    return np.sum(hist[1] * x[:2])


def written_through_another_name(x):
    acc = x * 1.0
    other = acc
    hist = []
    for i in range(2):
        hist.append(acc)
        other[0] = x[1] * i
    return np.sum(hist[0] * x)


@pytest.mark.parametrize("fn", [accumulated_then_appended, appended_then_accumulated,
                                appended_then_element_written, appended_in_a_branch,
                                view_appended_then_base_written, written_through_another_name])
def test_a_write_into_an_array_a_run_time_list_holds_is_refused(fn):
    with pytest.raises(pyad.PyadTypeError, match="would be seen through the list in CPython"
                       ) as info:
        pyad.jit_grad(fn)(X.copy())
    assert "stores a copy of `a`" in str(info.value) and ".copy()" in str(info.value)
    assert info.value.line is not None


def copies_appended(x):
    acc = np.zeros(6)
    hist = []
    for i in range(3):
        acc += x * i
        hist.append(acc.copy())
    return np.sum(hist[1] * x) + np.sum(hist[2])


def new_array_each_trip(x):
    acc = np.zeros(6)
    hist = []
    for i in range(3):
        acc = acc + x * i
        hist.append(acc)
    return np.sum(hist[1] * x) + np.sum(hist[2])


def row_filled_then_appended(x):
    rows = []
    for i in range(3):
        row = np.zeros(2)
        row[0] = x[i]
        row[1] = x[i + 1] * x[i]
        rows.append(row)
    return np.sum(rows[1] * rows[2])


def written_before_the_append(x):
    acc = x * 1.0
    hist = []
    if x[1] > 0:
        hist.append(x * 2.0)
    acc += x
    hist.append(acc)
    return np.sum(hist[-1] * x)


def appended_in_straight_line_code(x):
    acc = x * 1.0
    hist = [x * 2.0]
    hist.append(acc)
    acc += x                  # a list of known length holds `acc` itself
    return np.sum(hist[1] * x)


@pytest.mark.parametrize("fn", [copies_appended, new_array_each_trip, row_filled_then_appended,
                                written_before_the_append, appended_in_straight_line_code])
def test_appends_without_a_later_write_agree_with_python(fn):
    check_against_python(fn, X.copy())
