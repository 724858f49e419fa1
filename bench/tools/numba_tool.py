"""Numba: `numba.njit` of the loop-style function; primal only (the native-speed reference).
The warm-cache variant uses `njit(cache=True)`, caching in $NUMBA_CACHE_DIR."""
from functools import partial

import numba

from bench.tools import Bound
from bench.workloads import Workload


def version() -> str:
    return numba.__version__


def bind(w: Workload, args: tuple, cache: bool = False) -> Bound:
    return Bound(primal=partial(numba.njit(cache=cache)(w.loop), *args))
