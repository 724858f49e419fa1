"""pyad: a source-to-source reverse-mode AD compiler for numerical Python.

    @pyad.jit_grad
    def f(a, b):
        return a / (a + b * b)

    f(2.0, 3.0); f.grad(2.0, 3.0); f.value_and_grad(2.0, 3.0); y, back = f.pullback(2.0, 3.0)
"""
from .api import JitGrad, Pullback, jit_grad
from .check import check_grad
from .errors import PyadError, PyadInternalError, PyadSyntaxError, PyadTypeError

__all__ = ["jit_grad", "JitGrad", "Pullback", "check_grad", "PyadError", "PyadSyntaxError",
           "PyadTypeError", "PyadInternalError"]
