"""W4 n-body potential, spelled differently from bench.w4_nbody.loop."""
import math

import numpy as np


def all_pairs_scratch(pos, m):
    """Every ordered pair i != j, halved; the difference vector in a scratch array updated
    in place, its squared norm a loop over the coordinates."""
    n = pos.shape[0]
    dv = np.zeros(3)
    e = 0.0
    for i in range(n):
        for j in range(n):
            if i != j:
                for c in range(3):
                    dv[c] = pos[i, c] - pos[j, c]
                r2 = 0.01
                for c in range(3):
                    r2 += dv[c] * dv[c]
                e -= 0.5 * m[i] * m[j] / math.sqrt(r2)
    return e


def _pair(pos, m, i, j):
    dx = pos[j, 0] - pos[i, 0]
    dy = pos[j, 1] - pos[i, 1]
    dz = pos[j, 2] - pos[i, 2]
    return m[i] * m[j] / math.sqrt(dx * dx + dy * dy + dz * dz + 0.01)


def helper_lower(pos, m):
    """A helper for one pair, the lower triangle walked column-major (j outer, i < j)."""
    e = 0.0
    for j in range(pos.shape[0]):
        for i in range(j):
            e = e - _pair(pos, m, i, j)
    return e


def row_energies(pos, m):
    """Each body's share filled into a vector first, the vector summed at the end."""
    n = pos.shape[0]
    row = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for j in range(i + 1, n):
            d2 = (pos[i, 0] - pos[j, 0]) ** 2 + (pos[i, 1] - pos[j, 1]) ** 2 \
                + (pos[i, 2] - pos[j, 2]) ** 2
            acc += m[j] / math.sqrt(d2 + 0.01)
        row[i] = m[i] * acc
    return -np.sum(row)


SPELLINGS = (all_pairs_scratch, helper_lower, row_energies)
