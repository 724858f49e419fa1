"""Checkpointing under a tape budget, measured on W3 (Lorenz RK4, loop style):
value+gradient time and the tape's peak (`tape_bytes`) without a budget and with budgets
that make about sqrt(T) checkpoints (segments of about sqrt(T) trips), and JAX's
value_and_grad of the array style (lax.fori_loop, which saves every trip) when installed.

    python -m bench.checkpoint [T ...]            # default: 10000 1000000
    python -m bench.checkpoint --long 100000000   # one run of a 10**8-step loop in 64 MiB

The budget for about sqrt(T) segments is 2 * sqrt(T) * (tape bytes per trip): a segment is
cut at half the budget (docs/gradients.md, "The tape").
"""
import bench.threads  # noqa: F401  (before any numerical library)

import argparse
import math
import time

import pyad
from bench import w3_lorenz

ARGS = (10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0)
DT = 1e-4


def _best(fn, args, rounds: int) -> float:
    best = math.inf
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def _jax_vg(steps: int):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    class Ops:
        @staticmethod
        def fori_loop(n, body, init):
            return jax.lax.fori_loop(0, n, body, init)

    def f(sigma, rho, beta, x, y, z):
        return w3_lorenz.array(Ops, sigma, rho, beta, x, y, z, steps, DT)
    vg = jax.jit(jax.value_and_grad(f, argnums=(0, 1, 2, 3, 4, 5)))
    return lambda *a: jax.block_until_ready(vg(*a))


def table(steps_list: list[int]) -> None:
    plain = pyad.jit_grad(w3_lorenz.loop, argnums=(0, 1, 2, 3, 4, 5))
    print("| T | budget | checkpoints (about) | value+grad ms | / primal | / no budget "
          "| peak tape bytes | JAX value+grad ms |")
    print("|---|---|---|---|---|---|---|---|")
    for steps in steps_list:
        args = ARGS + (steps, DT)
        rounds = 5 if steps <= 100_000 else 3
        primal = _best(plain, args, rounds)
        base = _best(plain.value_and_grad, args, rounds)
        per_trip = plain.tape_bytes(*args) / steps
        jvg = _jax_vg(steps)
        jax_ms = ""
        if jvg is not None:
            jvg(*ARGS)
            jax_ms = f"{_best(jvg, ARGS, rounds) * 1e3:.2f}"
        rows = [(None, plain)]
        for segs in (int(math.sqrt(steps)),):
            budget = int(2 * per_trip * steps / segs)
            rows.append((budget, pyad.jit_grad(w3_lorenz.loop, argnums=(0, 1, 2, 3, 4, 5),
                                               max_tape_bytes=budget)))
        for budget, f in rows:
            assert f.value_and_grad(*args) == plain.value_and_grad(*args)
            t = base if budget is None else _best(f.value_and_grad, args, rounds)
            peak = f.tape_bytes(*args)
            segs = "-" if budget is None else f"{steps * per_trip / (budget / 2):.0f}"
            print(f"| {steps:.0e} | {budget or 'none'} | {segs} | {t * 1e3:.2f} | "
                  f"{t / primal:.2f} | {t / base:.2f} | {peak} | {jax_ms} |")


def long_run(steps: int, budget: int) -> None:
    f = pyad.jit_grad(w3_lorenz.loop, argnums=(0, 1, 2, 3, 4, 5), max_tape_bytes=budget)
    args = ARGS + (steps, 1e-7)
    f.value_and_grad(*ARGS, 10, 1e-7)  # compile
    t0 = time.perf_counter()
    primal = f(*args)
    t1 = time.perf_counter()
    v, g = f.value_and_grad(*args)
    t2 = time.perf_counter()
    peak = f.tape_bytes(*args)
    print(f"T={steps:.0e}, max_tape_bytes={budget}: primal {t1 - t0:.2f} s, value+grad "
          f"{t2 - t1:.2f} s ({(t2 - t1) / (t1 - t0):.2f} x primal), peak tape {peak} bytes; "
          f"value {v!r} (primal {primal!r}), gradient {g}")


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.checkpoint", description=__doc__)
    p.add_argument("steps", nargs="*", type=int, default=[10_000, 1_000_000])
    p.add_argument("--long", type=int, help="one run of this many steps under --budget")
    p.add_argument("--budget", type=int, default=64 << 20)
    a = p.parse_args()
    if a.long:
        long_run(a.long, a.budget)
    else:
        table(a.steps)


if __name__ == "__main__":
    main()
