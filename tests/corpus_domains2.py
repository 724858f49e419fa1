"""Second half of the domain corpus: geometry and robotics, optimisation objectives,
numerics, model pieces, and Python idioms (tests/frontend/test_corpus_domains.py)."""
import math

import numpy as np

LINKS = (1.0, 0.7)
ORIGIN = np.zeros(2)
EPS = 1e-8
SCALE = 3
AXIS_Z = np.array([0.0, 0.0, 1.0])


# ---------------------------------------------------------------------- geometry, robotics

def two_link_fk(q1, q2, l1=LINKS[0], l2=LINKS[1]):
    x = l1 * math.cos(q1) + l2 * math.cos(q1 + q2)
    y = l1 * math.sin(q1) + l2 * math.sin(q1 + q2)
    return x, y


def two_link_reach_loss(q, target):
    x, y = two_link_fk(q[0], q[1])
    return (x - target[0]) ** 2 + (y - target[1]) ** 2


def rot2(theta):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def planar_chain(angles, lengths):
    p = ORIGIN.copy()
    total = 0.0
    R = np.eye(2)
    for th, ln in zip(angles, lengths):
        R = R @ rot2(th)
        p = p + ln * R[:, 0]
        total += p[1]
    return p @ p + total


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rot_x(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def euler_zxz(a, b, c, v):
    R = rot_z(a) @ rot_x(b) @ rot_z(c)
    w = R @ v
    return w[0] * 2.0 + w[1] - w[2] ** 2 + np.trace(R)


def quat_mul(p, q):
    w1, x1, y1, z1 = p[0], p[1], p[2], p[3]
    w2, x2, y2, z2 = q[0], q[1], q[2], q[3]
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def quat_rotate(q, v):
    q = q / np.linalg.norm(q)
    qv = np.concatenate((np.array([0.0]), v))
    conj = q * np.array([1.0, -1.0, -1.0, -1.0])
    r = quat_mul(quat_mul(q, qv), conj)
    return r[1:]


def quat_loss(q, v, target):
    return np.sum((quat_rotate(q, v) - target) ** 2)


def axis_angle_rodrigues(axis, angle, v):
    k = axis / np.sqrt(axis @ axis)
    return (v * np.cos(angle) + np.cross(k, v) * np.sin(angle)
            + k * (k @ v) * (1.0 - np.cos(angle)))


def shoelace_area(xs, ys):
    n = len(xs)
    a = 0.0
    for i in range(n):
        j = (i + 1) % n
        a += xs[i] * ys[j] - xs[j] * ys[i]
    return abs(a) / 2.0


def shoelace_roll(P):
    x, y = P[:, 0], P[:, 1]
    return 0.5 * abs(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def polygon_perimeter(P):
    d = np.diff(np.vstack([P, P[:1]]), axis=0)
    return np.sum(np.sqrt(np.sum(d ** 2, axis=1)))


def point_segment_distance(p, a, b):
    ab = b - a
    t = np.dot(p - a, ab) / np.dot(ab, ab)
    t = min(max(t, 0.0), 1.0)
    closest = a + t * ab
    return np.linalg.norm(p - closest)


def triangle_angles(A, B, C):
    def angle(u, v):
        return math.acos(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)))
    return angle(B - A, C - A) * 2.0 + angle(A - B, C - B)


def centroid_and_spread(P):
    c = P.mean(axis=0)
    r = np.linalg.norm(P - c, axis=1)
    return c[0] + c[1], r.max() - r.min()


def haversine(lat1, lon1, lat2, lon2, radius=6371.0):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dphi = p2 - p1
    dl = math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * radius * math.asin(math.sqrt(a))


def homogeneous_transform(theta, t, pts):
    T = np.eye(3)
    T[:2, :2] = rot2(theta)
    T[:2, 2] = t
    ph = np.hstack([pts, np.ones((pts.shape[0], 1))])
    out = (T @ ph.T).T
    return np.sum(out[:, :2] ** 2)


# ---------------------------------------------------------------------- optimisation

def rosenbrock_nd(x, a=1.0, b=100.0):
    return np.sum(b * (x[1:] - x[:-1] ** 2) ** 2 + (a - x[:-1]) ** 2)


def rosenbrock_loop(x):
    s = 0
    for i in range(len(x) - 1):
        s += 100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return s


