"""How the IR printer names values: per printed function, in the order the text defines them
(params keep their names, temporaries are numbered, hinted names keep their hint), so the
text depends only on the IR's structure; loop notes name the values they mention the same
way. And the printed examples in README.md and docs/gradients.md are what pyad prints."""
from __future__ import annotations

import importlib.util
import math
import re
from pathlib import Path

import numpy as np
import pytest

import pyad
from pyad.ir import builder
from pyad.ir.builder import Builder, NameGen
from pyad.ir.nodes import F64, I64, Block, Func, Op, Var, While, print_names, walk
from pyad.ir.parse import parse_func
from pyad.ir.verify import verify

from ..golden_files import strip_locs

ROOT = Path(__file__).resolve().parents[2]


def f(a, b):
    """The README's example (the printed functions are named after it)."""
    return a / (a + b * b)


def branchy(x, y):
    if x >= 0:
        z = math.exp(-x)
        u = y / (1.0 + z)
    else:
        z = math.exp(x)
        u = z / (1.0 + z) * y
    return u * (x * y if y > x else math.log(y) * x)


def loops(x, n):
    s, i = x, 0
    for k in range(n):
        s = s * math.sin(s) + x * k
    while i < n:
        s = s * 0.5 + math.cos(s)
        i += 2
    return s


def shared(x, y):
    """sin(x) and cos(y) computed before the branch are reused in it (CSE)."""
    s = math.sin(x) + math.cos(y)
    if x > 0:
        r = math.sin(x) * math.cos(y)
    else:
        r = math.cos(y) - math.sin(x)
    return r + s


def shared_in_loops(x, n):
    """Values computed before two loops (an accumulating one, a taped one) read in them."""
    t = math.sin(x) + math.cos(x) * math.tanh(x)
    s, u = 0.0, x
    for i in range(n):
        s += math.sin(x) * math.cos(x) * math.tanh(x) * i
    for i in range(n):
        u = u * math.sin(x) + math.cos(x) * math.tanh(x)
    return s + t + u


def counted(x, n):
    s = x
    for k in range(n):
        s = s * math.sin(s) + k
    return s


def counted_after_more(x, n):
    unused = x * 2.0 + math.cos(x)  # lowered, then removed as dead code
    s = x
    for k in range(n):
        s = s * math.sin(s) + k
    return s


def helper(u):
    return u * math.tanh(u)


def calls(x, y):
    return helper(x) + helper(x * y)


def _func(names: dict[str, str]) -> Func:
    """x -> sin, mul, add, neg, with the temporaries named by `names`."""
    x = Var("x", F64)
    t, u, w, v = (Var(names[k], F64) for k in "tuwv")
    return Func("f", Block((x,), (Op((t,), "sin", (x,)), Op((u,), "mul", (t, x)),
                                  Op((w,), "add", (u, t)), Op((v,), "neg", (w,))), (v,)))


def test_values_are_named_in_definition_order():
    text = str(_func({"t": "17", "u": "s.40", "w": "5", "v": "s.3"}))
    assert text == ("func f(%x: f64) -> (f64) {\n"
                    "  %1: f64 = sin %x\n"
                    "  %s: f64 = mul %1, %x\n"
                    "  %2: f64 = add %s, %1\n"
                    "  %s.1: f64 = neg %2\n"
                    "  return %s.1\n"
                    "}\n")
    assert str(_func({"t": "3", "u": "s", "w": "4", "v": "s.9"})) == text
    assert str(parse_func(text)) == text


def test_names_keep_their_hint_and_its_suffixes():
    names = print_names(_func({"t": "a.d.12", "u": "7.d", "w": "a.d", "v": "ds.15.36"}))
    assert [names[n] for n in ("x", "a.d.12", "7.d", "a.d", "ds.15.36")] == \
        ["%x", "%a.d", "%1.d", "%a.d.1", "%ds"]


