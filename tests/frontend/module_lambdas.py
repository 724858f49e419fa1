"""Lambdas bound at module level, called from compiled functions (test_module_lambdas.py)."""
import math

import numpy as np

square_plus_one = lambda y: y * y + 1.0  # noqa: E731
activation = lambda v: np.tanh(v)  # noqa: E731
scaled = lambda v, c=2.0: c * v  # noqa: E731
twin_a, twin_b = lambda a: a + 1.0, lambda a: a - 1.0  # noqa: E731


def uses_lambdas(x):
    return square_plus_one(x[0]) + np.sum(activation(x)) + scaled(x[1]) + math.sin(x[0])


def uses_one_of_a_pair(x):
    return twin_a(x[0])
