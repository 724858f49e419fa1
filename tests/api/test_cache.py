"""The on-disk cache of shared objects (pyad/api/cache.py), across processes.

Each test writes model modules and a runner script to a temporary directory and runs them in
child processes with the cache there (PYAD_CACHE_DIR). The runner prints, as one JSON line,
the results, `pyad.api.cache.stats()` and which of the heavy modules (llvmlite, cffi, the
compiler) the process imported: a hit must need none of them. Results are compared with
`==` on their JSON text, which keeps the repr of floats: bit-equal.
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from pyad.api import cache

CHILD_TIMEOUT_S = 120

RUNNER = '''
import json, sys
sys.path.insert(0, sys.argv[1])
from pyad.api import cache
module = __import__(sys.argv[2])
results = module.run(*sys.argv[3:])
heavy = ("llvmlite", "cffi", "pyad.pipeline", "pyad.frontend.lower", "pyad.ad", "pyad.codegen.jit")
print(json.dumps({"results": results, "stats": cache.stats(),
                  "loaded": sorted(m for m in heavy if m in sys.modules)}))
'''

# Six units: f (scalar, calls a helper from another module and a custom_vjp function) and g
# (an array argument), each with its primal, its fused gradient and its pullback kernels.
# `other` is not cached (cache=False).
MODEL = '''
import math
import numpy as np
import pyad
from model_helpers import helper

SCALE = 2.0

@pyad.custom_vjp
def slog(x):
    return math.log(x)

def slog_fwd(x):
    return math.log(x), x

def slog_bwd(res, ct):
    return (ct / res,)

slog.defvjp(slog_fwd, slog_bwd)

@pyad.jit_grad(argnums="all")
def f(a, b):
    s = 0.0
    for i in range(3):
        s += helper(a) * b + slog(a + i)
    return SCALE * s

@pyad.jit_grad
def g(x):
    s = 0.0
    for i in range(len(x)):
        s += SCALE * x[i] * x[i]
    return s

@pyad.jit_grad(cache=False)
def other(a):
    return slog(a) + slog(2.0 * a)

def run(*flags):
    if "shift" in flags:  # custom_vjp rules lowered first: their ids differ from run 1
        other(0.7)
        other.grad(0.7)
    x = np.array([0.5, 1.5, 2.5])
    y, back = f.pullback(1.5, 2.0)
    gy, gback = g.pullback(x)
    return {"f": f(1.5, 2.0), "f.grad": list(f.grad(1.5, 2.0)), "f.pullback": [y, *back(1.0)],
            "g": g(x), "g.grad": g.grad(x).tolist(),
            "g.pullback": [gy, gback(1.0).tolist()]}
'''
MODEL_HELPERS = '''
def helper(x):
    return x * x + 1.25
'''
HELPER_CONSTANT = struct.pack("<d", 1.25)  # in the machine code of f's primal
N_MODEL_UNITS = 6

# Edits a cached function can see through: its body, a helper in another module, a global,
# a module attribute, a default value.
EDIT_MODEL = '''
import pyad
import edit_config as cfg
from edit_helpers import helper

SCALE = 2.0

@pyad.jit_grad
def f(a, k=1.0):
    return SCALE * helper(a) + a * cfg.N * k

@pyad.jit_grad
def h(a):
    return 3.0 * a

def run():
    return {"f": f(3.0), "grad": f.grad(3.0), "h": h(2.0)}
'''
EDIT_HELPERS = '''
def helper(x):
    return x * x
'''
EDIT_CONFIG = "N = 1.0\n"


class Children:
    """Writes modules to a directory and runs the runner on them, with the cache in
    `self.cache`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache = root / "cache"
        (root / "runner.py").write_text(RUNNER)

    def write(self, name: str, text: str) -> None:
        (self.root / f"{name}.py").write_text(text)

    def run(self, module: str, *flags: str, hashseed: int = 0, **env) -> dict:
        env = dict(os.environ, PYAD_CACHE_DIR=str(self.cache), PYTHONHASHSEED=str(hashseed),
                   PYTHONDONTWRITEBYTECODE="1", **env)  # an edited module: never a stale .pyc
        p = subprocess.run([sys.executable, str(self.root / "runner.py"), str(self.root),
                            module, *flags], cwd=self.root, env=env, capture_output=True,
                           text=True, timeout=CHILD_TIMEOUT_S)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout.strip().splitlines()[-1])

    def entries(self) -> dict[str, Path]:
        """unit name -> entry file (the units, not the families of shared wrappers)."""
        return {name: p for name, p in self._files() if name != "wrappers"}

    def families(self) -> list[Path]:
        """The entries of the families of shared wrappers (pyad/api/families.py)."""
        return [p for name, p in self._files() if name == "wrappers"]

    def _files(self) -> list[tuple[str, Path]]:
        return [(p.name.rsplit("-", 1)[0], p) for p in self.cache.glob("*" + cache.SUFFIX)]


