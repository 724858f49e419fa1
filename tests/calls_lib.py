"""Helpers imported by tests/api/test_calls.py: functions of "another module" of the user's."""
import math

import numpy as np


def sq(x):
    return x * x


def hypot2(a, b=1.0):
    """Keyword argument and numeric default."""
    return math.sqrt(sq(a) + sq(b))


def clipped(x, lo, hi):
    """Early returns from branches."""
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def weighted_sum(w, x):
    """A loop over arrays."""
    s = 0.0
    for i in range(len(x)):
        s += w[i] * x[i]
    return s


def fill_squares(out, x):
    """Writes into an array the caller passes (Python semantics: the caller sees them)."""
    for i in range(len(x)):
        out[i] = x[i] * x[i]
    return len(x)


def moments(x):
    """A tuple of a float and an array."""
    m = np.mean(x)
    return m, (x - m) ** 2


def bad_index(x):
    return x[len(x)]
