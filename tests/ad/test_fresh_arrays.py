"""Loads the reverse sweep may re-read when a loop makes a new array each trip
(memory.final_loads): a store into the array a trip makes cannot change the one an earlier
trip made, which the trip reads through its carried value. The spellings below write the
new array after reading it in the same trip, through a branch result or an inner loop's
carried value: there a re-read would see the later value, and the gradient would be
wrong. Each is checked against CPython's value, central differences with the dot-product
test and the IR interpreter."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def euler_new_array(u, w, steps):
    """The new-array time stepper: u is re-read in the reverse, only sin(.) is taped."""
    for _ in range(steps):
        u = u + 0.1 * np.sin(w * u)
    return np.sum(u * u)


def loop_new_array(u, w, steps):
    """The same with element loops and a helper."""
    n = len(u)
    for _ in range(steps):
        new = np.zeros(n)
        for i in range(n):
            new[i] = u[i] + 0.1 * math.sin(w[i] * u[i])
        u = new
    return np.sum(u * u)


def rewrite_after_read(u, w, steps):
    """The trip reads its new array, then writes it again: not re-readable."""
    n = len(u)
    for _ in range(steps):
        new = np.zeros(n)
        for i in range(n):
            new[i] = u[i] * w[i]
        for i in range(n):
            a = new[i]
            new[i] = math.sin(a) * a
        u = new
    return np.sum(u)


def through_branch(u, w, steps):
    """A branch result may be this trip's array or last trip's."""
    n = len(u)
    for t in range(steps):
        new = np.zeros(n)
        for i in range(n):
            new[i] = u[i] * w[i] + 0.5
        src = new if t % 2 == 0 else u
        s = 0.0
        for i in range(n):
            s += math.cos(src[i]) * src[i]
        for i in range(n):
            new[i] = new[i] + s
        u = new
    return np.sum(u * u)


def through_inner_loop(u, w, steps):
    """An inner loop carries this trip's array and writes it after reading it."""
    n = len(u)
    for _ in range(steps):
        new = np.zeros(n) + u
        cur = new
        for i in range(n - 1):
            v = cur[i + 1]
            cur[i] = math.sin(v) * w[i] + cur[i]
            cur = cur
        u = cur
    return np.sum(u * u)


FUNCS = [euler_new_array, loop_new_array, rewrite_after_read, through_branch,
         through_inner_loop]


@pytest.mark.parametrize("fn", FUNCS, ids=lambda f: f.__name__)
def test_new_array_per_trip(fn):
    rng = np.random.default_rng(3)
    check_against_python(fn, rng.uniform(-1.0, 1.0, 5), rng.uniform(-1.0, 1.0, 5), 3)


@pytest.mark.parametrize("fn", [euler_new_array, loop_new_array], ids=lambda f: f.__name__)
def test_last_steps_array_is_re_read(fn):
    """The reverse re-reads u and w and recomputes sin's partial from them: per step the
    tape holds the three array references the step carries (u, its adjoint, the new
    array's adjoint), whatever the number of elements."""
    f = pyad.jit_grad(fn, argnums=(0, 1))
    rng = np.random.default_rng(4)
    for n in (4, 8, 16):
        assert f.tape_bytes(rng.uniform(size=n), rng.uniform(size=n), 5) == 5 * 3 * 24
