"""A seeded generator of random programs inside pyad's documented subset.

A program is a module: `import math`, `import numpy as np`, a few helper functions (inlined
by pyad; one may be recursive), and the function under test `f(x, y, a[, n])`: floats `x`,
`y`, a float array `a` of a length N fixed per program, sometimes a float (N, 2) array `b`,
and sometimes an int `n` used as a loop bound. `f` returns a float.

What the bodies are made of (each kind has a weight; `Features` turns kinds off):
scalars and math functions chosen to stay inside their domains (`log(1 + e*e)`, division by
`1.5 + cos(e)`, ...), branches (`if`/`elif`/`else`, `a if c else b`, `and`/`or`),
`for i in range(...)` (ascending, descending, empty, bounded by `n` or `len(a)`), `while`
loops with a counter, `break`, `continue`, early `return` from inside loops and branches,
local arrays written and overwritten element by element (indices in bounds, negative ones
too), fill loops, 2-D arrays (`m[i, j]`, rows `m[i]` and columns `m[:, j]` as views), views (`v = sc[1:3]`, written through), buffer swaps, copies, whole-array
expressions (`np.tanh(a) * s + sc`, `np.where`, `np.maximum`, `@`, `np.sum`, `np.dot`,
`np.max`, `np.mean`), tuple assignments and swaps, helper calls with tuple results, and
recursion on numbers.

A scope model keeps every program valid: a name is read only after it was assigned on every
path to the read (names first assigned inside a loop or branch are not read after it), int
names only index arrays or count, every index is in bounds, and argument arrays are never
written. The generator itself never runs a program.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

import numpy as np

CONSTS = ["0.5", "1.25", "-0.75", "2.0", "0.3", "-1.5", "3.0", "0.1"]


@dataclass(frozen=True)
class Features:
    """Which parts of the subset the programs use (all on by default)."""
    branches: bool = True
    loops: bool = True
    while_loops: bool = True
    jumps: bool = True          # break, continue, early return
    arrays: bool = True         # local arrays, element stores, fills
    views: bool = True
    whole_array: bool = True
    helpers: bool = True
    recursion: bool = True
    int_arg: bool = True
    matrices: bool = True       # 2-D arrays: element access, row and column views


@dataclass
class Program:
    seed: int
    source: str
    args: tuple        # (x, y, a[, n]) as Python/NumPy values
    names: tuple[str, ...]


@dataclass
class IntVar:
    name: str
    lo: int            # smallest and largest value it can hold where it is visible
    hi: int


@dataclass
class Arr:
    name: str
    length: int
    writable: bool


@dataclass
class Mat:
    """A 2-D array of shape (rows, cols)."""
    name: str
    rows: int
    cols: int
    writable: bool


@dataclass
class Scope:
    floats: list[str] = field(default_factory=list)
    ints: list[IntVar] = field(default_factory=list)
    arrays: list[Arr] = field(default_factory=list)
    matrices: list[Mat] = field(default_factory=list)
    in_loop: bool = False
    returns: str = "float"      # "float" or "pair": what a `return` in this function gives
    depth: int = 0              # nesting of compound statements

    def child(self, **kw) -> "Scope":
        return replace(self, floats=list(self.floats), ints=list(self.ints),
                       arrays=list(self.arrays), matrices=list(self.matrices),
                       depth=self.depth + 1, **kw)


@dataclass
class Helper:
    name: str
    params: tuple[str, ...]      # "f" float, "a" array (of the program's length N)
    returns: str                 # "float" or "pair"
    recursive: bool = False


class Generator:
    def __init__(self, seed: int, features: Features = Features()) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.f = features
        self.n = self.rng.choice([3, 4, 5])
        self.counter = 0
        self.helpers: list[Helper] = []
        self.budget = 0                 # statements left for the function being written

    # ------------------------------------------------------------------ names
    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # ------------------------------------------------------------------ the program
    def program(self) -> Program:
        rng = self.rng
        parts = ["import math", "import numpy as np", ""]
        if self.f.helpers:
            for _ in range(rng.choice([0, 0, 1, 1, 2])):
                parts += self.helper(), ""
        if self.f.recursion and self.chance(0.25):
            parts += self.recursive_helper(), ""
        with_n = self.f.int_arg and self.chance(0.3)
        with_b = self.f.matrices and self.chance(0.3)
        names = ("x", "y", "a") + (("b",) if with_b else ()) + (("n",) if with_n else ())
        scope = Scope(floats=["x", "y"], arrays=[Arr("a", self.n, False)])
        if with_b:
            scope.matrices.append(Mat("b", self.n, 2, False))
        if with_n:
            scope.ints.append(IntVar("n", 0, 4))
        self.budget = rng.randint(4, 14)
        body = self.prologue(scope) + self.block(scope, top=True)
        body.append(f"return {self.expr(scope)} + {self.everything(scope)}")
        parts.append(f"def f({', '.join(names)}):")
        parts += ["    " + line for line in body]
        x, y = (round(rng.uniform(-1.5, 1.5), 3) for _ in range(2))
        a = np.array([round(rng.uniform(-1.5, 1.5), 3) for _ in range(self.n)])
        b = np.array([[round(rng.uniform(-1.5, 1.5), 3) for _ in range(2)]
                      for _ in range(self.n)])
        args = (x, y, a) + ((b,) if with_b else ()) + ((rng.randint(0, 4),) if with_n else ())
        return Program(self.seed, "\n".join(parts) + "\n", args, names)

    def prologue(self, scope: Scope) -> list[str]:
        """Locals every later statement may use: float accumulators and scratch arrays."""
        lines = []
        for _ in range(self.rng.randint(1, 3)):
            name = self.fresh("s")
            lines.append(f"{name} = {self.rng.choice(['0.0', '1.0', 'x', 'y * 0.5'])}")
            scope.floats.append(name)
        if self.f.arrays:
            for _ in range(self.rng.choice([0, 1, 1, 2])):
                name = self.fresh("sc")
                init = self.rng.choice([f"np.zeros({self.n})", "np.zeros(len(a))",
                                        "a.copy()", f"np.ones({self.n})", "np.zeros_like(a)"])
                lines.append(f"{name} = {init}")
                scope.arrays.append(Arr(name, self.n, True))
        if self.f.matrices and self.chance(0.3):
            name = self.fresh("m")
            init = self.rng.choice([f"np.zeros(({self.n}, 2))", "np.ones((len(a), 2))"]
                                   + (["b.copy()"] if scope.matrices else []))
            lines.append(f"{name} = {init}")
            scope.matrices.append(Mat(name, self.n, 2, True))
        return lines

    def helper(self) -> str:
        rng = self.rng
        name = self.fresh("h")
        params = tuple(rng.choice(["f", "f", "a"]) for _ in range(rng.randint(1, 3)))
        if "f" not in params:
            params = ("f",) + params
        returns = rng.choice(["float", "float", "pair"])
        # p and u are no prefixes of fresh(): a local never takes a parameter's name
        names = [f"p{k}" if p == "f" else f"u{k}" for k, p in enumerate(params)]
        scope = Scope(floats=[m for m, p in zip(names, params) if p == "f"],
                      arrays=[Arr(m, self.n, False) for m, p in zip(names, params) if p == "a"],
                      returns=returns)
        self.budget = rng.randint(1, 5)
        body = self.block(scope, top=True)
        body.append("return " + self.result(scope))
        self.helpers.append(Helper(name, params, returns))
        return f"def {name}({', '.join(names)}):\n" + "\n".join("    " + b for b in body)

    def recursive_helper(self) -> str:
        name = self.fresh("r")
        scope = Scope(floats=["p"])
        step = self.expr(scope, 2)
        extra = self.expr(scope, 1)
        combine = self.rng.choice([f"{name}({step}, m - 1) * 0.5 + {extra}",
                                   f"math.tanh({name}({step}, m - 1)) + {extra}",
                                   f"{name}({step}, m - 1)"])
        self.helpers.append(Helper(name, ("f", "i"), "float", recursive=True))
        return (f"def {name}(p, m):\n    if m <= 0:\n        return {self.expr(scope, 1)}\n"
                f"    return {combine}")

    def result(self, scope: Scope) -> str:
        if scope.returns == "pair":
            return f"{self.expr(scope)}, {self.expr(scope)}"
        if self.chance(0.5):
            return f"{self.expr(scope)} + {self.everything(scope)}"
        return self.expr(scope)

    def everything(self, scope: Scope) -> str:
        """A sum over every float and array in scope, so that nothing computed is dead and
        every value reaches the gradient (weights keep the terms apart)."""
        terms = [f"{self.rng.choice(['0.3', '0.7', '-0.45', '1.1'])} * {v}"
                 for v in scope.floats]
        for arr in scope.arrays + scope.matrices:
            terms.append(self.rng.choice([f"np.sum({arr.name} * {arr.name})",
                                          f"np.sum(np.sin({arr.name}))",
                                          f"0.5 * np.sum({arr.name})"]))
        return " + ".join(terms) if terms else "0.0"

    # ------------------------------------------------------------------ statements
    def block(self, scope: Scope, top: bool = False) -> list[str]:
        lines: list[str] = []
        count = self.rng.randint(1, 4) if not top else max(1, self.budget)
        for _ in range(count):
            if self.budget <= 0 and lines:
                break
            self.budget -= 1
            lines += self.statement(scope)
        return lines or ["pass"]

    def statement(self, scope: Scope) -> list[str]:
        kinds = {"assign": 6, "new": 3, "aug": 4, "tuple": 1}
        nested = scope.depth < 3
        if self.f.branches and nested:
            kinds["if"] = 3
        if self.f.loops and nested:
            kinds["for"] = 4
        if self.f.while_loops and nested:
            kinds["while"] = 1
        if self.f.jumps and scope.in_loop:
            kinds["jump"] = 2
        if self.f.jumps and scope.depth > 0:
            kinds["return"] = 1
        writable = [a for a in scope.arrays if a.writable]
        if self.f.arrays and writable:
            kinds["store"] = 5
            if nested:
                kinds["fill"] = 2
        if self.f.arrays and self.f.whole_array and scope.arrays:
            kinds["array_assign"] = 2
        if self.f.arrays and len([a for a in writable if a.length == self.n]) >= 2:
            kinds["swap"] = 1
        if self.f.views and scope.arrays:
            kinds["view"] = 1
        if scope.matrices:
            kinds["matrix_view"] = 1
            if any(m.writable for m in scope.matrices):
                kinds["matrix_store"] = 3
                kinds["matrix_assign"] = 1
                if nested:
                    kinds["matrix_fill"] = 1
        if self.callable(scope, "pair"):
            kinds["call_pair"] = 1
        kind = self.rng.choices(list(kinds), weights=list(kinds.values()))[0]
        return getattr(self, "st_" + kind)(scope)

    def st_assign(self, scope: Scope) -> list[str]:
        return [f"{self.rng.choice(scope.floats)} = {self.expr(scope)}"]

    def st_new(self, scope: Scope) -> list[str]:
        name = self.fresh("t")
        line = f"{name} = {self.expr(scope)}"
        scope.floats.append(name)
        return [line]

    def st_aug(self, scope: Scope) -> list[str]:
        op = self.rng.choice(["+=", "+=", "-=", "*="])
        e = self.expr(scope) if op != "*=" else self.bounded(scope)
        return [f"{self.rng.choice(scope.floats)} {op} {e}"]

    def st_tuple(self, scope: Scope) -> list[str]:
        if len(scope.floats) >= 2 and self.chance(0.5):
            u, v = self.rng.sample(scope.floats, 2)
            return [f"{u}, {v} = {v}, {u}"]
        u = self.rng.choice(scope.floats)
        t = self.fresh("t")
        line = f"{t}, {u} = ({self.expr(scope)}, {self.expr(scope)})"
        scope.floats.append(t)
        return [line]

    def st_call_pair(self, scope: Scope) -> list[str]:
        h = self.rng.choice(self.callable(scope, "pair"))
        u = self.rng.choice(scope.floats)
        t = self.fresh("t")
        line = f"{t}, {u} = {self.call(h, scope)}"
        scope.floats.append(t)
        return [line]

    def st_if(self, scope: Scope) -> list[str]:
        lines = [f"if {self.cond(scope)}:"]
        lines += self.indent(self.block(scope.child()))
        for _ in range(self.rng.choice([0, 0, 1])):
            lines += [f"elif {self.cond(scope)}:"] + self.indent(self.block(scope.child()))
        if self.chance(0.6):
            lines += ["else:"] + self.indent(self.block(scope.child()))
        return lines

    def loop_range(self, scope: Scope) -> tuple[str, int, int]:
        """A range() call and the bounds of its counter; counters stay inside [0, N)."""
        n = self.n
        r = self.rng.randrange(7)
        if r == 0:
            k = self.rng.randint(0, n)
            return f"range({k})", 0, max(k - 1, 0)
        if r == 1:
            lo = self.rng.randint(0, n - 1)
            hi = self.rng.randint(lo, n)
            return f"range({lo}, {hi})", lo, max(hi - 1, lo)
        if r == 2:
            return f"range({n} - 1, -1, -1)", 0, n - 1
        full = self.full_length(scope)
        if r == 3 and full:
            return f"range(len({full}))", 0, n - 1
        if r == 4 and full:
            return f"range(1, len({full}), 2)", 1, n - 1
        ns = [v for v in scope.ints if v.name == "n"]
        if r == 5 and ns:
            return "range(n)", 0, 3
        return f"range({self.rng.randint(1, 3)})", 0, 2

    def st_for(self, scope: Scope) -> list[str]:
        i = self.fresh("i")
        rng_text, lo, hi = self.loop_range(scope)
        inner = scope.child(in_loop=True)
        inner.ints.append(IntVar(i, lo, hi))
        first = []
        if self.f.arrays and any(a.writable for a in scope.arrays) and self.chance(0.3):
            first = self.fill_and_reduce(inner)  # scratch refilled each trip: common
        return [f"for {i} in {rng_text}:"] + self.indent(first + self.block(inner))

    def fill_and_reduce(self, scope: Scope) -> list[str]:
        """A fill of a scratch array, then a reduction of it into a float: the body of most
        numerical loops (`d[j] = x[j] - mu[j]`, then `s += d[j] * d[j]` or `np.dot(d, d)`)."""
        lines = self.st_fill(scope)
        sc = lines[1].split("[")[0].strip()
        arr = next(a for a in scope.arrays if a.name == sc)
        acc = self.rng.choice(scope.floats)
        k, m = self.index(scope, arr.length), self.index(scope, arr.length)
        lines.append(self.rng.choice([f"{acc} = {acc} + {sc}[{k}] * {sc}[{m}]",
                                      f"{acc} += np.dot({sc}, {sc})",
                                      f"{acc} += math.tanh({sc}[{k}]) * {sc}[{m}]"]))
        return lines

    def st_while(self, scope: Scope) -> list[str]:
        k = self.fresh("k")
        bound = self.rng.randint(0, 3)
        inner = scope.child(in_loop=True)
        inner.ints.append(IntVar(k, 1, max(bound, 1)))
        if self.chance(0.5):
            head = [f"{k} = 0", f"while {k} < {bound}:", f"    {k} += 1"]
        else:
            head = [f"{k} = 0", "while True:", f"    {k} += 1",
                    f"    if {k} > {bound}:", "        break"]
        return head + self.indent(self.block(inner))

    def st_jump(self, scope: Scope) -> list[str]:
        word = self.rng.choice(["break", "continue"])
        return [f"if {self.cond(scope)}:", f"    {word}"]

    def st_return(self, scope: Scope) -> list[str]:
        return [f"if {self.cond(scope)}:", f"    return {self.result(scope)}"]

    def st_store(self, scope: Scope) -> list[str]:
        arr = self.rng.choice([a for a in scope.arrays if a.writable])
        op = self.rng.choice(["=", "=", "+=", "-=", "*="])
        e = self.expr(scope) if op != "*=" else self.bounded(scope)
        return [f"{arr.name}[{self.index(scope, arr.length)}] {op} {e}"]

    def st_fill(self, scope: Scope) -> list[str]:
        arr = self.rng.choice([a for a in scope.arrays if a.writable])
        j = self.fresh("j")
        inner = scope.child(in_loop=True)
        inner.ints.append(IntVar(j, 0, arr.length - 1))
        full = self.full_length(scope)
        bound = self.rng.choice([f"len({arr.name})", str(arr.length)]
                                + ([f"len({full})"] if arr.length == self.n and full else []))
        op = self.rng.choice(["=", "=", "=", "+="])
        e = self.expr(inner, 2) if self.chance(0.5) else self.arithmetic(inner, 2)
        sources = [a.name for a in scope.arrays if a.length == arr.length]
        if sources and self.chance(0.7):  # the usual fill: element j of another array, and
            outer = [v.name for v in scope.ints if v.name != j]  # maybe the outer counter
            extra = f" + {self.rng.choice(outer)} * 0.5" if outer and self.chance(0.4) else ""
            e = f"{self.rng.choice(sources)}[{j}] {self.rng.choice(['*', '+', '-'])} {e}{extra}"
        return [f"for {j} in range({bound}):", f"    {arr.name}[{j}] {op} {e}"]

    def full_length(self, scope: Scope) -> str | None:
        """The name of an array of the program's length N in scope (for `len(...)`)."""
        full = [a.name for a in scope.arrays if a.length == self.n]
        return self.rng.choice(full) if full else None

    def st_array_assign(self, scope: Scope) -> list[str]:
        length = self.n
        e = self.array_expr(scope, length)
        if any(a.name == e and not a.writable for a in scope.arrays):
            e += ".copy()"  # a bare alias of an argument would let stores write into it
        targets = [a for a in scope.arrays if a.writable and a.length == length]
        if targets and self.chance(0.5):
            t = self.rng.choice(targets)
            return [f"{t.name} = {e}"]
        name = self.fresh("w")
        scope.arrays.append(Arr(name, length, True))
        return [f"{name} = {e}"]

    def st_swap(self, scope: Scope) -> list[str]:
        u, v = self.rng.sample([a for a in scope.arrays if a.writable and a.length == self.n], 2)
        return [f"{u.name}, {v.name} = {v.name}, {u.name}"]

    def st_view(self, scope: Scope) -> list[str]:
        base = self.rng.choice(scope.arrays)
        lo = self.rng.randint(0, base.length - 1)
        hi = self.rng.randint(lo + 1, base.length)
        name = self.fresh("v")
        scope.arrays.append(Arr(name, hi - lo, base.writable))
        return [f"{name} = {base.name}[{lo}:{hi}]"]

    def st_matrix_store(self, scope: Scope) -> list[str]:
        m = self.rng.choice([m for m in scope.matrices if m.writable])
        op = self.rng.choice(["=", "=", "+=", "-="])
        return [f"{m.name}[{self.index(scope, m.rows)}, {self.index(scope, m.cols)}] {op} "
                f"{self.expr(scope)}"]

    def st_matrix_fill(self, scope: Scope) -> list[str]:
        m = self.rng.choice([m for m in scope.matrices if m.writable])
        i, j = self.fresh("i"), self.fresh("j")
        inner = scope.child(in_loop=True)
        inner.ints += [IntVar(i, 0, m.rows - 1), IntVar(j, 0, m.cols - 1)]
        return [f"for {i} in range({m.rows}):", f"    for {j} in range({m.cols}):",
                f"        {m.name}[{i}, {j}] = {self.expr(inner, 2)}"]

    def st_matrix_assign(self, scope: Scope) -> list[str]:
        m = self.rng.choice(scope.matrices)
        e = self.rng.choice([f"np.tanh({m.name}) * {self.expr(scope, 1)}",
                             f"{m.name} * {m.name} + {self.expr(scope, 1)}",
                             f"np.sin({m.name}) - {m.name}"])
        targets = [t for t in scope.matrices if t.writable and (t.rows, t.cols) == (m.rows, m.cols)]
        if targets and self.chance(0.5):
            return [f"{self.rng.choice(targets).name} = {e}"]
        name = self.fresh("m")
        scope.matrices.append(Mat(name, m.rows, m.cols, True))
        return [f"{name} = {e}"]

    def st_matrix_view(self, scope: Scope) -> list[str]:
        m = self.rng.choice(scope.matrices)
        name = self.fresh("v")
        if self.chance(0.5):
            scope.arrays.append(Arr(name, m.cols, m.writable))
            return [f"{name} = {m.name}[{self.index(scope, m.rows)}]"]
        scope.arrays.append(Arr(name, m.rows, m.writable))
        return [f"{name} = {m.name}[:, {self.index(scope, m.cols)}]"]

    @staticmethod
    def indent(lines: list[str]) -> list[str]:
        return ["    " + line for line in lines]

    # ------------------------------------------------------------------ expressions
    def index(self, scope: Scope, length: int) -> str:
        ok = [v for v in scope.ints if -length <= v.lo and v.hi <= length - 1]
        anyint = scope.ints
        r = self.rng.randrange(5)
        if r <= 1 and ok:
            v = self.rng.choice(ok)
            if r == 1 and v.lo >= 0:
                return f"{length} - 1 - {v.name}"
            return v.name
        if r == 2 and anyint:
            return f"({self.rng.choice(anyint).name} + {self.rng.randint(0, 3)}) % {length}"
        return str(self.rng.randint(-length, length - 1))

    def leaf(self, scope: Scope) -> str:
        r = self.rng.randrange(10)
        if r < 4:
            return self.rng.choice(scope.floats)
        if r < 7 and scope.arrays:
            arr = self.rng.choice(scope.arrays)
            return f"{arr.name}[{self.index(scope, arr.length)}]"
        if r == 8 and scope.matrices:
            m = self.rng.choice(scope.matrices)
            return f"{m.name}[{self.index(scope, m.rows)}, {self.index(scope, m.cols)}]"
        if r == 7 and scope.ints:
            return f"{self.rng.choice(scope.ints).name} * 0.5"
        return self.rng.choice(CONSTS)

    def arithmetic(self, scope: Scope, depth: int) -> str:
        """+, - and * of leaves only (what `d[j] = x[j] - mu[j]` is made of)."""
        if depth <= 0 or self.chance(0.3):
            return self.leaf(scope)
        op = self.rng.choice([" + ", " - ", " * "])
        return f"({self.arithmetic(scope, depth - 1)}{op}{self.arithmetic(scope, depth - 1)})"

    def bounded(self, scope: Scope) -> str:
        """A factor of magnitude below 1.5, so that `*=` in loops does not overflow."""
        return self.rng.choice(["math.tanh({})", "math.sin({})", "math.cos({})",
                                "(0.5 + 0.25 * math.atan({}))"]).format(self.expr(scope, 2))

    def expr(self, scope: Scope, depth: int | None = None) -> str:
        if depth is None:
            depth = self.rng.randint(1, 3)
        if depth <= 0 or self.chance(0.2):
            return self.leaf(scope)
        r = self.rng.randrange(20)
        sub = lambda: self.expr(scope, depth - 1)  # noqa: E731
        if r < 6:
            return self.rng.choice(UNARY).format(sub())
        if r < 12:
            return self.rng.choice(BINARY).format(sub(), sub())
        if r < 14:
            return f"({sub()} if {self.cond(scope, depth - 1)} else {sub()})"
        if r < 16 and self.f.whole_array and (scope.arrays or scope.matrices):
            return self.reduction(scope, depth - 1)
        callable_ = self.callable(scope, "float")
        if r < 18 and callable_:
            return self.call(self.rng.choice(callable_), scope, depth - 1)
        return self.leaf(scope)

    def callable(self, scope: Scope, returns: str) -> list[Helper]:
        """The helpers returning `returns` that this scope has arguments for."""
        full = any(a.length == self.n for a in scope.arrays)
        return [h for h in self.helpers if h.returns == returns and (full or "a" not in h.params)]

    def call(self, h: Helper, scope: Scope, depth: int = 1) -> str:
        args = []
        for p in h.params:
            if p == "f":
                args.append(self.expr(scope, depth))
            elif p == "i":
                ints = [v for v in scope.ints if v.lo >= 0 and v.hi <= 4]
                args.append(self.rng.choice(ints).name if ints and self.chance(0.5)
                            else str(self.rng.randint(0, 3)))
            else:
                args.append(self.full_length(scope))
        return f"{h.name}({', '.join(args)})"

    def cond(self, scope: Scope, depth: int = 1) -> str:
        r = self.rng.randrange(6)
        if r == 0 and scope.ints:
            v = self.rng.choice(scope.ints)
            return f"{v.name} % 2 == {self.rng.randint(0, 1)}"
        c = self.rng.choice(["0.0", "0.5", "-0.25", "1.0"])
        base = f"{self.expr(scope, depth)} {self.rng.choice(['>', '<', '>='])} {c}"
        if r == 1:
            return f"{base} and {self.expr(scope, depth)} < {self.rng.choice(CONSTS)}"
        if r == 2:
            return f"{base} or {self.expr(scope, depth)} > {self.rng.choice(CONSTS)}"
        if r == 3:
            return f"not ({base})"
        if r == 4 and self.chance(0.3):
            return f"-0.5 < {self.expr(scope, depth)} <= {self.rng.choice(['0.5', '1.0'])}"
        return base

    def reduction(self, scope: Scope, depth: int) -> str:
        if scope.matrices and self.chance(0.25):
            m = self.rng.choice(scope.matrices).name
            return self.rng.choice([f"np.sum({m})", f"np.sum({m} * {m})", f"np.max({m})",
                                    f"np.mean(np.tanh({m}))"])
        arr = self.rng.choice(scope.arrays)
        r = self.rng.randrange(6)
        a = self.array_expr(scope, arr.length, depth, arr)
        if r == 0:
            return f"np.sum({a})"
        if r == 1:
            b = self.array_expr(scope, arr.length, depth)
            return f"np.dot({a}, {b})"
        if r == 2:
            b = self.array_expr(scope, arr.length, depth)
            return f"({a} @ {b})"
        if r == 3:
            return f"np.max({a})"
        if r == 4:
            return f"np.mean({a})"
        return f"np.sum({a} * {a})"

    def array_expr(self, scope: Scope, length: int, depth: int = 2,
                   start: Arr | None = None) -> str:
        same = [a for a in scope.arrays if a.length == length]
        if start is None and not same:
            return f"np.ones({length})"
        base = (start or self.rng.choice(same)).name
        if depth <= 0 or self.chance(0.3):
            return base
        sub = lambda: self.array_expr(scope, length, depth - 1)  # noqa: E731
        r = self.rng.randrange(8)
        if r == 0:
            return f"np.{self.rng.choice(['sin', 'tanh', 'cos', 'arctan'])}({sub()})"
        if r == 1:
            return f"({sub()} * {self.expr(scope, 1)})"
        if r == 2:
            return f"({sub()} + {sub()})"
        if r == 3:
            return f"({sub()} * {sub()})"
        if r == 4:
            return f"np.maximum({sub()}, {sub()})"
        if r == 5:
            return f"np.where({sub()} > {self.rng.choice(CONSTS)}, {sub()}, {self.expr(scope, 1)})"
        if r == 6:
            return f"np.exp(np.tanh({sub()}))"
        return f"({sub()} - {self.expr(scope, 1)})"


UNARY = ["math.sin({})", "math.cos({})", "math.tanh({})", "math.exp(math.tanh({}))",
         "math.log(1.0 + {0} * {0})", "math.sqrt(1.0 + {0} * {0})", "math.atan({})",
         "(-{})", "({} * 0.5)", "math.erf({})", "math.asinh({})", "abs({})", "({} ** 2)",
         "math.exp(-{0} * {0})", "math.log1p(math.exp({0} * 0.1) - 0.5)",
         "({} % 1.5)", "({} // 0.75)", "(math.floor({}) * 0.5)", "((1.0 + {0} * {0}) ** 0.75)"]
BINARY = ["({} + {})", "({} - {})", "({} * {})", "({} / (1.5 + math.cos({})))",
          "math.hypot({}, 1.0 + {})", "math.atan2({}, 2.0 + math.tanh({}))",
          "max({}, {})", "min({}, {})", "({} - 0.5 * {})"]


def generate(seed: int, features: Features = Features()) -> Program:
    return Generator(seed, features).program()
