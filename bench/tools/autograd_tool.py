"""autograd: the array-style function over autograd.numpy, `autograd.value_and_grad`."""
from functools import partial
from importlib.metadata import version as dist_version

import autograd
import autograd.numpy as anp

from bench.tools import Bound, CacheUnsupported, as_numpy
from bench.workloads import Workload
from bench.xp import NumpyLike

OPS = NumpyLike(anp)


def version() -> str:
    return dist_version("autograd")


def bind(w: Workload, args: tuple, cache: bool = False) -> Bound:
    if cache:
        raise CacheUnsupported("no compilation")
    fn = partial(w.array, OPS)
    vg = autograd.value_and_grad(fn, argnum=w.wrt)
    return Bound(primal=partial(fn, *args), vgrad=partial(vg, *args),
                 unpack=lambda r: (float(r[0]), as_numpy(r[1])))
