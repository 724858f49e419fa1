"""NumPy functions pyad does not have, with what to write instead: the hints of the located
errors that refuse them (arrayops.py). The refused parts of np.linalg are in linalg.py."""
from __future__ import annotations

#: NumPy functions pyad does not have -> what to write instead
INSTEAD = {
    "unique": "its length depends on the values: sort (np.sort) and compare neighbours",
    "histogram": "np.searchsorted(edges, x) gives each element's bin",
    "correlate": "np.convolve(a, v[::-1], mode) is the correlation of real arrays",
    "trapz": "np.trapezoid (NumPy 2's name)",
    "tolist": "iterate over the array (for v in a) or index it",
}
