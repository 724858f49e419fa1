"""pyad: `pyad.jit_grad` of the loop-style function; the primal and the fused value_and_grad.
The warm-cache variant uses pyad's on-disk object cache (`jit_grad(cache=True)`) in
$BENCH_CACHE_DIR/pyad."""
import os
from functools import partial
from importlib.metadata import version as dist_version

import pyad

from bench.tools import Bound, as_numpy
from bench.workloads import Workload


def version() -> str:
    return dist_version("pyad-compiler")


def bind(w: Workload, args: tuple, cache: bool = False) -> Bound:
    if cache:
        # read by pyad at every lookup; a set PYAD_CACHE_DIR of the user must not be used
        os.environ["PYAD_CACHE_DIR"] = os.path.join(os.environ["BENCH_CACHE_DIR"], "pyad")
    f = pyad.jit_grad(w.loop, argnums=w.wrt, cache=cache)
    return Bound(primal=partial(f, *args), vgrad=partial(f.value_and_grad, *args),
                 unpack=lambda r: (float(r[0]), as_numpy(r[1])),
                 tape_bytes=partial(f.tape_bytes, *args))
