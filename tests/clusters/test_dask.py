"""The Dask recipe of docs/distributed.md on a real `dask.distributed.LocalCluster` with two
worker processes: the gradient of a loss summed over data chunks scattered to the workers,
each worker compiling the function once (or loading it from the on-disk cache), and a worker
killed in the middle of a gradient, whose task Dask runs again.

The loss (tests/dask_helpers.py) is logistic regression; the reference is one call on all the
data in this process, and NumPy's closed form of its gradient. Every wait has a timeout, and
the clusters are closed by their fixture."""
from __future__ import annotations

import os
import signal
import time

import dask
import distributed
import numpy as np
import pytest

import pyad

from .. import dask_helpers

TIMEOUT_S = 60
CHUNKS = 8


@pytest.fixture
def client(tmp_path, monkeypatch):
    """A client of two worker processes (one thread each) sharing an empty on-disk cache.
    The workers inherit PYAD_CACHE_DIR from this process; ports are chosen by the system,
    so clusters of parallel test processes do not collide."""
    monkeypatch.setenv("PYAD_CACHE_DIR", str(tmp_path / "cache"))
    with dask.config.set({"distributed.scheduler.allowed-failures": 3}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=":0", scheduler_port=0) as cluster, \
            distributed.Client(cluster, timeout=TIMEOUT_S) as c:
        c.wait_for_workers(2, timeout=TIMEOUT_S)
        yield c


def local_data():
    """The chunks, all the data and the weights, in this process."""
    chunks = [dask_helpers.load_chunk(i) for i in range(CHUNKS)]
    x = np.concatenate([c[0] for c in chunks])
    y = np.concatenate([c[1] for c in chunks])
    return chunks, x, y, np.linspace(0.5, -0.2, x.shape[1])


def numpy_grad(w, x, y):
    """d/dw sum_i log(1 + exp(-y_i x_i.w)) = -X^T (y * sigmoid(-y X w))."""
    m = -y * (x @ w)
    return -x.T @ (y / (1 + np.exp(-m)))


def check_gradient(g, w, x, y):
    """`g` is the one-process gradient (one call on all the data) to rounding, and NumPy's."""
    np.testing.assert_allclose(g, dask_helpers.logistic_loss.grad(w, x, y), rtol=1e-12, atol=0)
    np.testing.assert_allclose(g, numpy_grad(w, x, y), rtol=1e-10, atol=0)


def gather(client, futures):
    distributed.wait(futures, timeout=TIMEOUT_S)
    return client.gather(futures)


def pinned_gradient(client, scattered, w):
    """The summed gradient, each chunk's task pinned to the worker holding the chunk (so that
    both workers compute, whatever the scheduler would prefer), summed in chunk order."""
    holders = client.who_has(scattered)
    parts = [client.submit(dask_helpers.chunk_grad, c, w, workers=list(holders[c.key]),
                           allow_other_workers=False, pure=False) for c in scattered]
    return sum(gather(client, parts))


def worker_states(client) -> list[dict]:
    return list(client.run(dask_helpers.worker_state).values())


def test_summed_gradient_equals_one_process_and_compiles_once_per_worker(client):
    chunks, x, y, w = local_data()
    scattered = client.scatter(chunks)  # spread over both workers
    assert {a for hs in client.who_has(scattered).values() for a in hs} == \
        set(client.scheduler_info()["workers"])
    g = pinned_gradient(client, scattered, w)

    # each worker compiled (or loaded from the cache the other had just filled) one gradient
    # unit, for all its chunks
    states = worker_states(client)
    assert len(states) == 2
    for s in states:
        assert s["signatures"] == 1
        assert s["stats"]["hits"] + s["stats"]["misses"] == 1, s
    assert sum(s["stats"]["misses"] for s in states) >= 1  # the cache started empty
    entries = sorted(p.name for p in pyad.cache_dir().iterdir()
                     if not p.name.startswith("wrappers-"))  # shared wrappers: docs/processes.md
    assert len(entries) == 1 and entries[0].startswith("logistic_loss.vg-"), entries

    # fresh worker processes load the stored unit instead of compiling
    client.restart(timeout=TIMEOUT_S)
    client.wait_for_workers(2, timeout=TIMEOUT_S)
    g_again = pinned_gradient(client, client.scatter(chunks), w)
    for s in worker_states(client):
        assert s["stats"]["hits"] == 1 and s["stats"]["misses"] == 0, s

    check_gradient(g, w, x, y)
    np.testing.assert_array_equal(g_again, g)  # same chunks, same order: the same bits


def test_a_killed_worker_is_retried_and_the_gradient_is_right(client, tmp_path):
    """The chunks are made by tasks (as when workers read them from storage): Dask recomputes
    the ones the killed worker held, and runs its unfinished gradient again elsewhere.
    (Scattered data cannot be recomputed: docs/distributed.md.)"""
    _, x, y, w = local_data()
    chunks = [client.submit(dask_helpers.load_chunk, i) for i in range(CHUNKS)]
    flag = tmp_path / "stalled.pid"
    before = client.run(os.getpid)
    parts = client.map(dask_helpers.stalling_chunk_grad, chunks, w=w, flag=str(flag),
                       pure=False)
    deadline = time.monotonic() + TIMEOUT_S
    pid = None
    while pid is None:
        assert time.monotonic() < deadline, "no task started"
        text = flag.read_text() if flag.exists() else ""
        pid = int(text) if text.strip() else None
        time.sleep(0.05)
    assert pid in before.values()
    time.sleep(0.2)  # inside the loop of gradient calls: mostly in native code
    os.kill(pid, signal.SIGKILL)

    check_gradient(sum(gather(client, parts)), w, x, y)
    # the nanny replaced the killed process
    client.wait_for_workers(2, timeout=TIMEOUT_S)
    after = client.run(os.getpid)
    assert pid not in after.values() and len(after) == 2