def test_a_loop_note_names_the_values_it_mentions_as_printed():
    n, x = Var("n", I64), Var("x", F64)
    i, s = Var("i.40", I64), Var("s.41", F64)
    one = Var("57", I64)
    nxt, t = Var("58", I64), Var("s.59", F64)
    loop = While((Var("i.70", I64), Var("s.71", F64)), (n, x),
                 Block((Var("i.50", I64), Var("s.51", F64)), (Op((Var("52", "bool"),), "gt",
                       (Var("i.50", I64), n)),), (Var("52", "bool"),)),
                 Block((i, s), (Op((one,), "const", (), (1,)), Op((nxt,), "sub", (i, one)),
                                Op((t,), "sin", (s,))), (nxt, t)),
                 note=("carries ", s, " to ", t))
    func = verify(Func("g", Block((n, x), (loop,), (Var("s.71", F64),))))
    text = str(func)
    assert "  # carries %s.2 to %s.3\n" in text
    assert str(parse_func(text)) == text
    b = Builder(NameGen({"n", "x"}))
    (copy,) = b.inline(func.block, [n, x])
    inlined = str(Func("g", Block((n, x), tuple(b.stmts), (copy,))))
    assert inlined == text  # the copy's note mentions the copy's values


def test_a_value_the_function_does_not_define_prints_as_unknown():
    x = Var("x", F64)
    assert str(Func("bad", Block((x,), (), (Var("12", F64),)))).splitlines()[1] == \
        "  return %?"


@pytest.mark.parametrize("fn, args", [(f, (2.0, 3.0)), (branchy, (0.7, 0.3)),
                                      (branchy, (-0.7, 0.3)), (loops, (0.3, 5)),
                                      (calls, (0.4, 1.5)), (shared, (0.5, 0.3)),
                                      (shared, (-0.5, 0.3)), (shared_in_loops, (0.5, 4))],
                         ids=["example", "branchy", "branchy-else", "loops", "calls", "shared",
                              "shared-else", "shared_in_loops"])
def test_printed_ir_does_not_depend_on_how_many_names_were_made_before(fn, args, monkeypatch):
    """The same function lowered and differentiated with every name counter starting
    elsewhere (as if more values had been made before) prints the same text. (Names like
    %9 and %11 sort the other way round than %2 and %4: nothing may be ordered by name.)"""
    want = pyad.jit_grad(fn).ir(*args) + pyad.jit_grad(fn).grad_ir(*args)
    made = NameGen.__init__
    for start in [*range(1, 13), 500]:
        def counting_from(self, taken=None, start=start):
            made(self, taken)
            self.counter = start
        monkeypatch.setattr(builder.NameGen, "__init__", counting_from)
        jf = pyad.jit_grad(fn)
        made_names = [v.name for s in walk(jf.specialization(args).func.block) for v in s.outs]
        numbered = [int(n.split(".")[0]) for n in made_names if n[0].isdigit()]
        assert numbered and min(numbered) > start  # the values really have other names
        assert jf.ir(*args) + jf.grad_ir(*args) == want, f"names counted from {start}"


def test_a_statement_more_before_a_loop_changes_no_name():
    """One more statement at the top (more values made, then removed) leaves the printed
    gradient as it was, loop counters included (apart from the function's name and lines)."""
    def text(fn):
        printed = strip_locs(pyad.jit_grad(fn).grad_ir(0.3, 4)).replace(fn.__name__, "g")
        return re.sub(r"line \d+", "line N", printed)
    assert text(counted_after_more) == text(counted)


def _code_block_after(text: str, marker: str, lang: str = "") -> str:
    at = text.index(marker)
    return re.search(rf"```{lang}\n(.*?)```", text[at:], re.S).group(1)


def test_readme_example_is_what_grad_ir_prints():
    readme = (ROOT / "README.md").read_text()
    shown = _code_block_after(readme, "The printed IR of the example (`pyad.jit_grad(f, "
                                      'argnums="all").grad_ir(2.0, 3.0)`')
    printed = strip_locs(pyad.jit_grad(f, argnums="all").grad_ir(2.0, 3.0))
    fwd_and_bwd = printed[:printed.index("func f.vg")]
    assert shown == fwd_and_bwd.rstrip("\n") + "\n"


def test_docs_loop_plan_example_is_what_grad_ir_prints(tmp_path):
    doc = (ROOT / "docs" / "gradients.md").read_text()
    source = _code_block_after(doc, "## One plan per loop", "python")
    shown = _code_block_after(doc, "prints above the reverse of the outer loop in `f.bwd`")
    path = tmp_path / "plan_example.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    printed = pyad.jit_grad(mod.f).grad_ir(np.ones(3), np.ones(2))
    bwd = printed[printed.index("func f.bwd"):printed.index("func f.vg")]
    note = re.search(r"^( *#.*\n)+", bwd, re.M).group(0)
    assert shown == "".join(line.strip() + "\n" for line in note.splitlines())