def beale(xy):
    x, y = xy
    return ((1.5 - x + x * y) ** 2 + (2.25 - x + x * y ** 2) ** 2
            + (2.625 - x + x * y ** 3) ** 2)


def himmelblau(x, y):
    return (x ** 2 + y - 11) ** 2 + (x + y ** 2 - 7) ** 2


def penalty_method(x, mu=10.0):
    f = (x[0] - 2) ** 2 + (x[1] - 1) ** 2
    g = x[0] ** 2 + x[1] ** 2 - 2.0
    return f + mu * max(g, 0.0) ** 2


def log_barrier(x, t=5.0):
    f = x @ x - x.sum()
    cons = 1.0 - np.abs(x)
    return t * f - np.sum(np.log(cons))


def huber_loss_vec(r, delta=1.0):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def pseudo_huber(r, delta=0.7):
    return np.sum(delta ** 2 * (np.sqrt(1 + (r / delta) ** 2) - 1))


def gradient_descent_unrolled(x0, lr=0.05, steps=10):
    x = x0
    for _ in range(steps):
        g = 4 * x ** 3 - 3 * x
        x = x - lr * g
    return x


def ackley(x):
    n = x.shape[0]
    s1 = np.sum(x ** 2) / n
    s2 = np.sum(np.cos(2 * np.pi * x)) / n
    return -20 * np.exp(-0.2 * np.sqrt(s1)) - np.exp(s2) + 20 + math.e


def rastrigin(x, A=10):
    return A * len(x) + sum([xi ** 2 - A * math.cos(2 * math.pi * xi) for xi in x])


def augmented_lagrangian(x, lam, rho=2.0):
    f = np.sum(x ** 4) - x[0] * x[1]
    h = np.array([x[0] + x[1] - 1.0, x[2] - 0.5 * x[0]])
    return f + lam @ h + 0.5 * rho * h @ h


def elastic_net(w, X, y, l1=0.1, l2=0.05):
    r = X @ w - y
    return 0.5 * np.mean(r ** 2) + l1 * np.sum(np.sqrt(w ** 2 + EPS)) + l2 * np.sum(w ** 2)


def line_search_armijo(x, d):
    def f(z):
        return np.sum(z ** 2) + np.sum(np.sin(z))
    t = 1.0
    fx = f(x)
    while f(x + t * d) > fx - 1e-4 * t * np.dot(d, d):
        t *= 0.5
        if t < 1e-6:
            break
    return f(x + t * d)


# ---------------------------------------------------------------------- numerics

def horner_kw(x, coeffs=(1.0, -2.0, 0.5, 3.0)):
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * x + c
    return acc


def horner_array_coeffs(c, x):
    y = np.zeros_like(x)
    for k in range(c.shape[0] - 1, -1, -1):
        y = y * x + c[k]
    return y.sum()


def chebyshev_series(c, x):
    t_prev, t_cur = 1.0, x
    s = c[0] + c[1] * x
    for k in range(2, len(c)):
        t_prev, t_cur = t_cur, 2 * x * t_cur - t_prev
        s += c[k] * t_cur
    return s


def chebyshev_vector(c, xs):
    T = [np.ones_like(xs), xs]
    for _ in range(2, c.size):
        T.append(2 * xs * T[-1] - T[-2])
    return np.sum(sum(ck * Tk for ck, Tk in zip(c, T)) ** 2)


def simpson_of_function(a, b, n=10):
    f = lambda t: math.exp(-t * t) * math.cos(a * t)  # noqa: E731
    h = (b - 0.0) / n
    s = f(0.0) + f(b)
    for i in range(1, n):
        s += (4 if i % 2 else 2) * f(i * h)
    return s * h / 3


def trapezoid_np(y, x):
    return np.trapezoid(y ** 2, x) + np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2)


def newton_inside(a, x0=1.0, tol=1e-12):
    x = x0
    for _ in range(50):
        fx = x ** 3 + x - a
        step = fx / (3 * x ** 2 + 1)
        x -= step
        if abs(step) < tol:
            break
    return x * a


