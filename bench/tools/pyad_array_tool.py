"""pyad on the array style: `pyad.jit_grad` of the workload's NumPy-only array spelling
(`array_numpy`, the function JAX runs, with np for jnp); the primal and the fused
value_and_grad. Workloads without one are not applicable."""
from functools import partial

import pyad

from bench.tools import Bound, NotApplicable, as_numpy
from bench.tools.pyad_tool import version  # noqa: F401  (the same distribution)
from bench.workloads import Workload


def bind(w: Workload, args: tuple, cache: bool = False) -> Bound:
    if w.array_numpy is None:
        raise NotApplicable(f"{w.name} has no NumPy-only array spelling pyad compiles yet")
    f = pyad.jit_grad(w.array_numpy, argnums=w.wrt, cache=cache)
    return Bound(primal=partial(f, *args), vgrad=partial(f.value_and_grad, *args),
                 unpack=lambda r: (float(r[0]), as_numpy(r[1])),
                 tape_bytes=partial(f.tape_bytes, *args))
