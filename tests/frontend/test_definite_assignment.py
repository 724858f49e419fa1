"""Definite assignment as CPython defines it: a read is refused only when some path that
reaches it leaves the name unassigned; paths that left through `return`, `break` or
`continue` do not count. The oracle is CPython itself, run on every path of small generated
programs whose every condition reads a fresh input bit (so every path of the program's
control flow is taken by some input)."""
import inspect
import itertools
import random
import textwrap

import numpy as np
import pytest

import pyad
from ..modules import load_module

VARS = ("a", "b", "c")
MAX_BITS = 9        # programs whose paths read more bits are not generated (2**9 inputs each)
TRIPS = (0, 1, 2)   # values of the argument `n` (the trip count of `range(n)` loops)


# ----------------------------------------------------------------------------- the programs

class Program:
    """A random function `f(x, bits, n)` of ifs, range loops, break/continue/return and
    assignments to and reads of a, b, c; `k += 1` before each condition moves to a fresh
    bit."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.loops = 0

    def source(self) -> str:
        first = [f"{v} = x * 0.5" for v in VARS if self.rng.random() < 0.25]
        body = first + self.block(depth=0, in_loop=False)
        body.append(f"return s + {self.rng.choice(VARS)}")
        lines = ["def f(x, bits, n):", "    s = x", "    k = -1"] + ["    " + ln for ln in body]
        return "\n".join(lines) + "\n"

    def block(self, depth: int, in_loop) -> list[str]:
        """Statements; `in_loop` is "top" for the top level of a loop body."""
        out = []
        for _ in range(self.rng.randint(1, 3)):
            out += self.stmt(depth, in_loop)
            if out and out[-1].split()[0] in ("return", "break", "continue"):
                break
        return out

    def stmt(self, depth: int, in_loop) -> list[str]:
        r, v = self.rng.random(), self.rng.choice(VARS)
        if r < 0.35:
            return [f"{v} = x * {self.rng.randint(2, 9)} + s"]
        if r < 0.45:
            return [f"s = s + {v}"]
        if r < 0.75 and depth < 3:
            inner = in_loop and True
            lines = ["k += 1", "if bits[k] > 0.5:"] + indent(self.block(depth + 1, inner))
            if self.rng.random() < 0.6:
                lines += ["else:"] + indent(self.block(depth + 1, inner))
            return lines
        if r < 0.85 and depth < 2 and self.loops < 2:
            self.loops += 1
            trips = self.rng.choice(["n", "n", "2", "1"])
            return [f"for i{depth} in range({trips}):"] + indent(self.block(depth + 1, "top"))
        if in_loop and r < 0.95:
            return [self.rng.choice(["break", "continue"])]
        if in_loop == "top":   # `for ...: return` would leave the code after the loop dead
            return [f"s = s * {v}"]
        return [f"return s + {v}" if self.rng.random() < 0.5 else "return s"]


def indent(lines: list[str]) -> list[str]:
    return ["    " + ln for ln in lines]


def bits_read(src: str) -> int:
    """An upper bound on the bits one call reads: each `if` once per enclosing-loop trip."""
    total, trips = 0, []
    for line in src.splitlines()[1:]:
        depth = (len(line) - len(line.lstrip())) // 4
        trips = trips[:depth - 1]
        if "in range(" in line:
            n = line.split("range(")[1].rstrip("):")
            trips.append(max(TRIPS) if n == "n" else int(n))
        elif line.strip().startswith("if bits"):
            total += int(np.prod(trips)) if trips else 1
    return total


def programs(seed: int, count: int):
    rng = random.Random(seed)
    while count:
        src = Program(rng).source()
        if bits_read(src) <= MAX_BITS:
            count -= 1
            yield src


# ----------------------------------------------------------------------------- the oracle

def cpython_runs(fn) -> tuple[list, bool]:
    """Every (input, result) of `fn` over all bit patterns and trip counts, and whether any
    path read an unbound name."""
    runs, unbound = [], False
    for n in TRIPS:
        for pattern in itertools.product((0.0, 1.0), repeat=MAX_BITS):
            args = (1.25, np.array(pattern), n)
            try:
                runs.append((args, fn(*args)))
            except (UnboundLocalError, NameError):   # NameError: never assigned anywhere
                unbound = True
                break
        if unbound:
            break
    return runs, unbound


@pytest.mark.parametrize("seed", range(8))
def test_refused_exactly_when_cpython_can_raise_unbound_local(seed, tmp_path):
    """Each program: if some input makes CPython raise UnboundLocalError, pyad refuses it
    at compile time with a located message; otherwise pyad compiles it and agrees with
    CPython on every input."""
    for i, src in enumerate(programs(seed, 40)):
        fn = load_module(tmp_path / f"p{seed}_{i}.py", src).f
        runs, unbound = cpython_runs(fn)
        compiled = pyad.jit_grad(fn)
        if unbound:
            with pytest.raises(pyad.PyadSyntaxError,
                               match="UnboundLocalError|is not defined") as info:
                compiled(*runs[0][0] if runs else (1.25, np.zeros(MAX_BITS), 0))
            assert info.value.line is not None, src
            continue
        for args, want in runs:
            assert compiled(*args) == want, (src, args)
        args = runs[-1][0]
        assert compiled.grad(*args) == pytest.approx(
            (fn(args[0] + 1e-6, *args[1:]) - fn(args[0] - 1e-6, *args[1:])) / 2e-6), src


# ----------------------------------------------------------------------------- by hand

def leaves_inner_branch_by_return(x):
    if x > 0.5:
        if x > 2.0:
            return x
        t = 0.8
    else:
        t = x * 2.0
    return t * x


def assigns_after_continue_guard(x, n):
    s = 0.0
    for i in range(n):
        if i % 3 == 0:
            continue
        u = x * i
        s += u
    return s


def assigns_after_break_guard(x, n):
    s = 0.0
    for i in range(n):
        if s > 10.0:
            break
        u = x * i
        s += u * u
    return s


def literal_range_binds_its_names(x):
    for i in range(3):
        y = x * i
    return y + i


def newton_step_read_after_loop(x):
    while True:
        step = 0.5 * x
        x = x - step
        if step < 0.1:
            break
    return x + step


def array_and_tuple_bound_in_a_literal_range(x):
    for k in range(3):
        tmp = x * (k + 1.0)
        pair = (tmp[0] * k, np.sum(tmp))
    a, b = pair
    return np.sum(tmp * tmp) + a * b


@pytest.mark.parametrize("fn, args", [
    (array_and_tuple_bound_in_a_literal_range, (np.array([1.0, 2.0, 3.0]),)),
    (leaves_inner_branch_by_return, (0.7,)), (leaves_inner_branch_by_return, (3.0,)),
    (leaves_inner_branch_by_return, (0.2,)), (assigns_after_continue_guard, (1.5, 7)),
    (assigns_after_break_guard, (1.5, 9)), (literal_range_binds_its_names, (2.0,)),
    (newton_step_read_after_loop, (3.0,))])
def test_valid_programs_compile_and_agree(fn, args):
    f = pyad.jit_grad(fn)
    assert f(*args) == fn(*args)
    pyad.check_grad(f, *args)


def zero_trip_loop(x, n):
    for i in range(n):
        y = x * i
    return y


def break_before_assignment(x):
    while True:
        if x > 1.0:
            break
        t = x
        x = x * 2.0
    return t


def continue_before_assignment(x):
    for i in range(4):
        if x > i:
            continue
        t = x * i
    return t


def false_branch(x):
    if x > 1.0:
        t = 1.0
    return t


def read_before_assignment_in_the_body(x, n):
    s = 0.0
    for i in range(n):
        if i > 0:
            s += prev
        prev = x * i
    return s


def shadows_a_global(x):
    y = x * MAX_BITS   # a local: CPython never reads the global of that name
    MAX_BITS = 2.0
    return y + MAX_BITS


@pytest.mark.parametrize("fn, args, name, path", [
    (zero_trip_loop, (1.0, 3), "y", "when the loop at line {0} runs zero times"),
    (break_before_assignment, (0.5,), "t", "ends at a `break` before assigning it"),
    (continue_before_assignment, (0.5,), "t", "ends at a `continue` before assigning it"),
    (false_branch, (2.0,), "t", "when the `if` at line {0} is false"),
    (read_before_assignment_in_the_body, (1.0, 3), "prev", "read before it is assigned"),
    (shadows_a_global, (1.0,), "MAX_BITS", "read before it is assigned")],
    ids=lambda v: getattr(v, "__name__", None))
def test_true_refusals_name_the_path(fn, args, name, path):
    src = textwrap.dedent(inspect.getsource(fn)).splitlines()
    first = fn.__code__.co_firstlineno
    line = first + next((i for i, s in enumerate(src)
                         if s.lstrip().startswith(("if", "for"))), 0)
    with pytest.raises(pyad.PyadSyntaxError, match="UnboundLocalError") as info:
        pyad.jit_grad(fn)(*args)
    err = info.value
    assert f"`{name}`" in err.bare_message and path.format(line) in err.bare_message
    assert err.filename == __file__ and err.line > first
