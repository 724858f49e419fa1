"""NumPy functions written in the compiled subset (pyad/frontend/prelude.py): np.polyval,
checked by the harness against NumPy's value, central finite differences, the IR interpreter
and the pullback (check_function). (np.median, np.percentile, np.quantile and np.interp:
test_quantiles.py.)"""
from __future__ import annotations

import numpy as np

from .harness import check_function


def poly_sum(p, x):
    return np.sum(np.polyval(p, x))


def poly_scalar(p, t):
    return np.polyval(p, t) * 2.0


def poly_list(x):
    return np.sum(np.polyval([0.5, -1.0, 2.0, 3.0], x))


def test_polyval_of_arrays_numbers_and_lists():
    rng = np.random.default_rng(1)
    check_function(poly_sum, (rng.normal(size=4), rng.normal(size=5)))
    check_function(poly_sum, (rng.normal(size=1), rng.normal(size=(2, 3))))
    check_function(poly_scalar, (rng.normal(size=3), 0.7))
    check_function(poly_list, (rng.normal(size=6),))
