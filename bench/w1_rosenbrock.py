"""W1: the extended Rosenbrock function, sum_{i<N-1} 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2."""
import numpy as np

SIZES = {"tiny": 8, "full": 10_000}


def loop(x):
    """Loop style: what pyad and Numba compile and CPython runs."""
    s = 0.0
    for i in range(len(x) - 1):
        t = x[i + 1] - x[i] * x[i]
        u = 1.0 - x[i]
        s += 100.0 * t * t + u * u
    return s


def array(ops, x):
    """Array style, vectorized (`ops`: a bench.xp adapter)."""
    head = x[:-1]
    return ops.sum(100.0 * (x[1:] - head * head) ** 2 + (1.0 - head) ** 2)


def array_numpy(x):
    """Array style with NumPy alone (what a JAX user writes with jnp): pyad compiles it."""
    head = x[:-1]
    return np.sum(100.0 * (x[1:] - head * head) ** 2 + (1.0 - head) ** 2)


def make_args(size: str) -> tuple:
    """(x,) with x ~ U(-2, 2)."""
    rng = np.random.default_rng(0)
    return (rng.uniform(-2.0, 2.0, SIZES[size]),)


def describe(size: str) -> str:
    return f"N={SIZES[size]}"
