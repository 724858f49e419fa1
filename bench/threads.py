"""Single-threaded settings for every library the benchmark loads.

Import this before numpy, numba, jax or torch: the thread counts of their pools are read from
the environment when they load. Subprocesses started by the runner inherit the variables."""
import os

_SINGLE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "JAX_PLATFORMS": "cpu",
    "TF_CPP_MIN_LOG_LEVEL": "3",
}

for _key, _value in _SINGLE_THREAD.items():
    os.environ.setdefault(_key, _value)