def bisection_root(c, lo=0.0, hi=3.0):
    f = lambda x: x * math.exp(x) - c  # noqa: E731
    while hi - lo > 1e-6:
        mid = 0.5 * (lo + hi)
        if f(mid) > 0:
            hi = mid
        else:
            lo = mid
    x = 0.5 * (lo + hi)
    for _ in range(3):   # Newton polish: the result (and its gradient) depends on c
        x -= f(x) / ((1.0 + x) * math.exp(x))
    return x


def fixed_point_iter(a):
    x = 0.5
    k = 0
    while True:
        nx = math.cos(a * x)
        k += 1
        if abs(nx - x) < 1e-13 or k > 200:
            return nx
        x = nx


def tridiagonal_solve(a, b, c, d):
    n = len(d)
    cp = np.zeros(n)
    dp = np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m if i < n - 1 else 0.0
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.zeros(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return np.sum(x * np.arange(1, n + 1))


def romberg(b, levels=4):
    def f(t):
        return 1.0 / (1.0 + t * t)
    R = np.zeros((levels, levels))
    h = b
    R[0, 0] = 0.5 * h * (f(0.0) + f(b))
    for i in range(1, levels):
        h /= 2
        s = 0.0
        for k in range(1, 2 ** i, 2):
            s += f(k * h)
        R[i, 0] = 0.5 * R[i - 1, 0] + h * s
        for j in range(1, i + 1):
            R[i, j] = R[i, j - 1] + (R[i, j - 1] - R[i - 1, j - 1]) / (4 ** j - 1)
    return R[-1, -1]


def gauss_legendre3(a, b):
    nodes = (-math.sqrt(3 / 5), 0.0, math.sqrt(3 / 5))
    weights = (5 / 9, 8 / 9, 5 / 9)
    mid, half = (a + b) / 2, (b - a) / 2
    return half * sum(w * math.sin(mid + half * t) ** 2 for t, w in zip(nodes, weights))


def lagrange_interp(xs, ys, t):
    total = 0.0
    for i, (xi, yi) in enumerate(zip(xs, ys)):
        li = 1.0
        for j, xj in enumerate(xs):
            if j != i:
                li *= (t - xj) / (xi - xj)
        total += yi * li
    return total


def euler_ode_system(y0, k, steps=30, h=0.05):
    y = y0.copy()
    A = np.array([[-k, 1.0], [-1.0, -k]])
    for _ in range(steps):
        y = y + h * (A @ y)
    return y[0] - 2 * y[1]


def gauss_seidel(A, b, sweeps=8):
    n = b.shape[0]
    x = np.zeros(n)
    for _ in range(sweeps):
        for i in range(n):
            s = b[i] - A[i, :i] @ x[:i] - A[i, i + 1:] @ x[i + 1:]
            x[i] = s / A[i, i]
    return x @ x


def finite_diff_jacobian_trace(x, h=1e-3):
    def F(v):
        return np.sin(v) * v[::-1]
    tr = 0.0
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        tr += (F(x + e)[i] - F(x - e)[i]) / (2 * h)
    return tr


def power_series_exp_matrix(A, terms=8):
    n = A.shape[0]
    term = np.eye(n)
    total = np.eye(n)
    for k in range(1, terms):
        term = term @ A / k
        total += term
    return np.trace(total)


def continued_fraction_tan(x, depth=8):
    acc = 0.0
    for k in range(depth, 0, -1):
        acc = x * x / ((2 * k + 1) - acc)
    return x / (1 - acc)


def cumulative_trapezoid(y, dx=0.1):
    out = np.zeros_like(y)
    out[1:] = np.cumsum((y[1:] + y[:-1]) * dx / 2)
    return out[-1] * out[len(out) // 2]


# ---------------------------------------------------------------------- model pieces

def layernorm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return np.sum(((x - mu) / np.sqrt(var + eps) * gamma + beta) ** 2)


def softmax_xent_keepdims(logits, onehot):
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    logp = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    return -np.mean(np.sum(onehot * logp, axis=-1))


def scaled_attention(Q, K, V, causal=True):
    d = Q.shape[-1]
    s = Q @ K.T / math.sqrt(d)
    if causal:
        n = s.shape[0]
        mask = np.triu(np.ones((n, n)), 1) > 0
        s = np.where(mask, -1e9, s)
    s = s - s.max(axis=1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=1, keepdims=True)
    return np.sum((p @ V) ** 2)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def gru_cell(x, h, W, U, b):
    H = h.shape[0]
    gx = W @ x + b
    gh = U @ h
    z = sigmoid(gx[:H] + gh[:H])
    r = sigmoid(gx[H:2 * H] + gh[H:2 * H])
    n = np.tanh(gx[2 * H:] + r * gh[2 * H:])
    return (1 - z) * n + z * h


def gru_sequence(xs, h0, W, U, b):
    h = h0
    for t in range(xs.shape[0]):
        h = gru_cell(xs[t], h, W, U, b)
    return np.sum(h ** 2)


def lstm_sequence(xs, W, b):
    H = b.shape[0] // 4
    h = np.zeros(H)
    c = np.zeros(H)
    for x in xs:
        g = W @ np.concatenate([x, h]) + b
        i, f, o = sigmoid(g[:H]), sigmoid(g[H:2 * H]), sigmoid(g[2 * H:3 * H])
        u = np.tanh(g[3 * H:])
        c = f * c + i * u
        h = o * np.tanh(c)
    return h.sum() + c @ c


def conv1d_loops(x, k, stride=2):
    n = (len(x) - len(k)) // stride + 1
    out = np.empty(n)
    for i in range(n):
        acc = 0.0
        for j in range(len(k)):
            acc += x[i * stride + j] * k[j]
        out[i] = acc
    return np.sum(np.maximum(out, 0.0) ** 2) + out.sum()


def conv1d_slicing(x, k):
    m = k.shape[0]
    n = x.shape[0] - m + 1
    out = sum(k[j] * x[j:j + n] for j in range(m))
    return np.sum(np.tanh(out))


def conv1d_channels(x, W):
    cout, cin, kw = W.shape
    L = x.shape[1] - kw + 1
    y = np.zeros((cout, L))
    for o in range(cout):
        for t in range(L):
            y[o, t] = np.sum(W[o] * x[:, t:t + kw])
    return np.sum(y ** 2)


def mlp_dict(params, x):
    h = np.tanh(params["W1"] @ x + params["b1"])
    return float(params["w2"] @ h + params["b2"])


def maxpool_then_dense(x, w):
    pooled = np.max(x.reshape(-1, 2), axis=1)
    return pooled @ w


def batchnorm_train(X, gamma, beta):
    mu = X.mean(axis=0)
    var = X.var(axis=0)
    Xh = (X - mu) / np.sqrt(var + 1e-5)
    return np.sum((gamma * Xh + beta) ** 3)


def dropout_fixed_mask(x, W):
    mask = (np.arange(x.shape[0]) % 3) != 0
    h = np.where(mask, x, 0.0) / (2 / 3)
    return np.sum(np.tanh(W @ h))


def label_smoothing_loss(logits, target, eps=0.1):
    k = logits.shape[0]
    logp = logits - np.log(np.sum(np.exp(logits)))
    q = np.full(k, eps / k)
    q[target] += 1 - eps
    return -q @ logp


def multihead_attention(X, Wq, Wk, Wv, heads=2):
    n, d = X.shape
    dh = d // heads
    out = np.zeros((n, d))
    for hd in range(heads):
        lo, hi = hd * dh, (hd + 1) * dh
        q = X @ Wq[:, lo:hi]
        k = X @ Wk[:, lo:hi]
        v = X @ Wv[:, lo:hi]
        a = q @ k.T / math.sqrt(dh)
        a = np.exp(a - a.max(axis=1, keepdims=True))
        a = a / a.sum(axis=1, keepdims=True)
        out[:, lo:hi] = a @ v
    return np.sum(out ** 2)


def gelu_tanh(x):
    return np.sum(0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))))


