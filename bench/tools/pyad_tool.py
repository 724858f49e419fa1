"""pyad: `pyad.jit_grad` of the loop-style function; the primal and the fused value_and_grad."""
from functools import partial
from importlib.metadata import version as dist_version

import pyad

from bench.tools import Bound, CacheUnsupported, as_numpy
from bench.workloads import Workload


def version() -> str:
    return dist_version("pyad-compiler")


def bind(w: Workload, args: tuple, cache: bool = False) -> Bound:
    options = {"argnums": w.wrt}
    if cache:
        try:
            f = pyad.jit_grad(w.loop, cache=True, **options)
        except TypeError as e:
            raise CacheUnsupported("pyad.jit_grad has no cache option yet") from e
    else:
        f = pyad.jit_grad(w.loop, **options)
    return Bound(primal=partial(f, *args), vgrad=partial(f.value_and_grad, *args),
                 unpack=lambda r: (float(r[0]), as_numpy(r[1])),
                 tape_bytes=partial(f.tape_bytes, *args))
