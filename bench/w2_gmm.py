"""W2: the ADBench GMM objective (Srajer et al. 2018), as defined in WORKLOADS.md.

alphas (K), means (K, d), icf (K, d(d+1)/2): icf[k, :d] are the logs of the diagonal of the
lower-triangular Q_k, icf[k, d:] its strictly lower part packed column by column; x (n, d).
Wishart prior with gamma = 1 and m = 0. Every logsumexp is max-shifted."""
import math

import numpy as np

SIZES = {"tiny": (3, 4, 5), "full": (10, 25, 1000)}  # (d, K, n)


def loop(alphas, means, icf, x):
    """Loop style: what pyad and Numba compile and CPython runs."""
    k_count = alphas.shape[0]
    d = means.shape[1]
    n = x.shape[0]
    gamma = 1.0
    wishart_m = 0
    big_n = d + wishart_m + 1
    # C = N d (log gamma - log(2)/2) - multigammaln(N/2, d)
    mgl = 0.25 * d * (d - 1) * math.log(math.pi)
    for j in range(1, d + 1):
        mgl += math.lgamma(0.5 * big_n + 0.5 * (1 - j))
    const_c = big_n * d * (math.log(gamma) - 0.5 * math.log(2.0)) - mgl
    # per-component quantities reused for every point
    qdiag = np.zeros((k_count, d))
    sum_q = np.zeros(k_count)
    for k in range(k_count):
        for j in range(d):
            qdiag[k, j] = math.exp(icf[k, j])
            sum_q[k] += icf[k, j]
    # sum_i logsumexp_k(alphas[k] + sum_q[k] - 0.5 ||Q_k (x_i - means[k])||^2)
    xc = np.zeros(d)
    main = np.zeros(k_count)
    slse = 0.0
    for i in range(n):
        for k in range(k_count):
            for j in range(d):
                xc[j] = x[i, j] - means[k, j]
            sq = 0.0
            for r in range(d):
                v = qdiag[k, r] * xc[r]
                for c in range(r):
                    v += icf[k, d + c * (2 * d - c - 1) // 2 + r - c - 1] * xc[c]
                sq += v * v
            main[k] = alphas[k] + sum_q[k] - 0.5 * sq
        mx = main[0]
        for k in range(1, k_count):
            mx = max(mx, main[k])
        se = 0.0
        for k in range(k_count):
            se += math.exp(main[k] - mx)
        slse += mx + math.log(se)
    # logsumexp(alphas)
    amax = alphas[0]
    for k in range(1, k_count):
        amax = max(amax, alphas[k])
    sa = 0.0
    for k in range(k_count):
        sa += math.exp(alphas[k] - amax)
    lse_alphas = amax + math.log(sa)
    # Wishart prior
    prior = 0.0
    for k in range(k_count):
        frob = 0.0
        for j in range(d):
            frob += qdiag[k, j] * qdiag[k, j]
        for j in range(d, icf.shape[1]):
            frob += icf[k, j] * icf[k, j]
        prior += 0.5 * gamma * gamma * frob - wishart_m * sum_q[k]
    prior -= k_count * const_c
    return -0.5 * n * d * math.log(2.0 * math.pi) + slse - n * lse_alphas + prior


def _lower_index(d: int) -> np.ndarray:
    """(d, d) int array: 1 + the position in icf[k, d:] of entry (r, c), r > c; 0 elsewhere."""
    idx = np.zeros((d, d), dtype=np.int64)
    p = 1
    for c in range(d):
        for r in range(c + 1, d):
            idx[r, c] = p
            p += 1
    return idx


def _multigammaln(a: float, p: int) -> float:
    return 0.25 * p * (p - 1) * math.log(math.pi) + sum(
        math.lgamma(a + 0.5 * (1 - j)) for j in range(1, p + 1))


def _logsumexp(ops, a, axis):
    mx = ops.amax(a, axis)
    return ops.squeeze(mx, axis) + ops.log(ops.sum(ops.exp(a - mx), axis=axis))


def array(ops, alphas, means, icf, x):
    """Array style: Q_k gathered from icf, all (point, component) pairs at once."""
    k_count, d = means.shape
    n = x.shape[0]
    gamma, wishart_m = 1.0, 0
    big_n = d + wishart_m + 1
    const_c = big_n * d * (math.log(gamma) - 0.5 * math.log(2.0)) - _multigammaln(0.5 * big_n, d)
    qdiag = ops.exp(icf[:, :d])
    sum_q = ops.sum(icf[:, :d], axis=1)
    padded = ops.concat([ops.zeros((k_count, 1)), icf[:, d:]], axis=1)
    lower = padded[:, ops.index(_lower_index(d))]                     # (K, d, d)
    q = lower + qdiag[:, :, None] * ops.asarray(np.eye(d))            # (K, d, d)
    xc = x[:, None, :] - means[None, :, :]                            # (n, K, d)
    qxc = ops.einsum("krc,nkc->nkr", q, xc)
    main = alphas[None, :] + sum_q[None, :] - 0.5 * ops.sum(qxc * qxc, axis=2)
    slse = ops.sum(_logsumexp(ops, main, 1))
    prior = ops.sum(0.5 * gamma * gamma * (ops.sum(qdiag * qdiag, axis=1)
                                           + ops.sum(icf[:, d:] * icf[:, d:], axis=1))
                    - wishart_m * sum_q) - k_count * const_c
    return (-0.5 * n * d * math.log(2.0 * math.pi) + slse
            - n * _logsumexp(ops, alphas, 0) + prior)


def _multigammaln_loop(a: float, p: int) -> float:
    s = 0.25 * p * (p - 1) * math.log(math.pi)
    for j in range(1, p + 1):
        s += math.lgamma(a + 0.5 * (1 - j))
    return s


def _np_logsumexp(a, axis):
    mx = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(mx, axis) + np.log(np.sum(np.exp(a - mx), axis=axis))


def array_numpy(alphas, means, icf, x):
    """`array` with NumPy alone (what a JAX user writes with jnp; the constant's sum a loop,
    since pyad compiles no generator expressions): pyad compiles it."""
    k_count, d = means.shape
    n = x.shape[0]
    gamma, wishart_m = 1.0, 0
    big_n = d + wishart_m + 1
    const_c = big_n * d * (math.log(gamma) - 0.5 * math.log(2.0)) \
        - _multigammaln_loop(0.5 * big_n, d)
    qdiag = np.exp(icf[:, :d])
    sum_q = np.sum(icf[:, :d], axis=1)
    padded = np.concatenate([np.zeros((k_count, 1)), icf[:, d:]], axis=1)
    lower = padded[:, _lower_index(d)]                                # (K, d, d)
    q = lower + qdiag[:, :, None] * np.eye(d)                         # (K, d, d)
    xc = x[:, None, :] - means[None, :, :]                            # (n, K, d)
    qxc = np.einsum("krc,nkc->nkr", q, xc)
    main = alphas[None, :] + sum_q[None, :] - 0.5 * np.sum(qxc * qxc, axis=2)
    slse = np.sum(_np_logsumexp(main, 1))
    prior = np.sum(0.5 * gamma * gamma * (np.sum(qdiag * qdiag, axis=1)
                                          + np.sum(icf[:, d:] * icf[:, d:], axis=1))
                   - wishart_m * sum_q) - k_count * const_c
    return (-0.5 * n * d * math.log(2.0 * math.pi) + slse
            - n * _np_logsumexp(alphas, 0) + prior)


def make_args(size: str) -> tuple:
    """(alphas, means, icf, x): alphas ~ N(0,1), means ~ U(0,1), icf ~ N(0,1), x ~ N(0,1)."""
    d, k_count, n = SIZES[size]
    rng = np.random.default_rng(0)
    alphas = rng.standard_normal(k_count)
    means = rng.uniform(0.0, 1.0, (k_count, d))
    icf = rng.standard_normal((k_count, d * (d + 1) // 2))
    x = rng.standard_normal((n, d))
    return (alphas, means, icf, x)


def describe(size: str) -> str:
    d, k_count, n = SIZES[size]
    return f"d={d} K={k_count} n={n}"
