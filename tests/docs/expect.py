"""Comparing an output shown in the documentation with what the code printed.

The shown text is a pattern: `...` stands for any text (also several lines), a number
followed directly by `...` (`0.1818...`) for any number written with those leading digits,
every other number for a number within a relative 1e-9 of it (so a last-digit difference in
a libm result does not fail), and a run of whitespace for any run of whitespace. The rest
must be equal. Leading and trailing whitespace is ignored."""
from __future__ import annotations

import math
import re

NUMBER = r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_TOKEN = re.compile(rf"(?P<prefix>{NUMBER})\.\.\.|(?P<any>\.\.\.)|(?P<number>{NUMBER})"
                    r"|(?P<space>\s+)|(?P<char>.)", re.S)
REL_TOL = 1e-9


def _pattern(shown: str) -> tuple[str, list[float]]:
    parts, numbers = [], []
    for m in _TOKEN.finditer(shown.strip()):
        if m["prefix"]:
            parts.append(re.escape(m["prefix"]) + r"\d*(?:[eE][-+]?\d+)?")
        elif m["any"]:
            parts.append(r".*?")
        elif m["number"]:
            parts.append(f"({NUMBER})")
            numbers.append(float(m["number"]))
        elif m["space"]:
            parts.append(r"\s+")
        else:
            parts.append(re.escape(m["char"]))
    return "".join(parts), numbers


def matches(shown: str, printed: str) -> bool:
    """Whether `printed` is what `shown` shows (the rules above)."""
    pattern, numbers = _pattern(shown)
    m = re.fullmatch(pattern, printed.strip(), re.S)
    if m is None:
        return False
    return all(math.isclose(float(got), want, rel_tol=REL_TOL, abs_tol=1e-300)
               for got, want in zip(m.groups(), numbers))


def check(shown: str, printed: str, where: str) -> None:
    """AssertionError naming `where` when `printed` is not what `shown` shows."""
    assert matches(shown, printed), (f"{where}: the documentation shows\n{shown.strip()}\n"
                                     f"but the code printed\n{printed.strip()}")