def residual_block(x, W1, W2):
    h = np.maximum(W1 @ x, 0.01 * (W1 @ x))
    return np.sum((x + W2 @ h) ** 2)


def contrastive_loss(a, b, margin=1.0):
    d = np.sqrt(np.sum((a - b) ** 2, axis=1) + 1e-9)
    same = np.array([1.0, 0.0, 1.0, 0.0])
    return np.mean(same * d ** 2 + (1 - same) * np.maximum(margin - d, 0.0) ** 2)


# ---------------------------------------------------------------------- Python idioms

def _norm2(v):
    return math.sqrt(sum(t * t for t in v))


def _unit(v):
    n = _norm2(v)
    return [t / n for t in v], n


def helpers_calling_helpers(x, y, z):
    u, n = _unit([x, y, z])
    return u[0] * 2.0 + u[-1] + n


def tuple_returned_and_unpacked(x):
    def stats(a):
        return a.min(), a.max(), a.mean()
    lo, hi, mid = stats(x)
    *_, last = stats(x * x)
    return (hi - lo) * mid + last


def keyword_args_reordered(a, b):
    def f(x, scale=2.0, shift=0.0, power=2):
        return scale * (x - shift) ** power
    return f(a, shift=b, power=3) + f(b, power=2, scale=a) + f(x=a)


