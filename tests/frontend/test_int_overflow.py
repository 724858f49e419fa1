"""Integer `*` and `**` raise OverflowError (naming the line) where the result leaves the
64-bit range, instead of wrapping around: a probe found a Poisson pmf with the factorial
computed as an int product give a negative probability (-1.017 at k = 21, CPython 0.0846),
and `3 ** n * x` give 4.25e18 for 4.43e21. CPython's ints do not overflow; pyad's are
64-bit, so it raises where CPython would go on with a bigger int. The interpreter (the
oracle) raises as the native code does."""
import math

import numpy as np
import pytest

import pyad
from pyad.ir import interp

from ..gradients import check_against_python


def poisson_pmf(lam, k):
    fact = 1
    for i in range(2, k + 1):
        fact *= i
    return lam ** k * math.exp(-lam) / fact


def power_of_three(x, n):
    return x * 3 ** n


def cube(x, n):
    return n * n * n * x


def strided_sum(x, n):
    """Index arithmetic the user writes: still fast paths (jam, recomputed in reverse)."""
    s = 0.0
    for i in range(n):
        s += x[(i * 7) % len(x)] * x[(3 * i + 1) % len(x)]
    return s


@pytest.mark.parametrize("fn,args", [
    (poisson_pmf, (20.0, 20)), (poisson_pmf, (3.5, 0)),
    (power_of_three, (2.0, 39)), (power_of_three, (2.0, 0)), (power_of_three, (-1.5, 1)),
    (cube, (0.5, 2_000_000)), (cube, (0.5, -2_000_000)),
    (strided_sum, (np.linspace(-1.0, 1.0, 5), 40)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_in_range_as_cpython(fn, args):
    check_against_python(fn, *args)


@pytest.mark.parametrize("fn,args,line", [
    (poisson_pmf, (20.0, 21), 21), (power_of_three, (2.0, 40), 26),
    (cube, (0.5, 3_000_000), 30), (power_of_three, (2.0, 10**9), 26),
], ids=lambda v: getattr(v, "__name__", "") if callable(v) else "")
def test_out_of_range_raises(fn, args, line):
    with pytest.raises(OverflowError, match=f"does not fit in 64 bits.*line {line} of "
                       "test_int_overflow.py"):
        pyad.jit_grad(fn)(*args)
    f = pyad.jit_grad(fn)
    with pytest.raises(OverflowError):
        interp.run(f.specialization(args).func, args)
    with pytest.raises(OverflowError):
        f.grad(*args)
