"""CPython: the loop-style function run by the interpreter; primal only."""
import platform
from functools import partial

from bench.tools import Bound, CacheUnsupported
from bench.workloads import Workload


def version() -> str:
    return platform.python_version()


def bind(w: Workload, args: tuple, cache: bool = False) -> Bound:
    if cache:
        raise CacheUnsupported("nothing to compile")
    return Bound(primal=partial(w.loop, *args))
