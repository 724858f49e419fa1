"""Array-op adapters: the few operations the array-style workloads use, for a NumPy-like
module (numpy, jax.numpy, autograd.numpy) and for PyTorch. The framework module is passed in,
so importing this file loads none of them."""
from typing import Any, Callable

import numpy as np


class NumpyLike:
    """Ops over a module with NumPy's API; loops run in Python."""

    def __init__(self, module: Any) -> None:
        self.m = module

    def asarray(self, a: np.ndarray) -> Any:
        """A float64 constant in the framework's array type."""
        return self.m.asarray(a)

    def index(self, a: np.ndarray) -> Any:
        """An int64 index array in the framework's type."""
        return a

    def zeros(self, shape: tuple[int, ...]) -> Any:
        return self.m.zeros(shape)

    def sum(self, a: Any, axis: int | None = None) -> Any:
        return self.m.sum(a, axis=axis)

    def amax(self, a: Any, axis: int) -> Any:
        """Maximum along `axis`, keeping the axis (length 1)."""
        return self.m.max(a, axis=axis, keepdims=True)

    def squeeze(self, a: Any, axis: int) -> Any:
        return self.m.squeeze(a, axis=axis)

    def exp(self, a: Any) -> Any:
        return self.m.exp(a)

    def log(self, a: Any) -> Any:
        return self.m.log(a)

    def sqrt(self, a: Any) -> Any:
        return self.m.sqrt(a)

    def tanh(self, a: Any) -> Any:
        return self.m.tanh(a)

    def concat(self, parts: list, axis: int) -> Any:
        return self.m.concatenate(parts, axis=axis)

    def einsum(self, spec: str, *operands: Any) -> Any:
        return self.m.einsum(spec, *operands)

    def fori_loop(self, n: int, body: Callable[[int, Any], Any], carry: Any) -> Any:
        """carry = body(i, carry) for i in range(n)."""
        for i in range(n):
            carry = body(i, carry)
        return carry


class JaxOps(NumpyLike):
    """jax.numpy, with loops as `lax.fori_loop` (traced once, compiled as one XLA loop)."""

    def __init__(self, jnp: Any, lax: Any) -> None:
        super().__init__(jnp)
        self.lax = lax

    def fori_loop(self, n: int, body: Callable[[int, Any], Any], carry: Any) -> Any:
        return self.lax.fori_loop(0, n, body, carry)


class TorchOps(NumpyLike):
    """PyTorch (eager, CPU, float64)."""

    def asarray(self, a: np.ndarray) -> Any:
        return self.m.from_numpy(np.ascontiguousarray(a, dtype=np.float64))

    def index(self, a: np.ndarray) -> Any:
        return self.m.from_numpy(np.ascontiguousarray(a, dtype=np.int64))

    def zeros(self, shape: tuple[int, ...]) -> Any:
        return self.m.zeros(shape, dtype=self.m.float64)

    def sum(self, a: Any, axis: int | None = None) -> Any:
        return self.m.sum(a) if axis is None else self.m.sum(a, dim=axis)

    def amax(self, a: Any, axis: int) -> Any:
        return self.m.amax(a, dim=axis, keepdim=True)

    def squeeze(self, a: Any, axis: int) -> Any:
        return self.m.squeeze(a, dim=axis)

    def concat(self, parts: list, axis: int) -> Any:
        return self.m.cat(parts, dim=axis)
