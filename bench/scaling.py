"""Batched gradients on native threads (`pyad.vmap`): per-sample gradients of W5 and the
gradient of W2 summed over data chunks, on 1 and 2 threads, against the same gradients taken
one call at a time from Python and, when installed, JAX's `vmap` (one thread, like every peer
in the bench; timed after pyad's entries, not interleaved with them).

    python -m bench.scaling [--quick]

The losses are the workloads' own loop spellings (bench/w5_mlp.py, bench/w2_gmm.py), unchanged:
W5's per-sample loss is its loss on a batch of one sample, W2's chunked loss is its objective
on each chunk of the data points. Speedup = time on 1 thread / time on 2; efficiency =
speedup / 2. All entries are timed interleaved (bench/timing.py); the table gives the median
and the best of the samples (on a shared virtual machine two threads are sometimes much slower
than one: the median shows it, the best time shows what two cores give).
"""
import bench.threads  # noqa: F401  (before any numerical library)

import argparse
import time

import numpy as np

import pyad
from bench import timing, w2_gmm, w5_mlp


def _w5():
    x, labels, w1, b1, w2, b2 = w5_mlp.make_args("full")
    n = x.shape[0]
    xs, ls = x.reshape(n, 1, -1), labels.reshape(n, 1)
    f = pyad.jit_grad(w5_mlp.loop, argnums=(2, 3, 4, 5))
    g = pyad.grad(f, argnums=(2, 3, 4, 5))
    axes = (0, 0, None, None, None, None)
    entries = {
        "python loop of f.grad": lambda: [g(xs[i], ls[i], w1, b1, w2, b2) for i in range(n)],
        "vmap, 1 thread": lambda: pyad.vmap(g, in_axes=axes, num_threads=1)(
            xs, ls, w1, b1, w2, b2),
        "vmap, 2 threads": lambda: pyad.vmap(g, in_axes=axes, num_threads=2)(
            xs, ls, w1, b1, w2, b2),
    }
    jax = _jax_w5(xs, ls, w1, b1, w2, b2)
    peers = {} if jax is None else {"JAX vmap(grad), jit (timed after the others)": jax}
    return f"W5 per-sample gradients ({n} samples of {w5_mlp.describe('full')})", entries, peers


def _jax_w5(xs, ls, w1, b1, w2, b2):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    class Ops:
        tanh, log, exp, sum, squeeze = jnp.tanh, jnp.log, jnp.exp, jnp.sum, jnp.squeeze

        @staticmethod
        def amax(a, axis):
            return jnp.max(a, axis=axis, keepdims=True)

        @staticmethod
        def index(i):
            return i

    loss = lambda x, l, *p: w5_mlp.array(Ops, x, l, *p)  # noqa: E731
    fn = jax.jit(jax.vmap(jax.grad(loss, argnums=(2, 3, 4, 5)),
                          in_axes=(0, 0, None, None, None, None)))
    args = tuple(map(jnp.asarray, (xs, ls, w1, b1, w2, b2)))
    return lambda: jax.block_until_ready(fn(*args))


def _w2(chunks: int):
    alphas, means, icf, x = w2_gmm.make_args("full")
    xc = x.reshape(chunks, -1, x.shape[1])
    f = pyad.jit_grad(w2_gmm.loop, argnums=(0, 1, 2))
    g = pyad.grad(f, argnums=(0, 1, 2))
    axes = (None, None, None, 0)
    entries = {
        "python loop of f.grad, summed": lambda: [g(alphas, means, icf, c) for c in xc],
        "vmap sum, 1 thread": lambda: pyad.vmap(g, in_axes=axes, reduce="sum",
                                                num_threads=1)(alphas, means, icf, xc),
        "vmap sum, 2 threads": lambda: pyad.vmap(g, in_axes=axes, reduce="sum",
                                                 num_threads=2)(alphas, means, icf, xc),
    }
    return (f"W2 gradient summed over {chunks} chunks of {xc.shape[1]} points "
            f"({w2_gmm.describe('full')})"), entries, {}


def _table(title: str, stats: dict, one: str, two: str) -> str:
    lines = [f"### {title}", "", "| entry | median | best | median ÷ 1 thread's |",
             "|---|--:|--:|--:|"]
    base = stats[one].median_s
    for key, s in stats.items():
        lines.append(f"| {key} | {s.median_s * 1e3:.3f} ms | {s.min_s * 1e3:.3f} ms | "
                     f"{s.median_s / base:.2f} |")
    med = base / stats[two].median_s
    best = stats[one].min_s / stats[two].min_s
    lines += ["", f"speedup on 2 threads: {med:.2f}x of the medians (efficiency {med / 2:.0%}), "
              f"{best:.2f}x of the best times (efficiency {best / 2:.0%})", ""]
    return "\n".join(lines)


def _timed(entries: dict, plan) -> dict:
    once = {}
    for key, fn in entries.items():
        fn()  # compile
        t0 = time.perf_counter()
        fn()
        once[key] = time.perf_counter() - t0
    return timing.measure(entries, once, plan)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    plan = timing.QUICK if ap.parse_args().quick else timing.FULL
    for (title, entries, peers), one, two in (
            (_w5(), "vmap, 1 thread", "vmap, 2 threads"),
            (_w2(8), "vmap sum, 1 thread", "vmap sum, 2 threads")):
        # the peers apart: JAX's thread pools keep spinning after a call and would take
        # the second core from pyad's second thread
        stats = _timed(entries, plan)
        stats.update(_timed(peers, plan))
        print(_table(title, stats, one, two))


if __name__ == "__main__":
    main()
