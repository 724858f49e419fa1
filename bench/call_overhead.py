"""Per-call overhead and first-call compile time of the README example.

    python bench/call_overhead.py

Prints ns per call (best of 5 repeats of 10^6 calls) for a plain Python function and for
pyad's primal, grad, value_and_grad and pullback-back entry points, and the first-call times.
"""
import math
import time
import timeit

t0 = time.perf_counter()
import pyad  # noqa: E402

t1 = time.perf_counter()


@pyad.jit_grad
def f(a, b):
    return a / (a + b * b)


@pyad.jit_grad
def g(a, b):
    return a * math.sin(b) / (a + b * b)


def py(a, b):
    return a / (a + b * b)


def main() -> None:
    t2 = time.perf_counter(); f(2.0, 3.0); t3 = time.perf_counter()  # noqa: E702
    f.grad(2.0, 3.0); t4 = time.perf_counter()  # noqa: E702
    g(2.0, 3.0); t5 = time.perf_counter()  # noqa: E702
    g.grad(2.0, 3.0); t6 = time.perf_counter()  # noqa: E702
    y, back = f.pullback(2.0, 3.0)
    n = 1_000_000
    env = {"py": py, "f": f, "back": back}
    for name, stmt in [("empty loop", "pass"), ("python def", "py(2.0, 3.0)"),
                       ("pyad f()", "f(2.0, 3.0)"), ("pyad f.grad()", "f.grad(2.0, 3.0)"),
                       ("pyad f.value_and_grad()", "f.value_and_grad(2.0, 3.0)"),
                       ("pullback back(1.0)", "back(1.0)")]:
        best = min(timeit.repeat(stmt, globals=env, number=n, repeat=5)) / n * 1e9
        print(f"{name:26s} {best:7.1f} ns")
    print(f"import pyad {1e3 * (t1 - t0):.1f} ms")
    print(f"first function: first call {1e3 * (t3 - t2):.1f} ms (includes LLVM set-up), "
          f"first grad {1e3 * (t4 - t3):.1f} ms")
    print(f"second function: first call {1e3 * (t5 - t4):.1f} ms, first grad {1e3 * (t6 - t5):.1f} ms")


if __name__ == "__main__":
    main()