def dict_of_params_loop(x):
    params = {"w": 1.5, "b": -0.3, "gain": 2}
    p = dict(params)
    p["w"] = p["w"] * x
    total = 0.0
    for key in ("w", "b"):
        total += p[key] * params["gain"]
    return total


def early_return_chain(x):
    if x < -1.0:
        return -x
    y = x * x
    if y > 4.0:
        return y - 4.0
    for k in range(5):
        y = math.sin(y) + 0.1 * k
        if y > 0.9:
            return y * x
    return y


def while_with_break_counter(x):
    total = 0.0
    i = 0
    while i < 100:
        total += x / (i + 1)
        if total > 3.0:
            break
        i += 1
    return total * i


def nested_closure_counter(x):
    scale = 3
    def inner(y):
        def innermost(z):
            return z * scale + x
        return innermost(y) * y
    return inner(x) + inner(2.0)


def int_float_mixing(x, n):
    a = n // 2
    b = n / 2
    c = n % 3
    d = -n // 4
    return x * a + b * x + c - d + (x ** 2) * (n ** 2) + 7 // 2 * x + int(3.9) * x


def negative_and_step_indices(x):
    return (x[-1] * x[-2] + np.sum(x[::-1][:2] * x[1::3][:2]) + x[-3:].sum()
            + np.sum(x[::-2]) + x[len(x) - 1::-3].sum())


def boolean_mask_ops(x, thresh=0.0):
    m = x > thresh
    y = x.copy()
    y[m] *= 2.0
    y[~m] = y[~m] ** 2
    return np.sum(y) + np.sum(x[m] ** 3) + np.count_nonzero(m)


def where_two_branches(x):
    safe = np.where(x > 0, x, 1.0)
    return np.sum(np.where(x > 0, np.log(safe), x ** 2))


def inplace_slice_ops(x):
    y = np.zeros(x.shape[0] + 2)
    y[1:-1] = x
    y[:3] += 1.0
    y[-3:] *= x[:3]
    y[::2] -= 0.5 * y[::2]
    y[1::2] /= 2.0
    return np.sum(y ** 2)


def global_array_constant(x):
    return np.dot(AXIS_Z, x) * SCALE + np.cross(AXIS_Z, x) @ x


def lambda_list_reduce(x):
    fs = [lambda t: t * t, lambda t: math.sin(t), lambda t: t ** 3 / 3]
    return sum(f(x) for f in fs) + max(f(x) for f in fs)


def comprehension_with_condition(x):
    vals = [v * i for i, v in enumerate(x) if i % 2 == 0]
    prods = [a * b for a, b in zip(x[:-1], x[1:]) if a > b]
    return sum(vals) + sum(prods)


def zip_enumerate_mixed(xs, ws):
    s = 0.0
    for i, (x, w) in enumerate(zip(xs, ws), start=1):
        s += i * w * math.tanh(x)
    return s


def chained_comparisons(x, lo=-0.5, hi=0.5):
    t = 0.0
    for v in x:
        if lo < v <= hi:
            t += v * v
        elif v > hi:
            t += v
        else:
            t -= v
    return t


def math_and_numpy_mixed(x):
    a = math.exp(x[0]) + np.exp(x[1])
    b = np.sqrt(abs(x[2]) + 1) * math.sqrt(2.0)
    return a * b + math.atan2(x[0], x[1] + 2.0) + float(np.sum(x))


def augmented_everything(x, y):
    a = x
    a += y
    a *= 2
    a -= x / 3
    a /= y + 2.0
    a **= 2
    return a


def matrix_row_updates(A, v):
    B = A.copy()
    for i in range(B.shape[0]):
        B[i, :] = B[i, :] * v[i] + v
        B[:, i] += 0.1 * i
    return np.sum(B ** 2)


