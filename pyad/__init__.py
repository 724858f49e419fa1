"""pyad: a source-to-source reverse-mode AD compiler for numerical Python.

    @pyad.jit_grad
    def f(a, b):
        return a / (a + b * b)

    f(2.0, 3.0); f.grad(2.0, 3.0); f.value_and_grad(2.0, 3.0); y, back = f.pullback(2.0, 3.0)
"""
from .api import cache  # `pyad.cache.stats()`, `pyad.cache.PyadCacheWarning` (docs/processes.md)
from .api.cache import cache_dir, clear_cache
from .api.check import check_grad
from .api.jit import JitGrad, Pullback, jit_grad
from .api.transforms import grad, value_and_grad, vjp
from .errors import PyadError, PyadInternalError, PyadSyntaxError, PyadTypeError
from .frontend.custom import CustomVJP, custom_vjp, stop_gradient

__all__ = ["jit_grad", "JitGrad", "Pullback", "check_grad", "grad", "value_and_grad", "vjp",
           "custom_vjp", "CustomVJP", "stop_gradient", "cache", "cache_dir", "clear_cache",
           "PyadError", "PyadSyntaxError", "PyadTypeError", "PyadInternalError"]
