"""Random programs of lists, iteration and function values (issue 16), run by CPython and by
pyad: the values must agree on every input, and the gradients must pass finite differences
and the dot-product test (pyad.check_grad). The generator writes the spellings people write
(appends under conditions, comprehensions with filters, comprehensions over comprehensions,
map, enumerate/zip/reversed, lambdas
closing over locals, pops guarded by a length test), in random orders and nestings, so the
lowering is tested on programs nobody wrote by hand."""
import random

import numpy as np
import pytest

import pyad
from ..modules import load_module

SEEDS = range(6)
PER_SEED = 12


class Gen:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lists = ["L0"]
        self.funcs: list[str] = []
        self.tmp = 0

    def fresh(self, what: str) -> str:
        self.tmp += 1
        return f"{what}{self.tmp}"

    def scalar(self, names: list[str]) -> str:
        r = self.rng
        a, b = r.choice(names), r.choice(names)
        c = round(r.uniform(-1.5, 1.5), 2)
        return r.choice([f"{a} * {c}", f"{a} * {b}", f"{a} + {c}", f"math.sin({a}) * {b}",
                         f"{a} / (1.0 + {b} * {b})", f"math.exp(-{a} * {a})"])

    def stmt(self, depth: int, names: list[str], frozen: frozenset = frozenset()) -> list[str]:
        """Statements; the lists in `frozen` are being iterated over (not mutated)."""
        r = self.rng
        free = [n for n in self.lists if n not in frozen]
        L = r.choice(free) if free else None
        if L is None:
            return ["s += a"]
        kind = r.choice(["append_loop", "comp", "enum", "zip", "rev", "fold", "pop",
                         "lambda", "call", "branch_append", "new_list"]
                        if depth == 0 else   # names bound in a loop are not bound after it
                        ["fold", "pop", "call", "branch_append", "enum", "zip"])
        c = round(r.uniform(-0.8, 0.8), 2)
        if kind == "append_loop":
            body = self.scalar(["v", "a"] + names)
            return ["for v in x:", f"    if v > {c}:", f"        {L}.append({body})"]
        if kind == "comp":
            M = self.fresh("L")
            self.lists.append(M)
            src = r.choice(["x", L, f"reversed({L})", f"[t * {c} + a for t in {L}]",
                            f"list({L})", f"map(lambda t: t + {c}, {L})",
                            f"(t for t in x if t > {c})", f"list([t for t in {L}])"])
            return [f"{M} = [{self.scalar(['w', 'a'])} for w in {src} if w < {c + 1.0}]"]
        if kind == "enum":
            return [f"for i, w in enumerate({L}, {r.randint(0, 2)}):",
                    f"    s += i * {self.scalar(['w', 'a'])}"]
        if kind == "zip":
            M = r.choice(self.lists)
            return [f"for p, q in zip(x, {M}):", f"    s += p * q + {c}"]
        if kind == "rev":
            inner = self.stmt(depth + 1, names + ["u"], frozen | {L})
            return [f"for u in reversed({L}):"] + ["    " + ln for ln in inner] + \
                   ["    s = s * 0.5 + u"]
        if kind == "fold":
            f = r.choice(["sum", "max", "min"])
            guard = "" if f == "sum" else f" if len({L}) > 0 else 0.0"
            seq = r.choice([L, L, f"[w * {c} for w in [t + a for t in {L}]]",
                            f"map(abs, {L})"])
            return [f"s += {f}({seq}){guard}"]
        if kind == "pop":
            return [f"if len({L}) > 1:", f"    s += {L}.pop() * {c}"]
        if kind == "lambda":
            g = self.fresh("g")
            self.funcs.append(g)
            return [f"{g} = lambda t: {self.scalar(['t', 'a', 's'])}"]
        if kind == "call" and self.funcs:
            return [f"s += {r.choice(self.funcs)}({r.choice(names + ['a', 's'])})"]
        if kind == "branch_append":
            return [f"if s > {c}:", f"    {L}.append(s)", "else:",
                    f"    {L}.append(a * {c})", f"    {L}.append(s)"]
        if kind == "new_list":
            M = self.fresh("L")
            self.lists.append(M)
            return [f"{M} = [a, s, {c}]"]
        return ["s += a"]

    def source(self) -> str:
        lines = ["def f(x, a):", "    s = a", "    L0 = [a]"]
        for _ in range(self.rng.randint(3, 7)):
            lines += ["    " + ln for ln in self.stmt(0, ["s"])]
        tail = " + ".join(f"sum({L})" for L in self.lists)
        lines.append(f"    return s + {tail}")
        return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", SEEDS)
def test_random_idioms_agree_with_python(tmp_path, seed):
    rng = random.Random(seed)
    xs = [np.array(v, dtype=float) for v in ([0.3137, -0.6271, 0.9093, 0.1159], [-0.2213],
                                             [], [0.7351, 0.4419, -0.9027])]
    for k in range(PER_SEED):
        src = "import math\n\n\n" + Gen(rng).source()
        mod = load_module(tmp_path / f"idioms_{seed}_{k}.py", src)
        f = pyad.jit_grad(mod.f)
        for x in xs:
            a = rng.uniform(-1.0, 1.0)
            want = mod.f(x.copy(), a)
            got = f(x, a)
            assert got == pytest.approx(want, rel=1e-10, abs=1e-12), src
            try:   # inputs with many digits: no comparison sits on its threshold
                pyad.check_grad(f, x, a)
            except AssertionError as exc:
                raise AssertionError(f"{exc}\n{src}") from None
