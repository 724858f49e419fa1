"""Functions from application domains, written the way their users write them: signal
processing, physics, statistics, geometry, optimisation objectives, numerics and model
pieces, with Python idioms mixed in (keyword defaults, dicts of parameters, helpers calling
helpers, tuples unpacked, global constants and arrays, masks, in-place slice updates).
Each runs in CPython as it is (the oracle); pyad must agree on its value and gradient
(tests/frontend/test_corpus_domains.py). Arguments keep away from kinks on purpose."""
import math

import numpy as np

G = 9.81
DT = 0.01
TAPS = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
WEIGHTS3 = np.array([0.25, 0.5, 0.25])
PARAMS = {"k": 2.0, "m": 0.5, "c": 0.1}


def _rng(seed):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------- signal processing

def fir_filter_loops(x, h):
    n, m = len(x), len(h)
    y = np.zeros(n)
    for i in range(n):
        for k in range(m):
            if i - k >= 0:
                y[i] += h[k] * x[i - k]
    return np.sum(y * y)


def fir_filter_slices(x):
    m = TAPS.shape[0]
    y = np.zeros(x.shape[0] - m + 1)
    for k, t in enumerate(TAPS):
        y += t * x[m - 1 - k: x.shape[0] - k]
    return float(np.dot(y, y))


def iir_first_order(x, a):
    y = 0.0
    out = np.empty_like(x)
    for i, v in enumerate(x):
        y = a * y + (1.0 - a) * v
        out[i] = y
    return out[-1] + 0.5 * out.sum()


def biquad(x, b0, b1, b2, a1, a2):
    x1 = x2 = y1 = y2 = 0.0
    energy = 0.0
    for xn in x:
        yn = b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, xn
        y2, y1 = y1, yn
        energy += yn ** 2
    return energy


def hann_windowed_energy(x):
    n = len(x)
    w = 0.5 - 0.5 * np.cos(2.0 * math.pi * np.arange(n) / (n - 1))
    return np.sum((w * x) ** 2) / np.sum(w)


def hamming_loop(x):
    n = x.size
    total = 0.0
    for i in range(n):
        w = 0.54 - 0.46 * math.cos(2 * math.pi * i / (n - 1))
        total += w * x[i]
    return total


def autocorrelation(x, maxlag=3):
    xm = x - x.mean()
    r0 = np.dot(xm, xm)
    acf = [np.dot(xm[:len(x) - k], xm[k:]) / r0 for k in range(1, maxlag + 1)]
    return sum(a * a for a in acf)


def autocorr_full_loop(x):
    n = len(x)
    r = np.zeros(n)
    for lag in range(n):
        s = 0.0
        for t in range(n - lag):
            s += x[t] * x[t + lag]
        r[lag] = s
    return r[1] / r[0] + r[2] / r[0]


