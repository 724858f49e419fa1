"""`l[i] += v` and `d[k] += v` on an array item update the array in place, as
ndarray.__iadd__ does in CPython: every other name for it (a view it is part of, another
variable holding it) sees the new values. (They rebound the item to a new array: a silent
difference from CPython.) A number item is rebound, as in Python."""
import numpy as np
import pytest

import pyad
from tests.gradients import check_against_python


def list_of_views(x):
    a = x * 1.0
    rows = [a[0:2], a[2:4]]
    rows[0] += 5.0
    rows[1] *= x[:2]
    return np.sum(a * x) + np.sum(rows[1])


def dict_entry_and_its_name(x):
    params = {"w": x * 1.0, "b": x[:2] * 1.0}
    w = params["w"]
    params["w"] -= 0.1 * x          # an optimiser step: w is the same array
    params["b"] += 1.0
    return np.sum(w * x) + np.sum(params["b"])


def dict_of_a_view(x):
    a = x * 1.0
    d = {"w": a}
    d["w"] /= 2.0
    return np.sum(a * x)


def list_in_a_loop(x):
    a = x * 1.0
    t = [a, 1.0]
    for i in range(3):
        t[0] += x * t[1]
        t[1] += 0.5               # a number: rebound
    return np.sum(a * x) + t[1]


def list_item_taken_before(x):
    items = [x * 2.0, x + 1.0]
    first = items[0]
    items[0] **= 2
    return np.sum(first * x)


@pytest.mark.parametrize("fn", [list_of_views, dict_entry_and_its_name, dict_of_a_view,
                                list_in_a_loop, list_item_taken_before])
def test_augmented_assignment_of_an_array_item_is_in_place(fn):
    check_against_python(fn, np.linspace(0.5, 1.7, 6))


def appended_rows(x):
    rows = []
    for i in range(2):
        rows.append(x[3 * i:3 * i + 3] * 1.0)
    rows[0] += 1.0
    return np.sum(rows[0] * x[:3])


def test_a_row_of_a_run_time_list_is_refused():
    with pytest.raises(pyad.PyadTypeError, match="cannot write into a row of a list"):
        pyad.jit_grad(appended_rows)(np.linspace(0.5, 1.7, 6))


def chained_assignment(x):
    a = b = x * 1.0                 # one array, two names
    a[0] = 5.0
    return np.sum(b * x)


def one_array_twice_in_a_list(x):
    v = x * 1.0
    pair = [v, v]
    pair[0][0] = 5.0
    return np.sum(pair[1] * x)


def one_array_twice_in_a_dict(x):
    v = x * 1.0
    d = {"a": v, "b": v}
    d["a"][1] = 5.0
    return np.sum(d["b"] * x)


def one_array_unpacked_twice(x):
    v = x * 1.0
    a, b = v, v
    a[0] = 5.0
    t = (v, v)
    t[1][2] = 4.0
    return np.sum(b * x) + np.sum(t[0])


@pytest.mark.parametrize("fn", [chained_assignment, one_array_twice_in_a_list,
                                one_array_twice_in_a_dict, one_array_unpacked_twice])
def test_one_array_under_several_names_is_one_array(fn):
    check_against_python(fn, np.linspace(0.5, 1.7, 6))


def nested_list_item(x):
    rows = [[x[0], x[1]], [x[2], x[3]]]
    rows[0][1] = 9.0 * x[4]
    rows[1][0] += x[5]
    return rows[0][1] * x[0] + rows[1][0]


def list_in_a_dict(x):
    d = {"a": [x[0], x[1]]}
    d["a"][0] = 3.0 * x[2]
    return d["a"][0] * x[1]


def list_in_a_tuple(x):
    t = ([x[0], x[1]], 2.0)
    t[0][1] = 4.0 * x[3]
    return t[0][1] * x[0]


def row_under_another_name(x):
    rows = [[x[0], x[1]], [x[2], x[3]]]
    r = rows[0]
    r[1] = 9.0 * x[2]
    r.append(x[5])
    return rows[0][1] * x[0] + rows[0][2]


def repeated_row(x):
    grid = [[0.0] * 3] * 2          # one list, twice: CPython's rows change together
    grid[0][0] = x[0]
    return grid[1][0] * x[1]


@pytest.mark.parametrize("fn", [nested_list_item, list_in_a_dict, list_in_a_tuple,
                                row_under_another_name, repeated_row])
def test_a_list_held_by_a_container_is_one_list(fn):
    check_against_python(fn, np.linspace(0.5, 1.7, 6))
