r"""The model of the C example (main.c): plain Python that `pyad compile` turns into libsprings.

    cd examples/c
    pyad compile springs.py:energy,prefix_energy,stretch --sig "f64(f64[:], f64)" \
        --sig "f64[:](f64[:])" --sig "f64(f64[:], i64)" --name springs --vmap -o build

These are the arguments in springs.args, which CMakeLists.txt and tests/aot/ use.
"""
import math

import numpy as np


def energy(x, k):
    """A chain of springs of stiffness k and rest length 1 between points x[0..n), plus a
    small periodic potential on each point."""
    e = 0.0
    for i in range(len(x) - 1):
        d = x[i + 1] - x[i] - 1.0
        e += 0.5 * k * d * d
    for i in range(len(x)):
        e += 0.1 * math.cos(x[i])
    return e


def prefix_energy(x):
    """out[i] = x[0]**2 + ... + x[i]**2 (an array result: exported with a vjp)."""
    out = np.zeros(len(x))
    acc = 0.0
    for i in range(len(x)):
        acc += x[i] * x[i]
        out[i] = acc
    return out


def stretch(x, i):
    """The extension of spring i; an index past the end is an IndexError (status 3)."""
    if i >= 0:
        return x[i + 1] - x[i] - 1.0
    return 0.0
