"""The Dask recipe (docs/distributed.md) on local workers against one process: the time of one
gradient of a chunked loss, its speedup and its efficiency (speedup per core used).

    python -m bench.dask_scaling [--points N] [--chunks C] [--json]

The loss is the W2 GMM objective (bench/w2_gmm.py, d=10 K=25, the loop spelling) on each of C
chunks of N points, summed; the gradient is with respect to alphas, means and icf. Rows:

- one process: `f.grad` on each chunk in turn in this process, the gradients summed;
- a multiprocessing pool of 2 forked processes that inherit the compiled function and the
  chunks, one task per chunk (`pool.map` of the chunk's index): what two processes give on
  this machine without Dask's scheduling, the ceiling for the Dask rows;
- Dask, W worker processes of one thread each, and one worker process of two threads: the
  chunks scattered once (not timed), then per gradient one task per chunk
  (`client.map(f.grad, ...)`), the partial gradients gathered and summed here.

Every configuration is started and warmed up (each worker compiles once) before timing, and
the configurations are timed interleaved, round by round (bench/timing.py), so drifts of a
shared machine hit all alike. The figure is the median time of one whole gradient. The load
average before and after is printed: other programs running take cores from the workers."""
import bench.threads  # noqa: F401  (before any numerical library)

import argparse
import json
import multiprocessing
import os
import sys
import time
from contextlib import ExitStack

import numpy as np
from dask.distributed import Client, LocalCluster, wait

import pyad
from bench import machine, timing, w2_gmm

PLAN = timing.Plan(rounds=15, batch_s=0.0, budget_s=4.0, min_samples=5)
TIMEOUT_S = 600
# (label, how, processes, threads per process): "here" runs in this process, "pool" in a
# forked multiprocessing pool, "dask" on a LocalCluster of worker processes
CONFIGS = [("one process", "here", 1, 1),
           ("multiprocessing, 2 processes", "pool", 2, 1),
           ("Dask, 1 worker process", "dask", 1, 1),
           ("Dask, 2 worker processes", "dask", 2, 1),
           ("Dask, 1 worker process of 2 threads", "dask", 1, 2)]


def loss():
    """W2's loop function compiled; it pickles by reference to `bench.w2_gmm.loop`, so each
    worker compiles it once (pyad/api/pickling.py)."""
    return pyad.jit_grad(w2_gmm.loop, argnums=(0, 1, 2))


def make_data(points: int, chunks: int):
    alphas, means, icf, _ = w2_gmm.make_args("full")
    x = np.random.default_rng(1).standard_normal((points, means.shape[1]))
    return (alphas, means, icf), np.array_split(x, chunks)


def add(parts):
    """The sum of the partial gradients (each a tuple of arrays), in order."""
    return tuple(sum(g) for g in zip(*parts))


def one_process(f, params, chunks):
    return lambda: add([f.grad(*params, c) for c in chunks])


_held: tuple = ()  # (f, params, chunks) in a pool process (set by its initializer)


def _hold(*state) -> None:
    global _held
    _held = state


def _pool_chunk_grad(i: int):
    f, params, chunks = _held
    return f.grad(*params, chunks[i])


def pool_gradient(pool, n: int):
    return lambda: add(pool.map(_pool_chunk_grad, range(n), chunksize=1))


def dask_gradient(client, f, params, scattered):
    def run():
        parts = client.map(f.grad, *[[p] * len(scattered) for p in params], scattered,
                           pure=False)
        wait(parts, timeout=TIMEOUT_S)
        return add(client.gather(parts))
    return run


def measure(points: int, chunks: int) -> dict:
    load_before = os.getloadavg()[0]
    f = loss()
    params, data = make_data(points, chunks)
    reference = one_process(f, params, data)()
    runs, one_call = {}, {}
    with ExitStack() as stack:
        for label, how, processes, threads in CONFIGS:
            if how == "here":
                run = one_process(f, params, data)
            elif how == "pool":  # forked before any Dask thread exists
                pool = stack.enter_context(multiprocessing.get_context("fork").Pool(
                    processes, initializer=_hold, initargs=(f, params, data)))
                run = pool_gradient(pool, len(data))
            else:
                cluster = stack.enter_context(LocalCluster(
                    n_workers=processes, threads_per_worker=threads, processes=True,
                    dashboard_address=":0"))
                client = stack.enter_context(Client(cluster))
                client.wait_for_workers(processes, timeout=TIMEOUT_S)
                run = dask_gradient(client, f, params, client.scatter(data))
                for _ in range(2 * threads):  # every worker thread compiles or waits once
                    run()
            t0 = time.perf_counter()
            got = run()
            one_call[label] = time.perf_counter() - t0
            for g, r in zip(got, reference):  # the same sums in the same order
                np.testing.assert_allclose(g, r, rtol=1e-12, atol=0)
            runs[label] = run
        stats = timing.measure(runs, one_call, PLAN)
    base = stats["one process"].median_s
    rows = []
    for label, _, processes, threads in CONFIGS:
        cores = processes * threads
        t = stats[label].median_s
        rows.append({"config": label, "cores": cores, "median_s": t, "min_s": stats[label].min_s,
                     "speedup": base / t, "efficiency": base / t / cores})
    return {"points": points, "chunks": chunks, "rows": rows,
            "load_average": [load_before, os.getloadavg()[0]],
            "machine": machine.describe({"dask": _version("dask"),
                                         "distributed": _version("distributed")})}


def _version(name: str) -> str:
    return __import__(name).__version__


def markdown(result: dict) -> str:
    d, k, _ = w2_gmm.SIZES["full"]
    lines = [f"Gradient of the W2 GMM objective (d={d} K={k}) summed over {result['chunks']} "
             f"chunks of {result['points']} points in all (median of whole gradients):", "",
             "| configuration | cores | time | speedup | efficiency |", "|---|--:|--:|--:|--:|"]
    for r in result["rows"]:
        lines.append(f"| {r['config']} | {r['cores']} | {r['median_s'] * 1e3:.1f} ms | "
                     f"{r['speedup']:.2f} | {r['efficiency']:.2f} |")
    lines += ["", f"Measured on {machine.one_line(result['machine'])}; dask "
              f"{result['machine']['versions']['dask']}, distributed "
              f"{result['machine']['versions']['distributed']}; `python -m bench.dask_scaling "
              f"--points {result['points']} --chunks {result['chunks']}`; load average (1 min) "
              f"{result['load_average'][0]:.2f} before, {result['load_average'][1]:.2f} after "
              f"(other programs running on the machine take cores from the workers)."]
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.dask_scaling", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--points", type=int, default=64_000)
    p.add_argument("--chunks", type=int, default=8)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    a = p.parse_args(argv)
    result = measure(a.points, a.chunks)
    print(json.dumps(result) if a.json else markdown(result))


if __name__ == "__main__":
    main(sys.argv[1:])
