"""Hand-written C (bench/c/, -O3 -march=native) through ctypes, for W1, W3 and W4: the
physical reference. `wN_primal(args...)` and `wN_vgrad(args..., one output pointer per
differentiated argument)` take the loop-style arguments (arrays as C-contiguous float64),
followed by the length of the first array when there are arrays (the C code needs sizes). The
caller keeps the arguments alive while it uses the Bound. The gradient buffers are allocated
once and reused by every call. The library is built in $BENCH_CACHE_DIR when set (cold: a
fresh directory, so the first call includes the compiler), else in bench/.build/."""
import ctypes
import os
import subprocess
from functools import partial
from pathlib import Path

import numpy as np

from bench import cbuild
from bench.tools import Bound, NotApplicable
from bench.workloads import Workload

HAVE_C = ("W1", "W3", "W4")


def version() -> str:
    out = subprocess.run([cbuild.compiler(), "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else cbuild.compiler()


def _ctype(a):
    if isinstance(a, np.ndarray):
        if a.dtype != np.float64 or not a.flags.c_contiguous:
            raise TypeError("C reference takes C-contiguous float64 arrays")
        return ctypes.c_void_p, a.ctypes.data
    if isinstance(a, int):
        return ctypes.c_long, a
    return ctypes.c_double, float(a)


def bind(w: Workload, args: tuple, cache: bool = False) -> Bound:
    if w.name not in HAVE_C:
        raise NotApplicable(f"no hand-written C for {w.name}")
    cache_dir = os.environ.get("BENCH_CACHE_DIR")
    lib = cbuild.load(Path(cache_dir, "c") if cache_dir else cbuild.BUILD_DIR)
    prefix = w.name.lower()
    c_args = args + ((len(args[0]),) if isinstance(args[0], np.ndarray) else ())
    types, values = zip(*(_ctype(a) for a in c_args))
    primal = getattr(lib, f"{prefix}_primal")
    primal.argtypes, primal.restype = list(types), ctypes.c_double
    buffers = [np.zeros(np.shape(args[i])) for i in w.wrt]
    vgrad = getattr(lib, f"{prefix}_vgrad")
    vgrad.argtypes = list(types) + [ctypes.c_void_p] * len(buffers)
    vgrad.restype = ctypes.c_double

    def unpack(value: float) -> tuple[float, tuple]:
        return value, tuple(float(b) if b.ndim == 0 else b.copy() for b in buffers)

    return Bound(primal=partial(primal, *values),
                 vgrad=partial(vgrad, *values, *(b.ctypes.data for b in buffers)),
                 unpack=unpack)
