"""NumPy functions pyad does not have, with what to write instead: the hints of the located
errors that refuse them (arrayops.py). The refused parts of np.linalg are in linalg.py."""
from __future__ import annotations

#: NumPy functions pyad does not have -> what to write instead
INSTEAD = {
    "reciprocal": "write 1.0 / x",
    "negative": "write -x", "positive": "write +x", "exp2": "write 2.0 ** x",
    "deg2rad": "write x * (np.pi / 180)", "rad2deg": "write x * (180 / np.pi)",
    "radians": "write x * (np.pi / 180)", "degrees": "write x * (180 / np.pi)",
    "sinc": "write np.sin(np.pi * x) / (np.pi * x) "
    "(and handle x == 0)", "trunc": "write np.where(x < 0, np.ceil(x), np.floor(x))",
    "round": "write np.floor(x + 0.5) (NumPy rounds halves to even)",
    "rint": "write np.floor(x + 0.5) (NumPy rounds halves to even)",
    "tensordot": "write np.einsum with explicit subscripts",
    "cumulative_sum": "write np.cumsum", "nansum": "write np.sum(np.where(x == x, x, 0.0))",
    "median": "sort with np.sort and pick the middle", "percentile": "sort with np.sort",
    "atleast_2d": "index with None",
}
