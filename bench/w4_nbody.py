"""W4: n-body potential energy, sum_{i<j} -m_i m_j / sqrt(|p_i - p_j|^2 + 0.01), in 3-D."""
import math

import numpy as np

SIZES = {"tiny": 6, "full": 300}


def loop(pos, m):
    """Loop style: what pyad and Numba compile and CPython runs."""
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dz = pos[i, 2] - pos[j, 2]
            e -= m[i] * m[j] / math.sqrt(dx * dx + dy * dy + dz * dz + 0.01)
    return e


def array(ops, pos, m):
    """Array style: all pairs at once, the strict upper triangle selected by a constant mask."""
    n = pos.shape[0]
    diff = pos[:, None, :] - pos[None, :, :]
    inv = 1.0 / ops.sqrt(ops.sum(diff * diff, axis=2) + 0.01)
    upper = ops.asarray(np.triu(np.ones((n, n)), 1))
    return -ops.sum(upper * (m[:, None] * m[None, :]) * inv)


def array_numpy(pos, m):
    """Array style with NumPy alone: all pairs at once, the upper triangle by np.triu."""
    n = pos.shape[0]
    diff = pos[:, None, :] - pos[None, :, :]
    inv = 1.0 / np.sqrt(np.sum(diff * diff, axis=2) + 0.01)
    upper = np.triu(np.ones((n, n)), 1)
    return -np.sum(upper * (m[:, None] * m[None, :]) * inv)


def make_args(size: str) -> tuple:
    """(pos, m) with pos ~ N(0, 1) of shape (n, 3) and m ~ U(0.5, 1.5)."""
    rng = np.random.default_rng(0)
    n = SIZES[size]
    return (rng.standard_normal((n, 3)), rng.uniform(0.5, 1.5, n))


def describe(size: str) -> str:
    return f"n={SIZES[size]}"
