"""pyad: a source-to-source reverse-mode AD compiler for numerical Python.

    @pyad.jit_grad
    def f(a, b):
        return a / (a + b * b)

    f(2.0, 3.0); f.grad(2.0, 3.0); f.value_and_grad(2.0, 3.0); y, back = f.pullback(2.0, 3.0)
"""
from .api import JitGrad, Pullback, jit_grad
from .cache import cache_dir, clear_cache
from .check import check_grad
from .custom import CustomVJP, custom_vjp, stop_gradient
from .errors import PyadError, PyadInternalError, PyadSyntaxError, PyadTypeError
from .transforms import grad, value_and_grad, vjp

__all__ = ["jit_grad", "JitGrad", "Pullback", "check_grad", "grad", "value_and_grad", "vjp", "custom_vjp", "CustomVJP",
           "stop_gradient", "cache_dir", "clear_cache",
           "PyadError", "PyadSyntaxError", "PyadTypeError", "PyadInternalError"]
