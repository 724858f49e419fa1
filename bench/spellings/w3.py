"""W3 Lorenz-63 RK4, spelled differently from bench.w3_lorenz.loop."""
import numpy as np


def _f(x, y, z, sigma, rho, beta):
    return sigma * (y - x), x * (rho - z) - y, x * y - beta * z


def rotated_buffers(sigma, rho, beta, x, y, z, steps, dt):
    """State in a 3-vector, stages in scratch vectors filled from a helper's tuple, the new
    state written to a second buffer and the two buffers swapped each step."""
    s = np.zeros(3)
    s[0], s[1], s[2] = x, y, z
    nxt = np.zeros(3)
    tmp = np.zeros(3)
    k1, k2, k3, k4 = np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3)
    for _ in range(steps):
        k1[0], k1[1], k1[2] = _f(s[0], s[1], s[2], sigma, rho, beta)
        for c in range(3):
            tmp[c] = s[c] + 0.5 * dt * k1[c]
        k2[0], k2[1], k2[2] = _f(tmp[0], tmp[1], tmp[2], sigma, rho, beta)
        for c in range(3):
            tmp[c] = s[c] + 0.5 * dt * k2[c]
        k3[0], k3[1], k3[2] = _f(tmp[0], tmp[1], tmp[2], sigma, rho, beta)
        for c in range(3):
            tmp[c] = s[c] + dt * k3[c]
        k4[0], k4[1], k4[2] = _f(tmp[0], tmp[1], tmp[2], sigma, rho, beta)
        for c in range(3):
            nxt[c] = s[c] + dt / 6.0 * (k1[c] + 2.0 * k2[c] + 2.0 * k3[c] + k4[c])
        s, nxt = nxt, s
    return s[0] * s[0] + s[1] * s[1] + s[2] * s[2]


def helper_while(sigma, rho, beta, x, y, z, steps, dt):
    """Scalars, the right-hand side a helper returning a tuple, a while loop over the steps."""
    t = 0
    while t < steps:
        ax, ay, az = _f(x, y, z, sigma, rho, beta)
        bx, by, bz = _f(x + 0.5 * dt * ax, y + 0.5 * dt * ay, z + 0.5 * dt * az,
                        sigma, rho, beta)
        cx, cy, cz = _f(x + 0.5 * dt * bx, y + 0.5 * dt * by, z + 0.5 * dt * bz,
                        sigma, rho, beta)
        ex, ey, ez = _f(x + dt * cx, y + dt * cy, z + dt * cz, sigma, rho, beta)
        x = x + dt / 6.0 * (ax + 2.0 * bx + 2.0 * cx + ex)
        y = y + dt / 6.0 * (ay + 2.0 * by + 2.0 * cy + ey)
        z = z + dt / 6.0 * (az + 2.0 * bz + 2.0 * cz + ez)
        t += 1
    return x * x + y * y + z * z


def trajectory_array(sigma, rho, beta, x, y, z, steps, dt):
    """The whole trajectory kept in a (steps + 1, 3) array, each row computed from the last."""
    traj = np.zeros((steps + 1, 3))
    traj[0, 0], traj[0, 1], traj[0, 2] = x, y, z
    for t in range(steps):
        px, py, pz = traj[t, 0], traj[t, 1], traj[t, 2]
        ax, ay, az = _f(px, py, pz, sigma, rho, beta)
        bx, by, bz = _f(px + 0.5 * dt * ax, py + 0.5 * dt * ay, pz + 0.5 * dt * az,
                        sigma, rho, beta)
        cx, cy, cz = _f(px + 0.5 * dt * bx, py + 0.5 * dt * by, pz + 0.5 * dt * bz,
                        sigma, rho, beta)
        ex, ey, ez = _f(px + dt * cx, py + dt * cy, pz + dt * cz, sigma, rho, beta)
        traj[t + 1, 0] = px + dt / 6.0 * (ax + 2.0 * bx + 2.0 * cx + ex)
        traj[t + 1, 1] = py + dt / 6.0 * (ay + 2.0 * by + 2.0 * cy + ey)
        traj[t + 1, 2] = pz + dt / 6.0 * (az + 2.0 * bz + 2.0 * cz + ez)
    return traj[steps, 0] ** 2 + traj[steps, 1] ** 2 + traj[steps, 2] ** 2


SPELLINGS = (rotated_buffers, helper_while, trajectory_array)