def dft_magnitude(x):
    n = len(x)
    power = 0.0
    for k in range(1, n // 2):
        re = 0.0
        im = 0.0
        for t in range(n):
            ang = -2.0 * math.pi * k * t / n
            re += x[t] * math.cos(ang)
            im += x[t] * math.sin(ang)
        power += math.sqrt(re * re + im * im + 1e-12)
    return power


def dft_vectorized(x):
    n = x.shape[0]
    t = np.arange(n)
    k = np.arange(n)[:, None]
    re = np.cos(2 * np.pi * k * t / n) @ x
    im = -np.sin(2 * np.pi * k * t / n) @ x
    return np.sum(np.log1p(re ** 2 + im ** 2))


def moving_rms(x, w=3):
    out = []
    for i in range(len(x) - w + 1):
        seg = x[i:i + w]
        out.append(np.sqrt(np.mean(seg ** 2)))
    return sum(out)


def preemphasis(x, coeff=0.97):
    y = x.copy()
    y[1:] = x[1:] - coeff * x[:-1]
    return np.sum(y[::2] ** 2) - np.sum(y[1::2]) * 0.1


def downsample_decimate(x):
    lp = np.convolve(x, WEIGHTS3, mode="same")
    return np.sum(lp[::2] * lp[::2]) + lp[-1]


def zero_crossing_soft(x, beta=4.0):
    s = np.tanh(beta * x)
    return np.sum(s[1:] * s[:-1])


def envelope_follower(x, attack=0.3, release=0.05):
    env = 0.0
    total = 0.0
    for v in x:
        a = abs(v)
        coeff = attack if a > env else release
        env += coeff * (a - env)
        total += env
    return total


def median_of_three_filter(x):
    y = x.copy()
    for i in range(1, len(x) - 1):
        a, b, c = x[i - 1], x[i], x[i + 1]
        y[i] = max(min(a, b), min(max(a, b), c))
    return np.sum(y * np.arange(1, len(y) + 1))


# ---------------------------------------------------------------------- physics

def spring_chain_energy(pos, k=PARAMS["k"], rest=1.0):
    e = 0.0
    for a, b in zip(pos[:-1], pos[1:]):
        e += 0.5 * k * (b - a - rest) ** 2
    return e


def spring_mass_simulate(x0, v0, steps=20):
    k, m, c = PARAMS["k"], PARAMS["m"], PARAMS["c"]
    x, v = x0, v0
    for _ in range(steps):
        a = (-k * x - c * v) / m
        v = v + DT * a
        x = x + DT * v
    return x * x + v


def chain_dynamics(x0, v0, k, steps):
    x = x0.copy()
    v = v0.copy()
    n = x.shape[0]
    for _ in range(steps):
        f = np.zeros(n)
        f[1:] -= k * (x[1:] - x[:-1])
        f[:-1] += k * (x[1:] - x[:-1])
        v += DT * f
        x += DT * v
    return np.sum(x ** 2) + np.sum(v)


def pendulum_rk4(theta0, omega0, length=1.0, steps=25, h=0.02):
    def deriv(th, om):
        return om, -G / length * math.sin(th)

    th, om = theta0, omega0
    for _ in range(steps):
        k1 = deriv(th, om)
        k2 = deriv(th + 0.5 * h * k1[0], om + 0.5 * h * k1[1])
        k3 = deriv(th + 0.5 * h * k2[0], om + 0.5 * h * k2[1])
        k4 = deriv(th + h * k3[0], om + h * k3[1])
        th += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        om += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
    return th, om


def heat_roll(u0, alpha, steps):
    u = u0.copy()
    for _ in range(steps):
        u = u + alpha * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
    return np.sum(u ** 3)


def heat_slices_inplace(u0, alpha, steps):
    u = u0.copy()
    for _ in range(steps):
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u[1:-1] += alpha * lap
    return np.sum(u * u)


def velocity_verlet(q0, p0, steps=15, h=0.05):
    def force(q):
        return -q - 0.1 * q ** 3

    q, p = q0, p0
    f = force(q)
    for _ in range(steps):
        p = p + 0.5 * h * f
        q = q + h * p
        f = force(q)
        p = p + 0.5 * h * f
    return 0.5 * p * p + 0.5 * q * q + 0.025 * q ** 4


def nbody_energy(pos, mass):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            e -= mass[i] * mass[j] / math.sqrt(d @ d + 0.01)
    return e


def nbody_vectorized(pos, mass):
    diff = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(diff ** 2, axis=-1) + np.eye(pos.shape[0])
    inv = 1.0 / np.sqrt(r2)
    inv = inv - np.diag(np.diag(inv))
    return -0.5 * mass @ inv @ mass


def projectile_range(v, angle, drag=0.05):
    x, y = 0.0, 0.0
    vx, vy = v * math.cos(angle), v * math.sin(angle)
    t = 0
    while y >= 0.0 and t < 500:
        speed = math.hypot(vx, vy)
        vx -= DT * drag * speed * vx
        vy -= DT * (G + drag * speed * vy)
        x += DT * vx
        y += DT * vy
        t += 1
    return x


def wave_1d(u0, c, steps):
    prev = u0.copy()
    cur = u0.copy()
    r2 = (c * 0.5) ** 2
    for _ in range(steps):
        nxt = np.zeros_like(cur)
        nxt[1:-1] = 2 * cur[1:-1] - prev[1:-1] + r2 * (cur[2:] - 2 * cur[1:-1] + cur[:-2])
        prev, cur = cur, nxt
    return np.sum(cur ** 2)


def gravity_potential_grid(masses, xs):
    phi = np.zeros(xs.shape[0])
    for i, x in enumerate(xs):
        for j, m in enumerate(masses):
            phi[i] -= m / math.sqrt((x - j) ** 2 + 0.5)
    return phi.min() + phi.mean()


def ising_mean_field(h, beta=0.8, iters=30):
    m = 0.1
    for _ in range(iters):
        m = math.tanh(beta * (m + h))
    return m


def damped_oscillator_energy_series(x0, params):
    k = params["k"]
    c = params["c"]
    x, v = x0, 0.0
    energies = []
    for step in range(30):
        a = -k * x - c * v
        v += a * DT
        x += v * DT
        if step % 5 == 4:
            energies.append(0.5 * v * v + 0.5 * k * x * x)
    return energies[-1] / energies[0]


# ---------------------------------------------------------------------- statistics

def student_t_nll(x, mu, log_scale, nu=4.0):
    s = math.exp(log_scale)
    z = (x - mu) / s
    c = math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi)
    return -np.sum(c - log_scale - (nu + 1) / 2 * np.log1p(z ** 2 / nu))


