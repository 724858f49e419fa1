"""The registry of the five workloads: `WORKLOADS["W1"]` .. `WORKLOADS["W5"]`."""
from dataclasses import dataclass
from types import ModuleType
from typing import Callable

from bench import w1_rosenbrock, w2_gmm, w3_lorenz, w4_nbody, w5_mlp


@dataclass(frozen=True)
class Workload:
    """One benchmark function in its two spellings.

    `loop(*args)` is the loop-style function (pyad, Numba, CPython); `array(ops, *args)` the
    array-style one, written against a bench.xp adapter (NumPy, JAX, autograd, PyTorch); both
    take the tuple `args(size)` and return a float. `wrt` lists the differentiated arguments."""

    name: str
    title: str
    loop: Callable
    array: Callable
    wrt: tuple[int, ...]
    module: ModuleType
    #: the array style written with NumPy alone (pyad's `pyad_array` rows); None where pyad
    #: does not compile one yet
    array_numpy: Callable | None = None

    def args(self, size: str) -> tuple:
        """The argument tuple for size "tiny" (a few elements) or "full" (WORKLOADS.md)."""
        return self.module.make_args(size)

    def describe(self, size: str) -> str:
        """The size in words, e.g. "N=10000"."""
        return self.module.describe(size)


def _make(name: str, title: str, module: ModuleType, wrt: tuple[int, ...]) -> Workload:
    return Workload(name, title, module.loop, module.array, wrt, module, module.array_numpy)


WORKLOADS: dict[str, Workload] = {
    "W1": _make("W1", "Rosenbrock", w1_rosenbrock, (0,)),
    "W2": _make("W2", "GMM objective", w2_gmm, (0, 1, 2)),
    "W3": _make("W3", "Lorenz-63 RK4", w3_lorenz, (0, 1, 2, 3, 4, 5)),
    "W4": _make("W4", "n-body potential", w4_nbody, (0,)),
    "W5": _make("W5", "MLP loss", w5_mlp, (2, 3, 4, 5)),
}
