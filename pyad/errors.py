"""pyad's exceptions, and the compiler-style formatting of located errors.

    model.py:12:11: error: unsupported syntax: list comprehension
        return sum([x * x for x in xs])
                   ^^^^^^^^^^^^^^^^^^^
    hint: write the loop out with `for` and an accumulator
"""
from __future__ import annotations


class PyadError(Exception):
    """Base class of every error pyad raises on purpose."""


class PyadSyntaxError(PyadError):
    """The function uses Python that pyad cannot compile (or cannot compile correctly)."""

    def __init__(self, message: str, *, filename: str = "<unknown>", line: int = 0,
                 col: int = 0, end_col: int | None = None, source_line: str = "",
                 hint: str = "") -> None:
        self.bare_message = message
        self.filename, self.line, self.col = filename, line, col
        self.hint = hint
        text = f"{filename}:{line}:{col + 1}: error: {message}"
        if source_line:
            stripped = source_line.rstrip("\n")
            width = max(1, (end_col if end_col is not None and end_col > col
                            else len(stripped)) - col)
            width = min(width, max(1, len(stripped) - col))
            text += f"\n    {stripped}\n    {' ' * col}{'^' * width}"
        if hint:
            text += f"\nhint: {hint}"
        super().__init__(text)

    def __reduce__(self):
        """Pickled with its location and hint (a worker process's error reads as it did there;
        the default would make the whole text the message of an error at `<unknown>:0`)."""
        return _rebuilt, (type(self), self.args, dict(self.__dict__))


def _rebuilt(cls: type, args: tuple, state: dict) -> PyadSyntaxError:
    """`cls` with exception arguments `args` and attributes `state` (`__reduce__`)."""
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class PyadTypeError(PyadSyntaxError, TypeError):
    """A located type error in the user's function (e.g. adding a number to a tuple)."""


class PyadInternalError(PyadError):
    """A bug in pyad itself. Please report it with the function that triggered it."""


class StrongZeros(Exception):
    """Raised by a value-and-gradient kernel compiled without strong zeros when a gradient
    holds a nan: the caller runs the kernel compiled with them (pyad/ad/gradient.py,
    `fused_parts`). Never reaches the user."""
