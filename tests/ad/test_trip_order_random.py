"""Random loops around trip order (pyad/ir/trip_order.py): a loop storing at its counter
(1-D or 2-D, counting up or down, under a branch or not, inside a repeat loop or not), inner
loops reading the array at ranges bounded by the counter, loads at offsets and wrapped
indices, and trailing loops rewriting elements behind or ahead of the counter, some through
a view the trips reverse. Such generators found three families of wrong gradients while the
analysis was written; each program is checked against CPython's value, central differences
with the dot-product test, the IR interpreter, and pullback == value_and_grad."""
from __future__ import annotations

import random

import numpy as np
import pytest

from ..gradients import check_against_python
from ..modules import load_module


def _inner_range(r: random.Random, var: str) -> str:
    a, b = r.choice([1, 2]), r.choice([0, 1])
    return r.choice([f"range({var} + {a}, n)", f"range({var} + {b})",
                     f"range({var} - {a}, -1, -1)", f"range(n - 1, {var} + {b}, -1)",
                     f"range(max(0, {var} - 1), n)"])


def program(seed: int) -> str:
    r = random.Random(seed)
    up = r.random() < 0.5
    outer = r.choice(["range(n)", "range(1, n)"] if up else
                     ["range(n - 1, -1, -1)", "range(n - 2, -1, -1)"])
    two_d = r.random() < 0.35
    body = ["s = a[i]"]
    for q, v in enumerate(("j", "jj")[:r.randint(1, 2)]):
        idx = r.choice([f"y[i, {v}]", f"y[{v}, i]", f"y[{v}, {v}]"]) if two_d else f"y[{v}]"
        body += [f"for {v} in {_inner_range(r, 'i')}:",
                 f"    s += w[{v} % len(w)] * math.sin({idx}) * {idx}"]
    off = r.choice([-1, 1, 2])
    near = r.choice([f"y[i, (i + {off}) % n]", "y[i, i]"]) if two_d else \
        r.choice([f"y[(i + {off}) % n]", "y[i]", "y[i - 1]"])
    body.append(f"s += 0.3 * {near} * {near}")
    store = r.choice(["y[i, i]", "y[i, 0]", "y[0, i]"]) if two_d else "y[i]"
    assign = f"{store} = math.tanh(s) + 0.1 * math.exp(0.2 * s)"
    body += ["if s > 0.1:", "    " + assign] if r.random() < 0.3 else [assign]
    if r.random() < 0.5:
        wr = r.choice(["y[k, i]", "y[i, k]", "y[k, k]"]) if two_d else "y[k]"
        body += [f"for k in {_inner_range(r, 'i')}:", f"    {wr} = 0.5 * {wr} + 0.1 * s"]
    body.append(f"t += math.sin({store}) * {store}")
    if not two_d and r.random() < 0.5:
        body.append("y = y[::-1]")   # a view the trips reverse (carried)
    loop = [f"for i in {outer}:"] + ["    " + line for line in body]
    if r.random() < 0.35:
        loop = ["for rep in range(2):"] + ["    " + line for line in loop]
    start = "y = np.ones((n, n)) * 0.5" if two_d else "y = np.ones(n) * 0.5"
    lines = ["def f(a, w):", "    n = len(a)", f"    {start}", "    t = 0.0"] + \
        ["    " + line for line in loop] + ["    return t + float(np.sum(y * y))"]
    return "import math\nimport numpy as np\n\n\n" + "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_random_trip_order_programs(seed, tmp_path):
    f = load_module(tmp_path / f"trips{seed}.py", program(seed)).f
    rng = np.random.default_rng(seed)
    for n in (1, 3, 5):
        a, w = rng.uniform(-0.8, 0.8, n), rng.uniform(-0.8, 0.8, 3)
        check_against_python(f, a, w)
