"""JAX: the array-style function over jax.numpy (loops as lax.fori_loop), float64,
`jax.jit(f)` for the primal and `jax.jit(jax.value_and_grad(f))` for the gradient.
Integer arguments are static. The warm-cache variant uses JAX's persistent compilation cache
in $BENCH_CACHE_DIR/jax."""
import os
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from bench.tools import Bound, as_numpy
from bench.workloads import Workload
from bench.xp import JaxOps

jax.config.update("jax_enable_x64", True)
OPS = JaxOps(jnp, jax.lax)


def version() -> str:
    return jax.__version__


def _enable_cache() -> None:
    cache_dir = os.path.join(os.environ["BENCH_CACHE_DIR"], "jax")
    jax.config.update("jax_compilation_cache_dir", cache_dir)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)


def _device(a):
    if isinstance(a, np.ndarray):
        return jnp.asarray(a)
    return a if isinstance(a, int) else jnp.asarray(a, dtype=jnp.float64)


def bind(w: Workload, args: tuple, cache: bool = False) -> Bound:
    if cache:
        _enable_cache()
    fn = partial(w.array, OPS)
    static = tuple(i for i, a in enumerate(args) if isinstance(a, int))
    primal = jax.jit(fn, static_argnums=static)
    vg = jax.jit(jax.value_and_grad(fn, argnums=w.wrt), static_argnums=static)
    dev = tuple(_device(a) for a in args)
    return Bound(primal=lambda: jax.block_until_ready(primal(*dev)),
                 vgrad=lambda: jax.block_until_ready(vg(*dev)),
                 unpack=lambda r: (float(r[0]), as_numpy(r[1])))
