"""PyTorch: the array-style function over torch, eager mode, CPU, float64, one thread. The
gradient makes fresh leaf tensors, runs the function and `torch.autograd.grad`; the primal
runs under `torch.no_grad()`."""
import numpy as np
import torch

from bench.tools import Bound, CacheUnsupported, as_numpy
from bench.workloads import Workload
from bench.xp import TorchOps

torch.set_num_threads(1)
OPS = TorchOps(torch)


def version() -> str:
    return torch.__version__


def _tensor(a, differentiated: bool):
    if isinstance(a, np.ndarray):
        return torch.from_numpy(a)
    if isinstance(a, float) and differentiated:
        return torch.tensor(a, dtype=torch.float64)
    return a


def bind(w: Workload, args: tuple, cache: bool = False) -> Bound:
    if cache:
        raise CacheUnsupported("eager mode compiles nothing")
    targs = tuple(_tensor(a, i in w.wrt) for i, a in enumerate(args))

    def primal():
        with torch.no_grad():
            return w.array(OPS, *targs)

    def vgrad():
        leaves = list(targs)
        for i in w.wrt:
            leaves[i] = targs[i].detach().requires_grad_()
        loss = w.array(OPS, *leaves)
        return loss.detach(), torch.autograd.grad(loss, [leaves[i] for i in w.wrt])

    return Bound(primal=primal, vgrad=vgrad,
                 unpack=lambda r: (float(r[0]), as_numpy(tuple(g.numpy() for g in r[1]))))
