"""The on-disk object cache (`@pyad.jit_grad(cache=True)`, pyad/api/cache.py).

Properties that need a fresh process (a hit skips LLVM, keys are stable across processes, an
edited source is never served stale, damaged entries are rebuilt) run small child processes:
the model modules and a runner script are written to a temporary directory, the runner
counts the LLVM steps of `codegen.jit` (parse, optimize, emit object) and prints the results,
`pyad.api.cache.stats()` and those counts as one JSON line. The cache directory is a temporary
one, through PYAD_CACHE_DIR. Options, the cache location, `clear_cache`, an unwritable
directory and concurrent first calls are tested in this process.
"""
from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import pyad
from pyad.api import cache

CHILD_TIMEOUT_S = 120

RUNNER = '''
import json, sys
sys.path.insert(0, sys.argv[1])
import llvmlite.binding as llvm
from pyad.api import cache
from pyad.codegen import jit

calls = {"parse": 0, "optimize": 0, "emit_object": 0}

def counting(what, fn):
    def wrapper(*args, **kwargs):
        calls[what] += 1
        return fn(*args, **kwargs)
    return wrapper

jit._parse = counting("parse", jit._parse)
jit._optimize = counting("optimize", jit._optimize)
llvm.TargetMachine.emit_object = counting("emit_object", llvm.TargetMachine.emit_object)
module = __import__(sys.argv[2])
results = module.run(*sys.argv[3:])
print(json.dumps({"results": results, "stats": cache.stats(), "llvm": calls}))
'''

# Six units: f (scalar, calls a helper from another module and a custom_vjp function) and g
# (an array argument), each with its primal, its fused gradient and its pullback kernels.
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

@pyad.jit_grad(cache=True, argnums="all")
def f(a, b):
    s = 0.0
    for i in range(3):
        s += helper(a) * b + slog(a + i)
    return SCALE * s

@pyad.jit_grad(cache=True)
def g(x):
    s = 0.0
    for i in range(len(x)):
        s += SCALE * x[i] * x[i]
    return s

@pyad.jit_grad
def other(a):
    return slog(a) + slog(2.0 * a)

def run(*flags):
    if "shift" in flags:  # register custom_vjp rules first: their ids differ from run 1
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
HELPER_CONSTANT = struct.pack("<d", 1.25)  # in the object code of f's primal
N_MODEL_UNITS = 6

EDIT_MODEL = '''
import pyad
from edit_helpers import helper

SCALE = 2.0

@pyad.jit_grad(cache=True)
def f(a):
    return SCALE * helper(a) + a

def run():
    return {"f": f(3.0), "grad": f.grad(3.0)}
'''
EDIT_HELPERS = '''
def helper(x):
    return x * x
'''


