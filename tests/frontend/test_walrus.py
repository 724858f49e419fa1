"""Assignment expressions (`:=`), found wrong by a probe: in a `while` condition the name was
bound in the condition's block only, so the body and the code after the loop saw the value
from before the loop (`while (i := i + 1) < 4: pass` returned 0, with a zero gradient; with a
body the loop never ended), and a name bound after `and`/`or` or in a branch of a conditional
expression was bound whether that part ran or not (`w = 5.0; if a > 0 and (w := b) > 100:
...` returned b for a < 0). A `while` whose condition assigns is now the loop `while True:
if not test: break` then the body; an assignment in a part of an expression that may not run
is refused where it is written. Values against CPython, gradients against central
differences and the interpreter."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def read_in_the_body(x):
    i = 0
    s = 0.0
    while (v := x[i]) < 1.0:
        s += v * v
        i += 1
    return s + v


def counter_in_the_test(x):
    i = 0
    n = 0
    while (i := i + 1) < 4:
        n += 1
    return i * x + n


def with_else(x):
    i = 0
    s = 0.0
    while (t := x[i % 3] * i) < 2.5:
        s += t
        i += 1
    else:
        s -= t
    return s * t


def continue_evaluates_the_test_again(x):
    k = 0
    s = 0.0
    while (k := k + 1) < 6:
        if k % 2:
            continue
        s += x[k % 3] ** 2
    return s + k


@pytest.mark.parametrize("fn,args", [
    (read_in_the_body, (np.array([0.5, -1.0, 2.0]),)),
    (counter_in_the_test, (1.5,)),
    (with_else, (np.array([0.5, 1.2, 0.7]),)),
    (continue_evaluates_the_test_again, (np.array([0.3, -0.4, 0.9]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_while_conditions_that_assign(fn, args):
    check_against_python(fn, *args)


def after_and(a, b):
    w = 5.0
    if a > 0 and (w := b) > 100:
        w = w + 1.0
    return w


def in_a_conditional_expression(a, b):
    u = 1.0
    t = (u := a * 2.0) if a > 0 else b
    return t + u


def in_a_chained_comparison(a, b):
    if 0.0 < a < (c := b * 2.0):
        return c
    return a


def else_breaks_an_outer_loop(x):
    s = 0.0
    for j in range(3):
        i = 0
        while (v := x[i]) < 1.0:
            i += 1
        else:
            break
        s += v
    return s


@pytest.mark.parametrize("fn,needle", [
    (after_and, "may not run"),
    (in_a_conditional_expression, "may not run"),
    (in_a_chained_comparison, "may not run"),
    (else_breaks_an_outer_loop, "cannot `break` or `continue`"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_refused_where_written(fn, needle):
    with pytest.raises(pyad.PyadError, match=needle) as info:
        f = pyad.jit_grad(fn)
        f(np.array([0.5, -1.0, 2.0])) if fn is else_breaks_an_outer_loop else f(-1.0, 3.0)
    assert "test_walrus.py" in str(info.value)


def first_operand(a, b):
    """The first operand of `and` always runs: an assignment there is fine."""
    if (w := a * 2.0) > 0 and b > 0:
        return w + b
    return w


def test_the_first_operand_may_assign():
    for args in ((1.0, 2.0), (1.0, -2.0), (-1.0, 2.0)):
        check_against_python(first_operand, *args)
