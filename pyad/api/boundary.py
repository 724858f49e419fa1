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
"""
from __future__ import annotations

import functools
import os
import types
from typing import Callable, TypeVar

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
