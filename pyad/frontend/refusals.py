"""NumPy functions pyad does not have, with what to write instead: the hints of the located
errors that refuse them (arrayops.py). The refused parts of np.linalg are in linalg.py."""
from __future__ import annotations

#: NumPy functions pyad does not have -> what to write instead
INSTEAD = {
    "cumulative_sum": "write np.cumsum",
    "atleast_2d": "index with None",
}