@pytest.fixture
def children(tmp_path) -> Children:
    c = Children(tmp_path)
    c.write("model", MODEL)
    c.write("model_helpers", MODEL_HELPERS)
    return c


def _counts(out: dict) -> tuple[int, int, int, int]:
    s = out["stats"]
    return s["hits"], s["misses"], s["stores"], s["rejected"]


def test_second_process_loads_shared_objects_without_the_compiler(children):
    cold = children.run("model")
    assert _counts(cold) == (0, N_MODEL_UNITS, N_MODEL_UNITS, 0)
    assert "llvmlite" in cold["loaded"] and "pyad.pipeline" in cold["loaded"]  # the probe sees
    assert sorted(children.entries()) == ["f", "f.pullback", "f.vg", "g", "g.pullback", "g.vg"]
    assert children.families()  # the loop kernels call wrappers shared by their signature
    assert not list(children.cache.glob(".tmp-*"))  # no temporary file left behind
    assert all(p.read_bytes()[:4] == b"\x7fELF"
               for p in [*children.entries().values(), *children.families()])

    warm = children.run("model")
    assert _counts(warm) == (N_MODEL_UNITS, 0, 0, 0)
    assert warm["loaded"] == []  # no llvmlite, no cffi, no parser, no AD
    assert warm["results"] == cold["results"]  # bit-equal


def test_keys_do_not_depend_on_hash_seed_or_custom_vjp_rule_ids(children):
    first = children.run("model", hashseed=1)
    assert _counts(first) == (0, N_MODEL_UNITS, N_MODEL_UNITS, 0)
    # another hash seed (set iteration order), and other custom_vjp rules lowered first
    second = children.run("model", "shift", hashseed=2)
    assert _counts(second) == (N_MODEL_UNITS, 0, 0, 0)
    assert second["results"] == first["results"]


def test_cache_off_by_environment_or_option(children):
    off = children.run("model", PYAD_CACHE="0")
    assert _counts(off) == (0, 0, 0, 0) and not children.cache.exists()
    on = children.run("model")
    assert on["results"] == off["results"]
    assert _counts(on) == (0, N_MODEL_UNITS, N_MODEL_UNITS, 0)


def test_edited_source_never_loads_a_stale_entry(tmp_path):
    c = Children(tmp_path)
    c.write("edit_model", EDIT_MODEL)
    c.write("edit_helpers", EDIT_HELPERS)
    c.write("edit_config", EDIT_CONFIG)

    def run_and_check(f: float, grad: float, h: float, counts: tuple) -> None:
        out = c.run("edit_model")
        assert out["results"] == {"f": f, "grad": grad, "h": h}
        assert _counts(out) == counts

    cold, warm = (0, 3, 3, 0), (3, 0, 0, 0)  # f's primal and gradient, h's primal
    f_only = (1, 2, 2, 0)                   # h is untouched by the edits of f
    run_and_check(2.0 * 9 + 3, 2.0 * 6 + 1, 6.0, cold)
    run_and_check(2.0 * 9 + 3, 2.0 * 6 + 1, 6.0, warm)
    c.write("edit_model", EDIT_MODEL.replace("helper(a) + a", "helper(a) - a"))  # the body
    run_and_check(2.0 * 9 - 3, 2.0 * 6 - 1, 6.0, f_only)
    c.write("edit_helpers", EDIT_HELPERS.replace("x * x", "x * x * x"))  # a helper, elsewhere
    run_and_check(2.0 * 27 - 3, 2.0 * 27 - 1, 6.0, f_only)
    c.write("edit_config", "N = 2.0\n")  # a module attribute
    run_and_check(2.0 * 27 - 6, 2.0 * 27 - 2, 6.0, f_only)
    text = EDIT_MODEL.replace("helper(a) + a", "helper(a) - a")
    c.write("edit_model", text.replace("SCALE = 2.0", "SCALE = 3.0"))  # a global constant
    run_and_check(3.0 * 27 - 6, 3.0 * 27 - 2, 6.0, f_only)
    c.write("edit_model", text.replace("SCALE = 2.0", "SCALE = 3.0").replace("k=1.0", "k=0.5"))
    run_and_check(3.0 * 27 - 3, 3.0 * 27 - 1, 6.0, f_only)  # a default value
    c.write("edit_model", EDIT_MODEL)  # back to the first version: its entries are valid
    c.write("edit_helpers", EDIT_HELPERS)
    c.write("edit_config", EDIT_CONFIG)
    run_and_check(2.0 * 9 + 3, 2.0 * 6 + 1, 6.0, warm)


