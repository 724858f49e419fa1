"""Module-level functions for tests/clusters/test_dask.py.

Dask sends functions to its worker processes with cloudpickle, and a pyad compiled function
pickles by reference: each worker imports this module to find `logistic_loss`."""
import math
import os
import time

import numpy as np

import pyad


@pyad.jit_grad(cache=True)
def logistic_loss(w, x, y):
    """The negative log-likelihood of logistic regression on the rows of `x` (labels `y` are
    -1 or +1): sum_i log(1 + exp(-y_i x_i.w)), written to be stable for large margins."""
    s = 0.0
    for i in range(x.shape[0]):
        z = 0.0
        for j in range(x.shape[1]):
            z += x[i, j] * w[j]
        m = -y[i] * z
        s += max(m, 0.0) + math.log1p(math.exp(-abs(m)))
    return s


def load_chunk(i: int, rows: int = 500, features: int = 6):
    """Chunk `i` of a synthetic data set, `(x, y)`: what a worker would read from storage.
    The labels follow a logistic model with weights spread over [-1, 1]."""
    rng = np.random.default_rng([7, i])
    x = rng.standard_normal((rows, features))
    p = 1 / (1 + np.exp(-x @ np.linspace(-1.0, 1.0, features)))
    return x, np.where(rng.random(rows) < p, 1.0, -1.0)


def chunk_grad(chunk, w):
    """The gradient with respect to `w` of the loss on one chunk `(x, y)`."""
    x, y = chunk
    return logistic_loss.grad(w, x, y)


def worker_state() -> dict:
    """What this worker process compiled: its pid, pyad's cache counters and the signatures of
    `logistic_loss` it holds (for `client.run`)."""
    return {"pid": os.getpid(), "stats": pyad.cache.stats(),
            "signatures": len(logistic_loss.timings())}


def stalling_chunk_grad(chunk, w, flag: str, limit_s: float = 60.0):
    """`chunk_grad`, except for the first call anywhere (the one that creates the file
    `flag`): that one computes the gradient once (compiling it), writes its process id to
    `flag` and computes gradients until the process is killed; if no one kills it within
    `limit_s`, it raises."""
    try:
        f = open(flag, "x")  # exclusive: only one call is the first
    except FileExistsError:
        return chunk_grad(chunk, w)
    with f:
        chunk_grad(chunk, w)
        f.write(str(os.getpid()))
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        chunk_grad(chunk, w)
    raise RuntimeError(f"process {os.getpid()} was not killed within {limit_s} s")
