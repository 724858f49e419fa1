"""Call-overhead micro-benchmark: ns per call of a trivial function with scalar arguments,
f(a, b) = a / (a + b*b), and with one array argument, g(x) = x[0] (x: 1000 float64), through
pyad, Numba, JAX, cffi and ctypes (the C versions in bench/c/overhead.c), against a plain
Python def; plus pyad's import and first-call (compile) times, measured first in this fresh
process.

    python -m bench.overhead [--quick] [--json]

Each figure is the best of several repeats of a timeit loop (direct call statements, so the
loop adds only its own few ns: see "empty loop")."""
import bench.threads  # noqa: F401  (before any numerical library)

import ctypes
import json
import math
import sys
import time
import timeit

T0 = time.perf_counter()
import pyad  # noqa: E402

T1 = time.perf_counter()
import cffi  # noqa: E402
import numpy as np  # noqa: E402

from bench import cbuild  # noqa: E402

ARRAY_LEN = 1000


def f(a, b):
    return a / (a + b * b)


def f2(a, b):
    return a * math.sin(b) / (a + b * b)


def first(x):
    return x[0]


def _pyad_first_calls(env: dict) -> dict[str, float]:
    """Compile times of the first two functions of this process, in ms."""
    # both arguments' gradients, as the other tools' rows compute
    pf, pf2 = pyad.jit_grad(f, argnums="all"), pyad.jit_grad(f2, argnums="all")
    t = [time.perf_counter()]
    for call in (lambda: pf(2.0, 3.0), lambda: pf.grad(2.0, 3.0),
                 lambda: pf2(2.0, 3.0), lambda: pf2.grad(2.0, 3.0)):
        call()
        t.append(time.perf_counter())
    env["pf"] = pf
    env["back"] = pf.pullback(2.0, 3.0)[1]
    ms = [1e3 * (b - a) for a, b in zip(t, t[1:])]
    return {"import pyad": 1e3 * (T1 - T0),
            "first function, first call (includes LLVM set-up)": ms[0],
            "first function, first grad": ms[1],
            "second function, first call": ms[2], "second function, first grad": ms[3]}


def _setup_peers(env: dict, skipped: dict[str, str]) -> None:
    """Compiled versions of f and first for each installed peer, into `env`."""
    try:
        import numba
        env["nf"], env["ng"] = numba.njit(f), numba.njit(first)
    except ImportError as e:
        skipped["numba"] = f"not installed ({e})"
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        env["jf"], env["jg"] = jax.jit(f), jax.jit(first)
        env["xd"] = jax.numpy.asarray(env["x"])
    except ImportError as e:
        skipped["jax"] = f"not installed ({e})"
    path = str(cbuild.build())
    ffi = cffi.FFI()
    ffi.cdef("double ov_scalar(double, double); double ov_array(const double *, long);")
    env["ffi"], env["cl"] = ffi, ffi.dlopen(path)
    lib = ctypes.CDLL(path)
    lib.ov_scalar.argtypes, lib.ov_scalar.restype = [ctypes.c_double] * 2, ctypes.c_double
    lib.ov_array.argtypes = [np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS"),
                             ctypes.c_long]
    lib.ov_array.restype = ctypes.c_double
    env["tl"] = lib


SCALAR = [("empty loop", "pass", None), ("Python def", "f(2.0, 3.0)", None),
          ("pyad f()", "pf(2.0, 3.0)", None), ("pyad f.grad()", "pf.grad(2.0, 3.0)", None),
          ("pyad f.value_and_grad()", "pf.value_and_grad(2.0, 3.0)", None),
          ("pyad pullback back(1.0)", "back(1.0)", None),
          ("Numba njit", "nf(2.0, 3.0)", "nf"),
          ("JAX jit + block_until_ready", "jf(2.0, 3.0).block_until_ready()", "jf"),
          ("cffi (ABI mode)", "cl.ov_scalar(2.0, 3.0)", "cl"),
          ("ctypes", "tl.ov_scalar(2.0, 3.0)", "tl")]
ARRAY = [("empty loop", "pass", None), ("Python def", "first(x)", None),
         ("pyad f()", "pg(x)", "pg"), ("pyad f.grad()", "pg.grad(x)", "pg"),
         ("pyad f.value_and_grad()", "pg.value_and_grad(x)", "pg"),
         ("Numba njit", "ng(x)", "ng"),
         ("JAX jit + block_until_ready", "jg(x).block_until_ready()", "jg"),
         ("JAX jit, jax.Array argument", "jg(xd).block_until_ready()", "jg"),
         ("cffi (ABI mode)", "cl.ov_array(ffi.from_buffer('double[]', x), n)", "cl"),
         ("ctypes", "tl.ov_array(x, n)", "tl")]


def _best_ns(stmt: str, env: dict, quick: bool) -> float:
    timer = timeit.Timer(stmt, globals=env)
    target, repeats = (0.02, 3) if quick else (0.2, 5)
    number = 1
    while timer.timeit(number) < target:
        number *= 4
    return min(timer.repeat(repeats, number)) / number * 1e9


def _table(rows: list, env: dict, quick: bool, failures: dict[str, str]) -> dict[str, float]:
    out = {}
    for label, stmt, needs in rows:
        if needs is not None and needs not in env:
            continue
        try:
            exec(stmt, env)
        except Exception as e:  # e.g. pyad without array support: reported, not fatal
            lines = str(e).splitlines()
            failures[f"{label} ({stmt})"] = f"{type(e).__name__}: {lines[0] if lines else ''}"
            continue
        out[label] = _best_ns(stmt, env, quick)
    return out


def run(quick: bool = False) -> dict:
    """All figures, as a JSON-able dict."""
    env: dict = {"f": f, "first": first, "x": np.ones(ARRAY_LEN), "n": ARRAY_LEN}
    skipped: dict[str, str] = {}
    first_calls = _pyad_first_calls(env)
    env["pg"] = pyad.jit_grad(first)
    _setup_peers(env, skipped)
    failures: dict[str, str] = {}
    scalar = _table(SCALAR, env, quick, failures)
    array = _table(ARRAY, env, quick, failures)
    skipped.update(failures)
    return {"scalar": scalar, "array": array, "first_call_ms": first_calls, "skipped": skipped,
            "note": f"Scalar: f(a, b) = a / (a + b*b) with two floats. Array: x[0] of a "
                    f"{ARRAY_LEN}-element float64 NumPy array (JAX copies a NumPy argument to "
                    f"a device buffer on every call; cffi wraps it with ffi.from_buffer, ctypes "
                    f"checks it with an ndpointer argtype)."}


def main(argv: list[str]) -> None:
    result = run(quick="--quick" in argv)
    if "--json" in argv:
        print(json.dumps(result))
        return
    from bench.report import overhead_markdown
    print(overhead_markdown(result))


if __name__ == "__main__":
    main(sys.argv[1:])