def logistic_l2(w, X, y, lam=0.1):
    z = X @ w
    loss = np.mean(np.logaddexp(0.0, z) - y * z)
    return loss + 0.5 * lam * w @ w


def logistic_manual_stable(w, b, X, y):
    z = X @ w + b
    p = np.where(z >= 0, 1.0 / (1.0 + np.exp(-np.abs(z))),
                 np.exp(-np.abs(z)) / (1.0 + np.exp(-np.abs(z))))
    eps = 1e-12
    return -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))


def poisson_glm(beta, X, counts):
    eta = X @ beta
    ll = 0.0
    for i in range(len(counts)):
        ll += counts[i] * eta[i] - math.exp(eta[i]) - math.lgamma(counts[i] + 1.0)
    return -ll


def hierarchical_normal(theta, mu, log_tau, y, sigma):
    tau = np.exp(log_tau)
    lp = -0.5 * np.sum(((y - theta) / sigma) ** 2)
    lp += -0.5 * np.sum(((theta - mu) / tau) ** 2) - len(theta) * log_tau
    lp += -0.5 * mu ** 2 / 25.0
    return -lp


def gmm_logsumexp(x, means, log_sd, logits):
    logw = logits - np.log(np.sum(np.exp(logits)))
    sd = np.exp(log_sd)
    comp = (-0.5 * ((x[:, None] - means[None, :]) / sd) ** 2 - log_sd
            - 0.5 * math.log(2 * math.pi) + logw)
    m = np.max(comp, axis=1, keepdims=True)
    return -np.sum(m[:, 0] + np.log(np.sum(np.exp(comp - m), axis=1)))


def gmm_loop(x, means, sds):
    total = 0.0
    for xi in x:
        terms = [-0.5 * ((xi - mu) / s) ** 2 - math.log(s) for mu, s in zip(means, sds)]
        mx = max(terms)
        total += mx + math.log(sum(math.exp(t - mx) for t in terms))
    return total


def kde_logdensity(points, data, bw=0.5):
    d = (points[:, None] - data[None, :]) / bw
    k = np.exp(-0.5 * d * d) / math.sqrt(2 * math.pi)
    dens = k.mean(axis=1) / bw
    return np.sum(np.log(dens))


def weighted_variance(x, w):
    wn = w / w.sum()
    mu = np.sum(wn * x)
    return np.sum(wn * (x - mu) ** 2)


def welford(x):
    n = 0
    mean = 0.0
    m2 = 0.0
    for v in x:
        n += 1
        delta = v - mean
        mean += delta / n
        m2 += delta * (v - mean)
    return mean, m2 / (n - 1)


def beta_binomial_loglik(a, b, k, n):
    def lbeta(p, q):
        return math.lgamma(p) + math.lgamma(q) - math.lgamma(p + q)
    out = 0.0
    for ki, ni in zip(k, n):
        out += lbeta(ki + a, ni - ki + b) - lbeta(a, b)
    return out


def ar1_loglik(x, phi, log_sigma):
    sigma2 = math.exp(2 * log_sigma)
    resid = x[1:] - phi * x[:-1]
    n = resid.shape[0]
    return -0.5 * n * math.log(2 * math.pi * sigma2) - 0.5 * np.sum(resid ** 2) / sigma2


def bayes_linear_posterior(X, y, alpha=1.0, beta=4.0):
    d = X.shape[1]
    A = alpha * np.eye(d) + beta * X.T @ X
    mean = beta * np.linalg.solve(A, X.T @ y)
    sign, logdet = np.linalg.slogdet(A)
    return mean @ mean + logdet


