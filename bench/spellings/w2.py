"""W2 GMM objective, spelled differently from bench.w2_gmm.loop (same definition)."""
import math

import numpy as np


def _constant(d):
    big_n = d + 1
    mgl = 0.25 * d * (d - 1) * math.log(math.pi)
    for j in range(1, d + 1):
        mgl += math.lgamma(0.5 * big_n + 0.5 * (1 - j))
    return big_n * d * (0.0 - 0.5 * math.log(2.0)) - mgl


def _logsumexp(v):
    mx = v[0]
    for k in range(1, len(v)):
        if v[k] > mx:
            mx = v[k]
    se = 0.0
    for k in range(len(v)):
        se += math.exp(v[k] - mx)
    return mx + math.log(se)


def _prior(icf, d):
    prior = 0.0
    for k in range(icf.shape[0]):
        for j in range(d):
            prior += 0.5 * math.exp(2.0 * icf[k, j])
        for j in range(d, icf.shape[1]):
            prior += 0.5 * icf[k, j] * icf[k, j]
    return prior - icf.shape[0] * _constant(d)


def adbench_cpp(alphas, means, icf, x):
    """ADBench's C++ reference: per point and component, xc and Qxc set, then Qxc updated in
    place with `+=` while walking icf's packed lower part with a running index."""
    k_count = alphas.shape[0]
    d = means.shape[1]
    n = x.shape[0]
    qdiag = np.zeros((k_count, d))
    sum_q = np.zeros(k_count)
    for k in range(k_count):
        for j in range(d):
            qdiag[k, j] = math.exp(icf[k, j])
            sum_q[k] += icf[k, j]
    xc = np.zeros(d)
    qxc = np.zeros(d)
    main = np.zeros(k_count)
    slse = 0.0
    for i in range(n):
        for k in range(k_count):
            for j in range(d):
                xc[j] = x[i, j] - means[k, j]
            for j in range(d):
                qxc[j] = qdiag[k, j] * xc[j]
            li = d
            for j in range(d):
                for r in range(j + 1, d):
                    qxc[r] += icf[k, li] * xc[j]
                    li += 1
            sq = 0.0
            for j in range(d):
                sq += qxc[j] * qxc[j]
            main[k] = alphas[k] + sum_q[k] - 0.5 * sq
        slse += _logsumexp(main)
    return (-0.5 * n * d * math.log(2.0 * math.pi) + slse - n * _logsumexp(alphas)
            + _prior(icf, d))


def components_outer(alphas, means, icf, x):
    """Components in the outer loop filling an (n, K) table, the per-point logsumexp a second
    pass over its rows; the Mahalanobis term row by row of Q, without scratch vectors."""
    k_count = alphas.shape[0]
    d = means.shape[1]
    n = x.shape[0]
    table = np.zeros((n, k_count))
    for k in range(k_count):
        sum_q = 0.0
        for j in range(d):
            sum_q += icf[k, j]
        for i in range(n):
            sq = 0.0
            for r in range(d):
                v = math.exp(icf[k, r]) * (x[i, r] - means[k, r])
                for c in range(r):
                    v += icf[k, d + c * (2 * d - c - 1) // 2 + r - c - 1] * (x[i, c] - means[k, c])
                sq += v * v
            table[i, k] = alphas[k] + sum_q - 0.5 * sq
    slse = 0.0
    for i in range(n):
        slse += _logsumexp(table[i])
    return (-0.5 * n * d * math.log(2.0 * math.pi) + slse - n * _logsumexp(alphas)
            + _prior(icf, d))


SPELLINGS = (adbench_cpp, components_outer)
