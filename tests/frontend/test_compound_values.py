"""Values the frontend keeps as tuples of their parts (pyad/frontend/context.py: a range as
its three bounds, a list of run-time length as (buffer, length), a slice as its bounds)
reached code that read them as plain tuples, and gave silently wrong values (a probe found
11 kinds): a shape given as a range (`np.zeros(range(2, 4))` was 2x4x1), the truth of a
range or list (always true), `pyad.stop_gradient` of one, `l.extend(range(3))` (appended the
bounds) and `l.extend(run-time list)` onto a list of fixed length (lost), item writes and
appends through a container in a loop (`d["b"][1] = ...`, `t[0].append(v)`: lost),
`g(*range(1, 4))`, `np.array_split(x, r)` with `r` a range, and a slice used as a sequence;
comparing an array with a list or range was an internal error. Each now gives CPython's
value (checked with finite differences and the interpreter for float results) or a located
error."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def shapes_from_ranges(x):
    t = np.unravel_index(5, range(2, 4))
    return x + np.zeros(range(2, 4)).size + np.sum(np.full(range(2, 4), x)) \
        + x * t[0] + t[1]


def reshape_by_range(x):
    return np.sum(x.reshape(range(-1, 3, 2))[0])


def truth_of_range(x, n):
    r = range(n)
    if r:
        return x
    return 2.0 * x


def truth_of_lists(x, n):
    made = [x * i for i in range(n)]
    grown = []
    for i in range(n):
        grown.append(x)
    a = x if made else 2.0 * x
    return a + (3.0 * x if not grown else x)


def stop_gradient_of_sequences(x, n):
    s = 0.0
    for i in pyad.stop_gradient(range(4)):
        s += x * i
    grown = [x * i for i in range(n)]
    return s + len(pyad.stop_gradient(grown)) + pyad.stop_gradient({"a": 2})["a"] * x


def stop_gradient_of_a_dict_and_none(x):
    d = pyad.stop_gradient({"a": x, "b": None})
    return d["a"] * x


def extend_by_range(x):
    l = [x]
    l.extend(range(3))
    m = [x]
    m += range(3)
    return x * len(l) + l[2] + m[3]


def extend_by_run_time_lists(x, n):
    a = [x]
    a += [x * i for i in range(n)]
    b = []
    b.extend([x * i for i in range(n)])
    c = [x]
    c.extend(np.arange(n) * x)
    return sum(a) + len(a) + sum(b) + len(b) + sum(c)


def writes_through_containers_in_a_loop(x, n):
    rows = [[x, 1.0], [2.0, x]]
    d = {"a": x, "b": [x, x]}
    for i in range(n):
        rows[1][0] = rows[1][0] + x * i
        d["b"][1] = d["b"][1] * 2.0
    return rows[1][0] + rows[0][1] + d["b"][1] + d["a"]


def starred_range(x):
    g = lambda a, b, c: a + 10 * b + 100 * c   # noqa: E731
    return x * g(*range(1, 4))


def split_at_a_range(x):
    r = range(2, 6, 2)
    parts = np.array_split(x, r)
    return np.sum(parts[1]) * 10 + len(parts)


def compare_with_lists(x):
    l = [2.0, 2.0, 2.0]
    return np.sum(np.where(x < l, x, 0.0)) + np.sum(np.arange(3) == range(3)) * x[0]


CASES = [(shapes_from_ranges, (1.5,)), (reshape_by_range, (np.arange(1.0, 7.0),)),
         (truth_of_range, (1.5, 0)), (truth_of_range, (1.5, 2)),
         (truth_of_lists, (1.5, 0)), (truth_of_lists, (1.5, 3)),
         (stop_gradient_of_sequences, (1.5, 3)), (extend_by_range, (1.5,)),
         (extend_by_run_time_lists, (1.5, 3)), (writes_through_containers_in_a_loop, (1.5, 3)),
         (starred_range, (1.5,)), (split_at_a_range, (np.arange(6.0),)),
         (compare_with_lists, (np.array([1.0, 3.0, 0.5]),))]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{c[0].__name__}-{k}"
                                                 for k, c in enumerate(CASES)])
def test_compound_values_keep_their_meaning(fn, args):
    check_against_python(fn, *args)


def test_stop_gradient_of_a_dict_holding_floats_and_none():
    f = pyad.jit_grad(stop_gradient_of_a_dict_and_none)
    assert f(1.5) == 2.25 and f.grad(1.5) == 1.5   # d["a"] is held constant


def append_through_a_dict_in_a_loop(x, n):
    d = {"l": [x]}
    for i in range(n):
        d["l"].append(x * i)
    return sum(d["l"]) + len(d["l"])


def append_through_a_tuple_in_a_loop(x, n):
    t = ([x], 2.0)
    for i in range(n):
        t[0].append(x * i)
    return sum(t[0]) + len(t[0])


def slice_as_a_sequence(x):
    s = slice(1, 3)
    return x * s[0] + len(s)


def iterate_a_slice(x):
    t = 0.0
    for v in slice(1, 5, 2):
        t += x * v
    return t


def unpack_a_slice(x):
    a, b, c = slice(1, 2)
    return x * b


def zeros_of_a_slice(x):
    return np.sum(np.zeros(slice(2, 3, 1)) + x)


def starred_run_time_list(x, n):
    l = [x * i for i in range(n)]
    g = lambda a, b: a + 10 * b   # noqa: E731
    return g(*l)


@pytest.mark.parametrize("fn, args, message", [
    (append_through_a_dict_in_a_loop, (1.5, 3), "build it in a variable"),
    (append_through_a_tuple_in_a_loop, (1.5, 3), "changes shape"),
    (slice_as_a_sequence, (1.5,), "a slice object is not a sequence"),
    (iterate_a_slice, (1.5,), "a slice object is not a sequence"),
    (unpack_a_slice, (1.5,), "a slice object is not a sequence"),
    (zeros_of_a_slice, (1.5,), "a shape is a tuple"),
    (starred_run_time_list, (1.5, 2), "a starred argument must be a tuple or a list of fixed"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_cannot_keep_its_meaning_is_refused_where_it_is_written(fn, args, message):
    """Where CPython's meaning cannot be kept (a list growing inside a container in a loop)
    or CPython raises TypeError (a slice is no sequence), a located error, never a value."""
    with pytest.raises(pyad.PyadError, match=message) as info:
        pyad.jit_grad(fn)(*args)
    assert "test_compound_values.py:" in str(info.value)