def ecdf_smooth(x, t, h=0.3):
    return np.mean(1.0 / (1.0 + np.exp(-(t - x) / h)))


def pearson_r(x, y):
    xm = x - np.mean(x)
    ym = y - np.mean(y)
    return np.sum(xm * ym) / np.sqrt(np.sum(xm ** 2) * np.sum(ym ** 2))


def cross_entropy_onehot(logits, labels):
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    n = logits.shape[0]
    return -sum(logp[i, labels[i]] for i in range(n)) / n


_R = _rng(7)
X8 = _R.uniform(-1.0, 1.0, 8)
X12 = _R.uniform(-1.0, 1.0, 12)
H4 = np.array([0.5, -0.3, 0.2, 0.1])
POS5 = np.array([0.0, 1.1, 2.3, 2.9, 4.2])
POS2D = _R.normal(size=(4, 2)) * 2.0
MASS4 = np.array([1.0, 2.0, 0.5, 1.5])
XD = _R.normal(size=(10, 3))
YB = (_R.uniform(size=10) > 0.5).astype(float)
W3 = np.array([0.3, -0.2, 0.5])
COUNTS = np.array([1.0, 0.0, 3.0, 2.0, 5.0, 1.0, 0.0, 2.0, 4.0, 1.0])
KI = np.array([2, 5, 1, 7])
NI = np.array([10, 12, 8, 15])
LABELS = np.array([0, 2, 1, 1, 0])
LOGITS = _R.normal(size=(5, 3))

CASES = [
    (fir_filter_loops, (X8, H4)), (fir_filter_slices, (X12,)),
    (iir_first_order, (X8, 0.7)), (biquad, (X8, 0.2, 0.3, 0.1, -0.4, 0.2)),
    (hann_windowed_energy, (X12,)), (hamming_loop, (X8,)), (autocorrelation, (X12,)),
    (autocorr_full_loop, (X8,)), (dft_magnitude, (X8,)), (dft_vectorized, (X8,)),
    (moving_rms, (X8,)), (preemphasis, (X12,)), (downsample_decimate, (X12,)),
    (zero_crossing_soft, (X8,)), (envelope_follower, (X12,)), (median_of_three_filter, (X8,)),
    (spring_chain_energy, (POS5,)), (spring_mass_simulate, (0.5, -0.2)),
    (chain_dynamics, (POS5, X8[:5], 1.5, 6)), (pendulum_rk4, (0.8, 0.1)),
    (heat_roll, (X12, 0.2, 5)), (heat_slices_inplace, (X12, 0.2, 5)),
    (velocity_verlet, (1.0, 0.3)), (nbody_energy, (POS2D, MASS4)),
    (nbody_vectorized, (POS2D, MASS4)), (projectile_range, (12.0, 0.7)),
    (wave_1d, (np.sin(np.linspace(0, 3, 10)), 0.8, 6)),
    (gravity_potential_grid, (MASS4, X8 * 3.0)), (ising_mean_field, (0.3,)),
    (damped_oscillator_energy_series, (1.2, PARAMS)),
    (student_t_nll, (X8, 0.1, -0.3)), (logistic_l2, (W3, XD, YB)),
    (logistic_manual_stable, (W3, 0.1, XD, YB)), (poisson_glm, (W3 * 0.5, XD, COUNTS)),
    (hierarchical_normal, (X8[:4], 0.2, -0.1, X8[4:], np.array([0.5, 0.6, 0.7, 0.8]))),
    (gmm_logsumexp, (X8, np.array([-0.5, 0.0, 0.6]), np.array([-0.2, 0.1, -0.5]),
                     np.array([0.2, -0.1, 0.3]))),
    (gmm_loop, (X8, [-0.5, 0.6], [0.8, 1.2])), (kde_logdensity, (X8[:3], X12)),
    (weighted_variance, (X8, np.abs(X8) + 0.5)), (welford, (X8,)),
    (beta_binomial_loglik, (1.5, 2.5, KI, NI)), (ar1_loglik, (X12, 0.4, -0.2)),
    (bayes_linear_posterior, (XD, XD @ W3)), (ecdf_smooth, (X12, 0.1)),
    (pearson_r, (X8, X8 ** 2 + 0.3 * X8)), (cross_entropy_onehot, (LOGITS, LABELS)),
]