class Children:
    """Writes modules to a directory and runs the runner on them, with the cache in
    `self.cache`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache = root / "cache"
        (root / "runner.py").write_text(RUNNER)

    def write(self, name: str, text: str) -> None:
        (self.root / f"{name}.py").write_text(text)

    def run(self, module: str, *flags: str, hashseed: int = 0) -> dict:
        env = dict(os.environ, PYAD_CACHE_DIR=str(self.cache), PYTHONHASHSEED=str(hashseed),
                   PYTHONDONTWRITEBYTECODE="1")  # an edited module is never run from a stale .pyc
        p = subprocess.run([sys.executable, str(self.root / "runner.py"), str(self.root),
                            module, *flags], cwd=self.root, env=env, capture_output=True,
                           text=True, timeout=CHILD_TIMEOUT_S)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout.strip().splitlines()[-1])

    def entries(self) -> dict[str, Path]:
        """unit name -> entry file."""
        return {p.name[:-len(cache.SUFFIX) - 65]: p for p in self.cache.glob("*" + cache.SUFFIX)}


@pytest.fixture
def children(tmp_path) -> Children:
    c = Children(tmp_path)
    c.write("model", MODEL)
    c.write("model_helpers", MODEL_HELPERS)
    return c


def _counts(out: dict) -> tuple[int, int, int, int]:
    s = out["stats"]
    return s["hits"], s["misses"], s["stores"], s["rejected"]


# --------------------------------------------------------------------------- fresh processes
def test_second_process_is_served_from_the_cache_without_llvm(children):
    cold = children.run("model")
    assert _counts(cold) == (0, N_MODEL_UNITS, N_MODEL_UNITS, 0)
    # the instrumentation sees LLVM work when there is some
    assert cold["llvm"] == {"parse": N_MODEL_UNITS, "optimize": N_MODEL_UNITS,
                            "emit_object": N_MODEL_UNITS}
    assert sorted(children.entries()) == ["f", "f.pullback", "f.vg", "g", "g.pullback", "g.vg"]
    assert not list(children.cache.glob(".tmp-*"))  # no temporary file left behind

    warm = children.run("model")
    assert _counts(warm) == (N_MODEL_UNITS, 0, 0, 0)
    assert warm["llvm"] == {"parse": 0, "optimize": 0, "emit_object": 0}
    assert warm["results"] == cold["results"]  # bit-equal: JSON keeps the repr of floats


def test_keys_do_not_depend_on_hash_seed_or_custom_vjp_rule_ids(children):
    first = children.run("model", hashseed=1)
    assert _counts(first) == (0, N_MODEL_UNITS, N_MODEL_UNITS, 0)
    # another hash seed (set iteration order), and other custom_vjp rules registered first
    # (the rule ids of f's call sites differ from the first process)
    second = children.run("model", "shift", hashseed=2)
    assert _counts(second) == (N_MODEL_UNITS, 0, 0, 0)
    assert second["results"] == first["results"]


def test_edited_source_never_loads_a_stale_entry(tmp_path):
    c = Children(tmp_path)
    c.write("edit_model", EDIT_MODEL)
    c.write("edit_helpers", EDIT_HELPERS)

    def run_and_check(value: float, grad: float, counts: tuple) -> None:
        out = c.run("edit_model")
        assert out["results"] == {"f": value, "grad": grad}
        assert _counts(out) == counts

    cold, warm = (0, 2, 2, 0), (2, 0, 0, 0)  # primal and gradient units
    run_and_check(2.0 * 9 + 3, 2.0 * 6 + 1, cold)
    run_and_check(2.0 * 9 + 3, 2.0 * 6 + 1, warm)
    c.write("edit_model", EDIT_MODEL.replace("helper(a) + a", "helper(a) - a"))  # the body
    run_and_check(2.0 * 9 - 3, 2.0 * 6 - 1, cold)
    c.write("edit_helpers", EDIT_HELPERS.replace("x * x", "x * x * x"))  # only the helper
    run_and_check(2.0 * 27 - 3, 2.0 * 27 - 1, cold)
    c.write("edit_model", EDIT_MODEL.replace("helper(a) + a", "helper(a) - a")
            .replace("SCALE = 2.0", "SCALE = 3.0"))  # only a global constant
    run_and_check(3.0 * 27 - 3, 3.0 * 27 - 1, cold)
    c.write("edit_model", EDIT_MODEL)  # back to the first version: its entries are still valid
    c.write("edit_helpers", EDIT_HELPERS)
    run_and_check(2.0 * 9 + 3, 2.0 * 6 + 1, warm)


def test_damaged_entries_are_rejected_and_rebuilt(children):
    cold = children.run("model")
    entries = children.entries()
    truncated, empty = entries["f.vg"], entries["g.vg"]
    data = truncated.read_bytes()
    truncated.write_bytes(data[:len(data) // 2])
    empty.write_bytes(b"")
    # silent corruption that would link and run: a constant in f's object code changes
    # (1.25 -> 1.5); only the checksum tells
    data = entries["f"].read_bytes()
    n_obj = cache._HEADER.unpack_from(data)[3]
    obj = data[cache._HEADER.size:cache._HEADER.size + n_obj]
    assert HELPER_CONSTANT in obj
    obj = obj.replace(HELPER_CONSTANT, struct.pack("<d", 1.5))
    entries["f"].write_bytes(data[:cache._HEADER.size] + obj + data[cache._HEADER.size + n_obj:])
    # an intact, correctly keyed entry whose object does not link: g's kernel symbol is
    # missing from f's object
    g_key = entries["g"].name[len("g-"):-len(cache.SUFFIX)]
    f_key = entries["f.pullback"].name[len("f.pullback-"):-len(cache.SUFFIX)]
    f_obj, f_ir = cache._decode(entries["f.pullback"].read_bytes(), f_key)
    entries["g"].write_bytes(cache._encode(g_key, f_obj, f_ir))

    rebuilt = children.run("model")
    assert _counts(rebuilt) == (N_MODEL_UNITS - 4, 0, 4, 4)
    assert rebuilt["llvm"]["emit_object"] == 4
    assert rebuilt["results"] == cold["results"]

    again = children.run("model")  # the rewritten entries are good
    assert _counts(again) == (N_MODEL_UNITS, 0, 0, 0)
    assert again["results"] == cold["results"]


# --------------------------------------------------------------------------- this process
def scalar_body(a, b):
    s = 0.0
    for i in range(4):
        s += a * b + a / (i + 1.0)
    return s


def array_body(x, k):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[k]  # x[k] keeps a bounds check (x[i] needs none)
    return s


def other_body(a):
    return a * a * a


@pytest.fixture
def cache_in_tmp(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("PYAD_CACHE_DIR", str(d))
    return d


def _delta(before: dict) -> dict:
    after = cache.stats()
    return {k: after[k] - before[k] for k in after}


def test_cache_dir_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("PYAD_CACHE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert pyad.cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("PYAD_CACHE_DIR")
    assert pyad.cache_dir() == tmp_path / "xdg" / "pyad"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert pyad.cache_dir() == tmp_path / "home" / ".cache" / "pyad"


def test_options_are_part_of_the_key(cache_in_tmp):
    x = np.array([1.0, -2.0, 3.0])
    before = cache.stats()
    plain = pyad.jit_grad(scalar_body, cache=True)
    fast = pyad.jit_grad(scalar_body, cache=True, fastmath=True)
    checked = pyad.jit_grad(array_body, cache=True)
    unchecked = pyad.jit_grad(array_body, cache=True, boundscheck=False)
    ir_plain, ir_fast = plain.llvm_ir(1.5, 2.0), fast.llvm_ir(1.5, 2.0)
    ir_checked, ir_unchecked = checked.llvm_ir(x, 1), unchecked.llvm_ir(x, 1)
    d = _delta(before)
    assert (d["hits"], d["misses"], d["stores"]) == (0, 4, 4)  # no option served another's
    assert " fast " in ir_fast and " fast " not in ir_plain
    assert "pyad_index_error" in ir_checked and "pyad_index_error" not in ir_unchecked

    # new function objects (empty in-memory index) load each from disk, the right one each
    before = cache.stats()
    assert pyad.jit_grad(scalar_body, cache=True).llvm_ir(1.5, 2.0) == ir_plain
    assert pyad.jit_grad(scalar_body, cache=True, fastmath=True).llvm_ir(1.5, 2.0) == ir_fast
    assert pyad.jit_grad(array_body, cache=True).llvm_ir(x, 1) == ir_checked
    assert pyad.jit_grad(array_body, cache=True, boundscheck=False).llvm_ir(x, 1) == ir_unchecked
    d = _delta(before)
    assert (d["hits"], d["misses"], d["stores"]) == (4, 0, 0)
    assert pyad.jit_grad(scalar_body, cache=True, fastmath=True)(1.5, 2.0) == \
        pytest.approx(scalar_body(1.5, 2.0), rel=1e-14)


def test_clear_cache_removes_only_entries(cache_in_tmp):
    f = pyad.jit_grad(scalar_body, cache=True)
    f(1.0, 2.0)
    f.grad(1.0, 2.0)
    unrelated = ["notes.txt", "old.pyadobj.bak", ".tmp-x.txt"]
    for name in unrelated:
        (cache_in_tmp / name).write_text("keep me")
    (cache_in_tmp / ".tmp-abc.pyadobj.part").write_bytes(b"left by a crashed writer")
    assert len(list(cache_in_tmp.glob("*" + cache.SUFFIX))) == 2

    assert pyad.clear_cache() == 3
    assert sorted(p.name for p in cache_in_tmp.iterdir()) == sorted(unrelated)
    assert pyad.clear_cache() == 0
    before = cache.stats()
    assert pyad.jit_grad(scalar_body, cache=True)(1.0, 2.0) == f(1.0, 2.0)
    assert _delta(before)["misses"] == 1  # the entry is really gone


def test_clear_cache_without_a_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("PYAD_CACHE_DIR", str(tmp_path / "never-created"))
    assert pyad.clear_cache() == 0


def test_unwritable_cache_dir_warns_once_and_compiles(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")  # works as root too, unlike a chmod
    monkeypatch.setenv("PYAD_CACHE_DIR", str(blocker / "cache"))
    before = cache.stats()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # pyad, not the warnings registry, must deduplicate
        f = pyad.jit_grad(scalar_body, cache=True, argnums="all")
        g = pyad.jit_grad(other_body, cache=True)
        assert f(1.5, 2.0) == scalar_body(1.5, 2.0)
        assert f.grad(1.5, 2.0) == pytest.approx((4 * 2.0 + sum(1 / (i + 1.0) for i in range(4)),
                                                  4 * 1.5), rel=1e-14)
        assert g(2.0) == 8.0
    mine = [w for w in caught if issubclass(w.category, cache.PyadCacheWarning)]
    assert len(mine) == 1, [str(w.message) for w in caught]
    assert str(blocker / "cache") in str(mine[0].message)
    assert _delta(before)["stores"] == 0


def test_concurrent_first_calls_store_once(cache_in_tmp):
    f = pyad.jit_grad(other_body, cache=True)
    barrier = threading.Barrier(4)
    out: list = []

    def call():
        barrier.wait()
        out.append(f(1.5))

    before = cache.stats()
    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [1.5 ** 3] * 4
    d = _delta(before)
    assert (d["misses"], d["stores"]) == (1, 1)
    assert len(list(cache_in_tmp.glob("*" + cache.SUFFIX))) == 1


@pytest.mark.parametrize("name", ["jit", "passes"])
def test_source_digest_covers_the_optimization_pipeline(name, tmp_path, monkeypatch):
    """The key's source digest changes when codegen/jit.py or codegen/passes.py (the pipeline
    run after keying) changes: objects optimized the old way are not loaded."""
    from pyad.codegen import jit, passes
    module = {"jit": jit, "passes": passes}[name]
    before = cache._jit_source_digest()
    edited = tmp_path / f"{name}.py"
    edited.write_bytes(Path(module.__file__).read_bytes() + b"\n# an edit\n")
    monkeypatch.setattr(module, "__file__", str(edited))
    assert cache._jit_source_digest() != before
