"""What a probe of 185 new functions written as people write them (2026-11-29) found in the
Python surface: a function made in a comprehension read the comprehension's variable from
the enclosing body when called after it (`k = 10.0; fs = [lambda t: t * k for k in (1.0,
2.0)]`: pyad used k = 10.0, CPython the comprehension's last k, 2.0: a silently wrong value)
or refused it as not defined. It now reads the value the comprehension left (CPython's
closure cell). Each value against CPython, each gradient against central differences and
the interpreter (check_against_python)."""
from __future__ import annotations

import numpy as np
import pytest

from ..gradients import check_against_python


def shadowed_by_an_outer_name(x):
    k = 10.0
    fs = [lambda t: t * k for k in (1.0, 2.0)]
    return fs[0](x) + k


def late_binding(x):
    fs = [lambda t: t * k for k in (0.0, 1.0, 2.0)]
    s = 0.0
    for f in fs:
        s += f(x)
    return s


def called_inside(x):
    """Called while the comprehension runs: the current k, as in CPython."""
    return sum([(lambda t: t * k)(x) for k in (1.0, 2.0, 3.0)])


def two_loops(x):
    fs = [lambda t: t * j + i for i in (3.0, 4.0) for j in (1.0, 2.0)]
    return fs[0](x) + fs[3](x)


def default_binds_now(x):
    k = 10.0
    fs = [lambda t, k=k: t * k for k in (1.0, 2.0)]
    return fs[0](x) + k


def over_an_array(x):
    fs = [lambda t: t * v for v in (x[0], x[1])]
    return fs[0](x[2])


@pytest.mark.parametrize("fn", [shadowed_by_an_outer_name, late_binding, called_inside, two_loops,
                                default_binds_now], ids=lambda fn: fn.__name__)
def test_functions_made_in_a_comprehension_read_its_last_values(fn):
    check_against_python(fn, 0.7)


def test_a_closure_over_array_elements():
    check_against_python(over_an_array, np.array([0.5, -1.5, 2.0]))
