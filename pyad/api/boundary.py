"""The boundary between the user's code and pyad's: an error raised while compiling or running
a compiled function reaches the user without pyad's own frames in its traceback.

A compile error is about the user's code (`PyadSyntaxError`: file, line, carets, hint) and a
runtime error raised by native code names the user's line (`ZeroDivisionError: float division
by zero (line 12 of model.py)`); the 20 to 70 frames of the compiler the error passed through
say nothing to the user and bury the message. Every public entry point (a compiled function's
call, `grad`, `value_and_grad`, `pullback`, ..., and the `pyad.grad`/`value_and_grad`/`vjp`
transforms) is wrapped by `user_facing`, which re-raises the exception with the frames of
pyad's modules removed from its traceback. One frame of pyad stays, the entry point itself
(Python adds the frame that raises); frames of other code the error passed through (the
user's, scipy's) stay.

Not cut: `PyadInternalError` (a bug in pyad: its frames are what a bug report needs), and
anything that is not an `Exception` (KeyboardInterrupt). With the environment variable
`PYAD_TRACEBACK=1` (read here, when an error passes) nothing is cut.

Also here: the fallback a native wrapper calls (`weak_call`), and `guard`, which turns a bug
in the compiler into a `PyadInternalError`.
"""
from __future__ import annotations

import functools
import os
import threading
import types
import weakref
from typing import Any, Callable, TypeVar

from ..errors import PyadError, PyadInternalError

ENV_VAR = "PYAD_TRACEBACK"
_F = TypeVar("_F", bound=Callable)


def show_internals() -> bool:
    """Whether `PYAD_TRACEBACK` asks for pyad's frames (any value but empty or 0)."""
    return os.environ.get(ENV_VAR, "") not in ("", "0")


def user_facing(fn: _F) -> _F:
    """`fn`, re-raising the exceptions it raises without pyad's frames (module docstring)."""
    @functools.wraps(fn)
    def entry(*args, **kwargs):
        __tracebackhide__ = True  # IPython and pytest leave this frame out too
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if keeps_internals(exc):
                raise
            raise without_internals(exc)  # the error, its traceback cut to the user's frames
    return entry  # type: ignore[return-value]


def keeps_internals(exc: BaseException) -> bool:
    """Whether `exc` is shown with pyad's frames (a pyad bug, or PYAD_TRACEBACK set)."""
    return isinstance(exc, PyadInternalError) or show_internals()


def without_internals(exc: BaseException) -> BaseException:
    """`exc` with the frames of pyad's modules dropped from its traceback. A located
    `PyadError` is complete in itself: the exception it was raised while handling (inside the
    compiler) is not shown; other chained exceptions are kept, cut the same way."""
    exc.__traceback__ = _filtered(exc.__traceback__)
    if isinstance(exc, PyadError):
        exc.__suppress_context__ = True
        exc.__cause__ = None
    else:
        for chained in (exc.__cause__, exc.__context__):
            if chained is not None and not isinstance(chained, PyadInternalError):
                chained.__traceback__ = _filtered(chained.__traceback__)
    return exc


def _filtered(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback `tb` without the entries of frames running pyad's code."""
    kept = []
    while tb is not None:
        if not _is_pyad(tb.tb_frame):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for entry in reversed(kept):
        out = types.TracebackType(out, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return out


def _is_pyad(frame: types.FrameType) -> bool:
    name = frame.f_globals.get("__name__", "")
    return name == "pyad" or name.startswith("pyad.")


def weak_call(owner: Any, method: str, *prefix) -> Callable:
    """`getattr(owner, method)(*prefix, ...)` as a user's entry point, holding `owner` (a
    JitGrad) weakly: the fallback of native wrappers, whose compiled code (and the pullbacks
    holding it) may outlive the JitGrad object."""
    ref = weakref.ref(owner)

    def call(*args, **kwargs):
        __tracebackhide__ = True  # a user's entry point (boundary.py)
        obj = ref()
        if obj is None:
            raise ReferenceError("the pyad.jit_grad function was deleted")
        if getattr(_converted, "active", False):
            raise PyadInternalError("internal compiler error: a compiled function refused the "
                                    "arguments its dispatcher had converted for it")
        try:
            return getattr(obj, method)(*prefix, *args, **kwargs)
        except Exception as exc:  # the user's entry point: see boundary.py
            if keeps_internals(exc):
                raise
            raise without_internals(exc)
    return call


# Set while a dispatcher calls native code with converted arguments: the wrapper must accept
# them, and if it handed them back to its fallback instead, the two would recurse forever.
# (Kernels never call Python, so nothing else can reach a fallback in between.)
_converted = threading.local()


def call_converted(fn: Callable, args: tuple):
    _converted.active = True
    try:
        return fn(*args)
    finally:
        _converted.active = False


def guard(thunk: Callable):
    """Run compiler code; report unexpected exceptions as pyad internal errors."""
    try:
        return thunk()
    except (PyadError, TypeError, ValueError):
        raise
    except Exception as exc:  # a bug in pyad: never surface a bare KeyError/AttributeError
        raise PyadInternalError(f"internal compiler error: {type(exc).__name__}: {exc}") from exc
