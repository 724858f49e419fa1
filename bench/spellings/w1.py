"""W1 Rosenbrock, spelled differently from bench.w1_rosenbrock.loop."""
import numpy as np


def scratch_then_sum(x):
    """The residuals filled into scratch vectors first, then summed in a second loop."""
    n = len(x)
    t = np.zeros(n - 1)
    u = np.zeros(n - 1)
    for i in range(n - 1):
        t[i] = x[i + 1] - x[i] * x[i]
        u[i] = 1.0 - x[i]
    s = 0.0
    for i in range(n - 1):
        s += 100.0 * t[i] * t[i] + u[i] * u[i]
    return s


def _term(a, b):
    t = b - a * a
    return 100.0 * t * t + (1.0 - a) * (1.0 - a)


def helper_backwards(x):
    """A helper function for the term, the loop run from the end."""
    s = 0.0
    for i in range(len(x) - 2, -1, -1):
        s += _term(x[i], x[i + 1])
    return s


def while_carried(x):
    """A while loop carrying the previous element instead of reading it again."""
    prev = x[0]
    s = 0.0
    i = 1
    while i < len(x):
        cur = x[i]
        t = cur - prev ** 2
        s = s + 100.0 * t ** 2 + (1.0 - prev) ** 2
        prev = cur
        i += 1
    return s


SPELLINGS = (scratch_then_sum, helper_backwards, while_carried)
