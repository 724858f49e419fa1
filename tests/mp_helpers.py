"""Module-level pyad functions for tests/api/test_pickle.py and tests/api/test_threads.py.

They live in an importable module so that child processes (multiprocessing with the spawn or
fork start method, concurrent.futures.ProcessPoolExecutor) can unpickle them by reference."""
import math

import pyad


@pyad.jit_grad
def energy(x, n):
    s = 0.0
    for i in range(n):
        s += math.sin(x * (i + 1)) / (i + 1)
    return s


def plain_square(x, y):
    return x * x * y + 1.0


# decorated under another name: `plain_square` in this module is the plain function
square = pyad.jit_grad(plain_square, argnums=0)


@pyad.jit_grad(argnums="all")
def weighted(w, x):
    s = 0.0
    for i in range(len(x)):
        s += (w[i] * x[i]) ** 2
    return s


@pyad.jit_grad
def spin(x, n):
    """A long scalar loop (about 1-2 ns per iteration): a native call that takes a while."""
    s = 0.0
    for _ in range(n):
        s = s * 0.5 + x
    return s


@pyad.jit_grad
def array_spin(x, n):
    """The same long loop reading an array (called through cffi)."""
    s = 0.0
    m = len(x)
    for i in range(n):
        s = s * 0.5 + x[i % m]
    return s


def call_energy(x):
    """For pool workers: the function is looked up in the worker's copy of this module."""
    return energy(x, 7), energy.grad(x, 7)


@pyad.jit_grad
def refused(x):
    """Fails to compile: a worker's error must still name this file and the line of `try`."""
    try:
        return x * 2.0
    except ValueError:
        return x