def ternary_and_minmax(x, y):
    a = x if x > y else y
    b = min(x, y, 0.3)
    c = max((x, y))
    return a * b + c + (x * y if a > 0 else -x * y)


def accumulate_into_list_then_array(x):
    rows = []
    for i in range(3):
        rows.append(x * (i + 1))
    M = np.array(rows)
    return np.sum(M @ x) + M[-1, -1]


def all_any_guards(x):
    if np.all(x > -2.0) and not np.any(x > 5.0):
        return np.sum(x ** 2)
    return 0.0


def string_keyed_loop(x):
    coeffs = {"a": 1.0, "b": 2.0, "c": -0.5}
    acc = 0.0
    for name, c in coeffs.items():
        acc += c * x ** 2 if name != "b" else c * x
    return acc


def unpack_star_middle(x):
    first, *mid, last = x
    return first * last + sum(mid)


def shape_driven(A):
    m, n = A.shape
    out = 0.0
    for i in range(min(m, n)):
        out += A[i, i] * A[-1 - i, i]
    return out + A.size * A[0, -1]


_R = np.random.default_rng(11)
X6 = _R.uniform(-1.0, 1.0, 6)
V3 = np.array([0.3, -0.7, 1.1])
P5 = np.array([[0.0, 0.0], [2.0, 0.1], [2.5, 1.5], [1.0, 2.2], [-0.3, 1.0]])
XD = _R.normal(size=(8, 3))
A3 = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 5.0]])
GRU_H, GRU_D = 3, 2
LSTM_H = 2


def _gru_args():
    r = np.random.default_rng(3)
    return (r.normal(size=(4, GRU_D)), r.normal(size=GRU_H) * 0.1,
            r.normal(size=(3 * GRU_H, GRU_D)) * 0.5, r.normal(size=(3 * GRU_H, GRU_H)) * 0.5,
            r.normal(size=3 * GRU_H) * 0.1)


def _mlp_params():
    r = np.random.default_rng(5)
    return {"W1": r.normal(size=(4, 3)), "b1": r.normal(size=4), "w2": r.normal(size=4),
            "b2": 0.2}


