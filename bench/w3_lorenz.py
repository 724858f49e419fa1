"""W3: Lorenz-63 integrated with T classical RK4 steps; f = sum of squares of the final state.

The arguments are scalars (sigma, rho, beta, x, y, z, steps, dt) and the gradient is taken with
respect to the three parameters and the three initial coordinates."""
import numpy as np

SIZES = {"tiny": 20, "full": 10_000}


def loop(sigma, rho, beta, x, y, z, steps, dt):
    """Loop style: what pyad and Numba compile and CPython runs."""
    for _ in range(steps):
        k1x = sigma * (y - x)
        k1y = x * (rho - z) - y
        k1z = x * y - beta * z
        x2, y2, z2 = x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, z + 0.5 * dt * k1z
        k2x = sigma * (y2 - x2)
        k2y = x2 * (rho - z2) - y2
        k2z = x2 * y2 - beta * z2
        x3, y3, z3 = x + 0.5 * dt * k2x, y + 0.5 * dt * k2y, z + 0.5 * dt * k2z
        k3x = sigma * (y3 - x3)
        k3y = x3 * (rho - z3) - y3
        k3z = x3 * y3 - beta * z3
        x4, y4, z4 = x + dt * k3x, y + dt * k3y, z + dt * k3z
        k4x = sigma * (y4 - x4)
        k4y = x4 * (rho - z4) - y4
        k4z = x4 * y4 - beta * z4
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
        z = z + dt / 6.0 * (k1z + 2.0 * k2z + 2.0 * k3z + k4z)
    return x * x + y * y + z * z


def array(ops, sigma, rho, beta, x, y, z, steps, dt):
    """Array style: the same step as a loop body, run by `ops.fori_loop` (lax.fori_loop under
    JAX, a Python loop elsewhere)."""

    def deriv(px, py, pz):
        return sigma * (py - px), px * (rho - pz) - py, px * py - beta * pz

    def step(_, state):
        sx, sy, sz = state
        k1 = deriv(sx, sy, sz)
        k2 = deriv(sx + 0.5 * dt * k1[0], sy + 0.5 * dt * k1[1], sz + 0.5 * dt * k1[2])
        k3 = deriv(sx + 0.5 * dt * k2[0], sy + 0.5 * dt * k2[1], sz + 0.5 * dt * k2[2])
        k4 = deriv(sx + dt * k3[0], sy + dt * k3[1], sz + dt * k3[2])
        return tuple(s + dt / 6.0 * (a + 2.0 * b + 2.0 * c + d)
                     for s, a, b, c, d in zip(state, k1, k2, k3, k4))

    fx, fy, fz = ops.fori_loop(steps, step, (x, y, z))
    return fx * fx + fy * fy + fz * fz


def _lorenz_deriv(s, sigma, rho, beta):
    return np.array([sigma * (s[1] - s[0]), s[0] * (rho - s[2]) - s[1],
                     s[0] * s[1] - beta * s[2]])


def array_numpy(sigma, rho, beta, x, y, z, steps, dt):
    """Array style with NumPy alone: the state a 3-vector built by np.array (pyad compiles
    it; JAX would need lax.fori_loop for the loop)."""
    s = np.array([x, y, z])
    for _ in range(steps):
        k1 = _lorenz_deriv(s, sigma, rho, beta)
        k2 = _lorenz_deriv(s + 0.5 * dt * k1, sigma, rho, beta)
        k3 = _lorenz_deriv(s + 0.5 * dt * k2, sigma, rho, beta)
        k4 = _lorenz_deriv(s + dt * k3, sigma, rho, beta)
        s = s + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(s * s)


def make_args(size: str) -> tuple:
    """(sigma, rho, beta) = (10, 28, 8/3), x0 = (1, 1, 1), dt = 0.001."""
    return (10.0, 28.0, 8.0 / 3.0, 1.0, 1.0, 1.0, SIZES[size], 0.001)


def describe(size: str) -> str:
    return f"T={SIZES[size]}"
