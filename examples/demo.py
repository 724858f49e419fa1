"""pyad demo: compile a scalar function and its gradient, print the IR, check and time it."""
import math
import timeit

import pyad


@pyad.jit_grad
def f(a, b):
    return a / (a + b * b)


@pyad.jit_grad(argnums="all")
def black_scholes_call(s, k, t, r, sigma):
    """European call price; its gradient holds delta, vega, rho, theta (w.r.t. t)."""
    d1 = (math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    cdf1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    cdf2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    return s * cdf1 - k * math.exp(-r * t) * cdf2


def main() -> None:
    print("f(2.0, 3.0)                =", f(2.0, 3.0))
    print("f.grad(2.0, 3.0)           =", f.grad(2.0, 3.0))
    print("f.value_and_grad(2.0, 3.0) =", f.value_and_grad(2.0, 3.0))
    y, back = f.pullback(2.0, 3.0)
    print("pullback: y =", y, " back(1.0) =", back(1.0), " back(2.0) =", back(2.0))
    print()
    print("primal IR:")
    print(f.ir(2.0, 3.0))
    print("gradient IR (forward, backward, fused):")
    print(f.grad_ir(2.0, 3.0))

    args = (100.0, 95.0, 0.5, 0.02, 0.25)
    price, (delta, _dk, theta_t, rho, vega) = black_scholes_call.value_and_grad(*args)
    print(f"Black-Scholes call = {price:.6f}: delta {delta:.6f}, vega {vega:.6f}, "
          f"rho {rho:.6f}, d/dT {theta_t:.6f}")
    report = pyad.check_grad(black_scholes_call, *args)
    print("check_grad (finite differences + dot-product test): ok,", report)

    plain = black_scholes_call.__wrapped__
    n = 200_000
    for name, fn in (("CPython primal", lambda: plain(*args)),
                     ("pyad primal", lambda: black_scholes_call(*args)),
                     ("pyad value_and_grad", lambda: black_scholes_call.value_and_grad(*args))):
        t = min(timeit.repeat(fn, number=n, repeat=3)) / n * 1e9
        print(f"{name:22s} {t:7.1f} ns per call")


if __name__ == "__main__":
    main()
