"""W5: MLP loss. hidden = tanh(X W1 + b1), logits = hidden W2 + b2, mean softmax cross-entropy
(max-shifted) against integer labels. Differentiated with respect to W1, b1, W2, b2."""
import math

import numpy as np

SIZES = {"tiny": (4, 4, 5, 3), "full": (256, 32, 64, 10)}  # (batch, features, hidden, classes)


def loop(x, labels, w1, b1, w2, b2):
    """Loop style: what pyad and Numba compile and CPython runs."""
    batch = x.shape[0]
    features = x.shape[1]
    hidden = w1.shape[1]
    classes = w2.shape[1]
    h = np.zeros(hidden)
    logits = np.zeros(classes)
    total = 0.0
    for s in range(batch):
        for j in range(hidden):
            a = b1[j]
            for f in range(features):
                a += x[s, f] * w1[f, j]
            h[j] = math.tanh(a)
        for c in range(classes):
            z = b2[c]
            for j in range(hidden):
                z += h[j] * w2[j, c]
            logits[c] = z
        mx = logits[0]
        for c in range(1, classes):
            mx = max(mx, logits[c])
        se = 0.0
        for c in range(classes):
            se += math.exp(logits[c] - mx)
        total += mx + math.log(se) - logits[labels[s]]
    return total / batch


def array(ops, x, labels, w1, b1, w2, b2):
    """Array style: two matrix products, the label logits picked by fancy indexing."""
    h = ops.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    mx = ops.amax(logits, 1)
    lse = ops.squeeze(mx, 1) + ops.log(ops.sum(ops.exp(logits - mx), axis=1))
    picked = logits[ops.index(np.arange(x.shape[0])), labels]
    return ops.sum(lse - picked) / x.shape[0]


def array_numpy(x, labels, w1, b1, w2, b2):
    """Array style with NumPy alone: keepdims, fancy indexing of the label logits."""
    h = np.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    mx = np.max(logits, axis=1, keepdims=True)
    lse = np.squeeze(mx, 1) + np.log(np.sum(np.exp(logits - mx), axis=1))
    picked = logits[np.arange(x.shape[0]), labels]
    return np.sum(lse - picked) / x.shape[0]


def make_args(size: str) -> tuple:
    """(X, labels, W1, b1, W2, b2): X ~ N(0,1), W ~ N(0, 1/fan_in), b ~ N(0, 0.1^2),
    labels uniform in [0, classes)."""
    batch, features, hidden, classes = SIZES[size]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, features))
    labels = rng.integers(0, classes, batch).astype(np.int64)
    w1 = rng.standard_normal((features, hidden)) / math.sqrt(features)
    b1 = 0.1 * rng.standard_normal(hidden)
    w2 = rng.standard_normal((hidden, classes)) / math.sqrt(hidden)
    b2 = 0.1 * rng.standard_normal(classes)
    return (x, labels, w1, b1, w2, b2)


def describe(size: str) -> str:
    batch, features, hidden, classes = SIZES[size]
    return f"batch={batch} in={features} hidden={hidden} out={classes}"
