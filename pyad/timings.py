"""Where compile time goes: the phases of compiling one signature of a compiled function.

    f = pyad.jit_grad(fn); f(0.5, 10); f.grad(0.5, 10)
    f.timings()   # {('f64', 'i64'): {'frontend': 0.012, ..., 'total': 0.21}}

A `Timings` belongs to one signature (a `Specialization` in api/specialize.py) and is handed
explicitly to the passes and to codegen, which time their work with `with t.phase(name):`.
Phases (in order, `PHASES`): "frontend" (parse and lowering to IR), "IR optimization" (the
simplifying passes and the expansion to element loops), "AD" (the gradient IR), "code
generator import" (pyad's passes, llvmlite and pyad.codegen, imported by the first compile of
the process only),
"LLVM IR emission" (the LLVM module built, printed, parsed and verified by LLVM), "cache"
(key, lookup and store of the on-disk cache), "LLVM optimization", "machine code" (the
object file), "linking" (into the JIT) and "wrapper build" (the Python callables). A phase nested in another is charged to the inner
one only, so the phases add up to the time spent compiling ("total", measured around each
compile step on its own clock). Every compiled unit (the primal, the gradient kernels, the
pullback kernels) adds to its signature's entry.

With the environment variable `PYAD_TIMINGS=1` (read here, when a unit is compiled) each
unit prints one line to stderr as it is compiled:

    pyad: compiled f(f64, i64) primal in 212.3 ms: frontend 20.1 ms, ...
"""
from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager, nullcontext
from typing import Iterator

ENV_VAR = "PYAD_TIMINGS"
PHASES = ("frontend", "IR optimization", "AD", "code generator import", "LLVM IR emission",
          "cache", "LLVM optimization", "machine code", "linking", "wrapper build")


def enabled() -> bool:
    """Whether `PYAD_TIMINGS` asks for a line per compiled unit (any value but empty or 0)."""
    return os.environ.get(ENV_VAR, "") not in ("", "0")


class Timings:
    """Seconds per phase of one signature, summed over its compiled units (module docstring).
    Thread-safe: two threads may compile units of one signature at once."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = dict.fromkeys(PHASES, 0.0)
        self.total = 0.0
        self._lock = threading.Lock()
        self._local = threading.local()  # the open phases of this thread (a stack)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Charge the time inside the block to `name`, minus the nested phases' time."""
        stack = self._local.__dict__.setdefault("stack", [])
        t0 = time.perf_counter()
        stack.append(0.0)  # time spent in nested phases
        try:
            yield
        finally:
            spent = time.perf_counter() - t0
            nested = stack.pop()
            if stack:
                stack[-1] += spent
            with self._lock:
                self.seconds[name] += spent - nested

    @contextmanager
    def step(self, what: str) -> Iterator[None]:
        """One compile step (a unit, or the IR shared by several): adds its wall time to the
        total and, with `PYAD_TIMINGS` set, prints the phases it spent to stderr (those of
        the steps nested in it too: the IR a unit needs is made inside the unit's step; only
        the outermost step adds to the total)."""
        with self._lock:
            before = dict(self.seconds)
        steps = self._local.__dict__.setdefault("steps", [])
        steps.append(what)
        t0 = time.perf_counter()
        try:
            yield
        finally:
            spent = time.perf_counter() - t0
            steps.pop()
            with self._lock:
                if not steps:
                    self.total += spent
                delta = {k: self.seconds[k] - before[k] for k in PHASES}
            if enabled():
                parts = ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in delta.items() if v > 0)
                print(f"pyad: compiled {what} in {spent * 1e3:.1f} ms: {parts}",
                      file=sys.stderr, flush=True)

    def as_dict(self) -> dict[str, float]:
        """Seconds per phase (every phase, zero if it did not run) and the "total"."""
        with self._lock:
            return {**self.seconds, "total": self.total}


def phase(timings: Timings | None, name: str):
    """`timings.phase(name)`, or a block that times nothing when `timings` is None."""
    return nullcontext() if timings is None else timings.phase(name)
