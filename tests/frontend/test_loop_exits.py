"""A name first bound inside a loop, read after it, when every way out of the loop binds it:
the search idiom (`for ...: if x[i] > t: found = i; break` / `else: found = -1`), and
`while True:` left by a `break` that binds it. These were refused as "not assigned on every
path" (a probe's bug4). Each way out counts: every `break` must bind the name earlier in
the same iteration, and the end of the loop must bind it too (its `else:` clause, or the
last iteration of a loop that certainly runs). Values against CPython, gradients against
central differences and the interpreter; the refusals where CPython would raise
UnboundLocalError name the path."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def search_with_else(x, t):
    for i in range(len(x)):
        if x[i] > t:
            found = i
            break
    else:
        found = -1
    return x[found] * 3.0 if found >= 0 else t * t


def value_bound_at_break(x):
    for i in range(3):
        if x[i] > 2.0:
            best = x[i] * x[0]
            break
    else:
        best = np.sum(x)
    return best


def while_true_search(x):
    i = 0
    while True:
        if x[i] > 2.0:
            t = x[i] * 2.0
            break
        i += 1
    return t + i


def nested_branches(x):
    k = 0
    while k < len(x):
        if x[k] > 0.0:
            if x[k] > 1.0:
                a, b = x[k], k
                break
            else:
                a, b = -x[k], k + 10
                break
        k += 1
    else:
        a, b = 0.5, -1
    return a * b


def else_returns(x):
    for i in range(len(x)):
        v = x[i] * 2.0
        if v > 1.0:
            break
    else:
        return -1.0
    return v * v


def break_in_an_inner_loops_else(x):
    for i in range(len(x)):
        for j in range(i):
            if x[j] > x[i]:
                break
        else:
            hit = x[i] * i
            break
    else:
        hit = 0.0
    return hit


@pytest.mark.parametrize("fn,args", [
    (search_with_else, (np.array([0.5, -1.3, 2.2, 3.0]), 2.0)),
    (search_with_else, (np.array([0.5, -1.3, 1.2]), 2.0)),   # not found: the else
    (search_with_else, (np.zeros(0), 2.0)),                   # no trip: the else
    (value_bound_at_break, (np.array([0.5, 2.5, 3.0]),)),
    (value_bound_at_break, (np.array([0.5, 1.5, 1.0]),)),
    (while_true_search, (np.array([0.5, -1.3, 2.2]),)),
    (nested_branches, (np.array([-0.5, 0.7, 2.0]),)),
    (nested_branches, (np.array([-0.5, 1.7, 2.0]),)),
    (nested_branches, (np.array([-0.5, -0.7]),)),
    (else_returns, (np.array([0.2, 0.7, 0.1]),)),
    (else_returns, (np.array([0.2, 0.3]),)),
    (break_in_an_inner_loops_else, (np.array([0.5, 0.2, 0.9]),)),
    (break_in_an_inner_loops_else, (np.array([0.0, 0.4, 0.9]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_bound_on_every_way_out(fn, args):
    check_against_python(fn, *args)


def break_before_assigning(x):
    for i in range(3):
        if x[i] > 5.0:
            break
        if x[i] > 2.0:
            t = x[i]
            break
    else:
        t = 0.0
    return t


def else_does_not_assign(x):
    for i in range(3):
        if x[i] > 2.0:
            t = x[i]
            break
    else:
        s = 0.0
    return t + s


def read_before_the_break_binds_it(x):
    i = 0
    while True:
        if x[i] > 2.0:
            t = x[i]
            break
        i += 1
        x[i] = t
    return t


def no_else_and_may_not_run(x):
    for i in range(len(x)):
        if x[i] > 2.0:
            t = x[i]
            break
    return t


@pytest.mark.parametrize("fn,x,needle", [
    (break_before_assigning, [6.0, 1.0, 3.0], "ends at a `break` before assigning it"),
    (else_does_not_assign, [6.0, 1.0, 3.0], "its `else:` does not assign it"),
    (read_before_the_break_binds_it, [1.0, 1.0, 3.0], "`t` is not assigned on every path"),
    (no_else_and_may_not_run, [1.0, 1.0], "runs zero times"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_way_out_that_leaves_it_unbound_is_refused(fn, x, needle):
    with pytest.raises(UnboundLocalError):
        fn(np.array(x))   # CPython raises on this input
    with pytest.raises(pyad.PyadError, match=needle) as info:
        pyad.jit_grad(fn)(np.array(x))
    assert "test_loop_exits.py" in str(info.value)
