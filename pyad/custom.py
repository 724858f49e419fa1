"""Custom derivative rules (`custom_vjp`, in JAX's spelling) and `stop_gradient`.

    @pyad.custom_vjp
    def safe_log(x):
        return math.log(x)
    def safe_log_fwd(x):
        return math.log(x), x            # value, residuals
    def safe_log_bwd(res, ct):
        return (ct / res,)               # one cotangent per argument
    safe_log.defvjp(safe_log_fwd, safe_log_bwd)

Called from Python, a `custom_vjp` function is the plain function. Called from compiled code,
its forward rule gives the value and the residuals, and its backward rule is the adjoint
(frontend: pyad/frontend/calls.py, which lowers it to a `frontend.custom.Rule` carried by the
`custom_vjp` ops; AD: `pyad.ad`, op `custom_vjp`). Both rules are written in the compiled
subset and compiled with their callers. Arguments, values and residuals are numbers or tuples
of numbers. A module of its own, outside the frontend: `import pyad` gives these without
loading the compiler.
"""
from __future__ import annotations

import functools
from typing import Any, Callable


def stop_gradient(x: Any) -> Any:
    """`x`, through which no gradient flows (numbers, arrays and tuples of them). In Python
    it returns `x` unchanged; in compiled code its derivative is zero."""
    return x


class CustomVJP:
    """A function with a hand-written vector-Jacobian product (see the module docstring)."""

    def __init__(self, fn: Callable) -> None:
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None

    def defvjp(self, fwd: Callable, bwd: Callable) -> None:
        """Set the rules: `fwd(*args) -> (value, residuals)` and
        `bwd(residuals, cotangent) -> tuple of one cotangent per argument`."""
        for what, f in (("fwd", fwd), ("bwd", bwd)):
            if not callable(f):
                raise TypeError(f"defvjp: {what} must be a function, not {type(f).__name__}")
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<pyad.custom_vjp {self.fn.__qualname__}>"


def custom_vjp(fn: Callable) -> CustomVJP:
    """Decorator: a function whose derivative is given by `f.defvjp(fwd, bwd)`."""
    return CustomVJP(fn)