def test_damaged_entries_are_rejected_and_rebuilt(children):
    cold = children.run("model")
    entries = children.entries()
    truncated, empty = entries["f.vg"], entries["g.vg"]
    data = truncated.read_bytes()
    truncated.write_bytes(data[:len(data) // 2])
    empty.write_bytes(b"")
    # silent corruption that would load and run: a constant in f's machine code changes
    # (1.25 -> 1.5); only the checksum tells
    data = entries["f"].read_bytes()
    assert data.count(HELPER_CONSTANT) == 1
    entries["f"].write_bytes(data.replace(HELPER_CONSTANT, struct.pack("<d", 1.5)))
    # an intact, correctly keyed entry whose shared object lacks the symbols: g's trailer on
    # f.pullback's code
    g_data, fp_data = entries["g"].read_bytes(), entries["f.pullback"].read_bytes()
    g_tail = cache._TRAILER.size + cache._TRAILER.unpack_from(
        g_data, len(g_data) - cache._TRAILER.size)[3]
    fp_tail = cache._TRAILER.size + cache._TRAILER.unpack_from(
        fp_data, len(fp_data) - cache._TRAILER.size)[3]
    body = fp_data[:-fp_tail] + g_data[-g_tail:-cache._TRAILER.size]
    magic, fmt, key, n, _ = cache._TRAILER.unpack_from(g_data, len(g_data) - cache._TRAILER.size)
    entries["g"].write_bytes(body + cache._TRAILER.pack(magic, fmt, key, n,
                                                        hashlib.sha256(body).digest()))

    rebuilt = children.run("model")
    assert _counts(rebuilt) == (N_MODEL_UNITS - 4, 0, 4, 4)
    assert rebuilt["results"] == cold["results"]

    again = children.run("model")  # the rewritten entries are good
    assert _counts(again) == (N_MODEL_UNITS, 0, 0, 0)
    assert again["results"] == cold["results"]


MANY = 60
MANY_MODEL = "import pyad\n" + "".join(
    f"def f{i}(x):\n    s = 0.0\n    for j in range(3):\n        s += x * {i}.5 + j\n    return s\n"
    for i in range(MANY)) + '''
import gc

def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096

def run():
    fns = [globals()[f"f{i}"] for i in range(%d)]
    def once(fn):
        assert pyad.jit_grad(fn)(1.0) == fn(1.0)
    for fn in fns[:10]:
        once(fn)
    gc.collect()
    before = rss()
    for fn in fns[10:]:
        once(fn)  # compiled or loaded, called, dropped
    gc.collect()
    with open("/proc/self/maps") as fh:
        mapped = {line.split()[-1] for line in fh if line.rstrip().endswith(".pyad.so")
                  and "/wrappers-" not in line}  # shared wrappers stay: api/families.py
    return {"per_function": (rss() - before) / (len(fns) - 10), "still_mapped": len(mapped)}
''' % MANY


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_loaded_units_are_freed_with_their_functions(tmp_path):
    """Issue 19, item 5, for the code loaded from the cache: a function's shared object is
    unmapped when the function is dropped, and the process grows by less than 32 KB per
    loaded and dropped function. (Compiling leaks about 85 KB per function inside
    llvmlite's optimization pipeline, which pyad cannot free: docs/processes.md.)"""
    c = Children(tmp_path)
    c.write("many", MANY_MODEL)
    cold = c.run("many")
    assert _counts(cold)[2] == MANY
    warm = c.run("many")
    assert _counts(warm) == (MANY, 0, 0, 0)
    assert warm["results"]["still_mapped"] == 0  # every shared object was closed
    assert warm["results"]["per_function"] < 32 * 1024, warm["results"]


@pytest.mark.parametrize("name", ["jit", "passes"])
def test_the_environment_digest_covers_the_compiler_sources(name, tmp_path):
    """Every source file of pyad is in the key's environment, e.g. codegen/jit.py and
    codegen/passes.py (the optimization pipeline), and an edit of one changes its entry:
    code compiled by the old compiler is never loaded. (The edit is made to a copy: the
    installed files are shared with the suite's other workers.)"""
    from pyad.codegen import jit, passes
    source = Path({"jit": jit, "passes": passes}[name].__file__)
    assert str(source) in {entry[0] for tree in cache._source_digest() for entry in tree}
    copy = tmp_path / "pkg" / source.name
    copy.parent.mkdir()
    copy.write_bytes(source.read_bytes())
    before = cache._files(str(tmp_path), (".py",), [])
    copy.write_bytes(source.read_bytes() + b"\n# an edit\n")
    assert cache._files(str(tmp_path), (".py",), []) != before