CASES = [
    (two_link_fk, (0.4, 0.9)), (two_link_reach_loss, (np.array([0.3, 1.1]), (1.0, 0.8))),
    (planar_chain, (X6[:3], np.array([1.0, 0.5, 0.8]))), (euler_zxz, (0.3, 0.8, -0.4, V3)),
    (quat_loss, (np.array([0.9, 0.1, -0.3, 0.2]), V3, np.array([0.1, 0.5, 1.0]))),
    (axis_angle_rodrigues, (np.array([0.2, 0.5, 1.0]), 0.7, V3)),
    (shoelace_area, (P5[:, 0].copy(), P5[:, 1].copy())), (shoelace_roll, (P5,)),
    (polygon_perimeter, (P5,)),
    (point_segment_distance, (np.array([1.0, 2.0]), np.array([0.0, 0.0]), np.array([2.0, 1.0]))),
    (triangle_angles, (P5[0], P5[1], P5[2])), (centroid_and_spread, (P5,)),
    (haversine, (40.7, -74.0, 51.5, -0.13)),
    (homogeneous_transform, (0.3, np.array([1.0, -0.5]), P5)),
    (rosenbrock_nd, (X6,)), (rosenbrock_loop, (X6,)), (beale, (np.array([1.2, 0.4]),)),
    (himmelblau, (2.5, 1.5)), (penalty_method, (np.array([1.5, 0.9]),)),
    (log_barrier, (X6 * 0.5,)), (huber_loss_vec, (X6 * 2.3,)), (pseudo_huber, (X6,)),
    (gradient_descent_unrolled, (0.4,)), (ackley, (X6,)), (rastrigin, (X6,)),
    (augmented_lagrangian, (V3, np.array([0.5, -0.2]))), (elastic_net, (V3, XD, XD @ V3 + 0.1)),
    (line_search_armijo, (V3, -V3 * 1.5)),
    (horner_kw, (0.7,)), (horner_array_coeffs, (np.array([1.0, -0.5, 0.25, 2.0]), X6)),
    (chebyshev_series, (np.array([0.5, -1.0, 0.3, 0.2, -0.1]), 0.37)),
    (chebyshev_vector, (np.array([0.5, -1.0, 0.3, 0.2]), X6)),
    (simpson_of_function, (1.3, 2.0)), (trapezoid_np, (X6, np.linspace(0, 1, 6) ** 1.5)),
    (newton_inside, (2.5,)), (bisection_root, (1.7,)), (fixed_point_iter, (0.9,)),
    (tridiagonal_solve, (np.array([0.0, 1.0, 0.5, 0.3]), np.array([4.0, 5.0, 4.5, 3.0]),
                         np.array([1.0, 0.2, 0.7, 0.0]), np.array([1.0, -2.0, 0.5, 3.0]))),
    (romberg, (1.5,)), (gauss_legendre3, (0.2, 1.4)),
    (lagrange_interp, (np.array([0.0, 0.5, 1.2, 2.0]), np.array([1.0, -0.4, 0.7, 0.2]), 0.8)),
    (euler_ode_system, (np.array([1.0, 0.5]), 0.3)), (gauss_seidel, (A3, V3)),
    (finite_diff_jacobian_trace, (X6,)), (power_series_exp_matrix, (A3 * 0.2,)),
    (continued_fraction_tan, (0.6,)), (cumulative_trapezoid, (X6,)),
    (layernorm, (XD[:3], V3 + 1.0, V3)),
    (softmax_xent_keepdims, (XD[:4], np.eye(3)[[0, 2, 1, 1]])),
    (scaled_attention, (XD[:4], XD[4:], XD[:4] * 0.5)), (gru_sequence, _gru_args()),
    (lstm_sequence, (XD[:3, :2], np.random.default_rng(9).normal(size=(4 * LSTM_H, 2 + LSTM_H)),
                     np.linspace(-0.2, 0.3, 4 * LSTM_H))),
    (conv1d_loops, (np.linspace(-1.0, 1.3, 11) + X6[0], np.array([0.5, -0.2, 0.3]))),
    (conv1d_slicing, (X6, np.array([0.5, -0.2, 0.3]))),
    (conv1d_channels, (XD[:2], np.random.default_rng(2).normal(size=(3, 2, 3)))),
    (mlp_dict, (_mlp_params(), V3)), (maxpool_then_dense, (X6, V3)),
    (batchnorm_train, (XD[:5], V3 + 1.0, V3)),
    (dropout_fixed_mask, (X6, XD[:4, :].repeat(2, axis=1))),
    (label_smoothing_loss, (X6, 2)),
    (multihead_attention, (XD[:3, :2].repeat(2, axis=1),
                           A3[:2].repeat(2, axis=0)[:, :2].repeat(2, axis=1) * 0.3,
                           np.eye(4) * 0.5, np.ones((4, 4)) * 0.1 + np.eye(4))),
    (gelu_tanh, (X6,)), (residual_block, (V3, A3 * 0.3, A3.T * 0.2)),
    (contrastive_loss, (XD[:4, :2], XD[4:, :2])),
    (helpers_calling_helpers, (0.3, -0.4, 1.2)), (tuple_returned_and_unpacked, (X6,)),
    (keyword_args_reordered, (0.7, 1.3)), (dict_of_params_loop, (0.8,)),
    (early_return_chain, (-1.5,)), (early_return_chain, (2.5,)), (early_return_chain, (0.4,)),
    (while_with_break_counter, (0.9,)), (nested_closure_counter, (1.1,)),
    (int_float_mixing, (0.6, 7)), (negative_and_step_indices, (X6,)),
    (boolean_mask_ops, (X6,)), (where_two_branches, (X6,)), (inplace_slice_ops, (X6,)),
    (global_array_constant, (V3,)), (lambda_list_reduce, (0.8,)),
    (comprehension_with_condition, (X6,)), (zip_enumerate_mixed, (X6, X6[::-1] + 1.0)),
    (chained_comparisons, (X6,)), (math_and_numpy_mixed, (V3,)),
    (augmented_everything, (0.7, 1.2)), (matrix_row_updates, (A3, V3)),
    (ternary_and_minmax, (0.2, 0.9)), (accumulate_into_list_then_array, (V3,)),
    (all_any_guards, (X6,)), (string_keyed_loop, (1.3,)), (unpack_star_middle, (X6,)),
    (shape_driven, (XD[:4],)),
]
