"""W5 MLP loss, spelled differently from bench.w5_mlp.loop."""
import math

import numpy as np


def layers_first(x, labels, w1, b1, w2, b2):
    """Whole-batch layers: the hidden (batch, hidden) and logit (batch, classes) tables filled
    by nested loops first, then the loss reduced over the batch."""
    batch, features = x.shape
    hidden = w1.shape[1]
    classes = w2.shape[1]
    h = np.zeros((batch, hidden))
    for s in range(batch):
        for j in range(hidden):
            a = b1[j]
            for f in range(features):
                a += x[s, f] * w1[f, j]
            h[s, j] = math.tanh(a)
    logits = np.zeros((batch, classes))
    for s in range(batch):
        for c in range(classes):
            z = b2[c]
            for j in range(hidden):
                z += h[s, j] * w2[j, c]
            logits[s, c] = z
    total = 0.0
    for s in range(batch):
        mx = logits[s, 0]
        for c in range(1, classes):
            mx = max(mx, logits[s, c])
        se = 0.0
        for c in range(classes):
            se += math.exp(logits[s, c] - mx)
        total += mx + math.log(se) - logits[s, labels[s]]
    return total / batch


def _xent(z, label):
    mx = z[0]
    for c in range(1, len(z)):
        mx = max(mx, z[c])
    se = 0.0
    for c in range(len(z)):
        se += math.exp(z[c] - mx)
    return mx + math.log(se) - z[label]


def inplace_accumulate(x, labels, w1, b1, w2, b2):
    """Per sample, the scratch vectors set to the biases and updated in place with `+=` with
    the input loop outside (row-major over the weights), tanh applied in place, the loss by
    a helper."""
    batch, features = x.shape
    hidden = w1.shape[1]
    classes = w2.shape[1]
    h = np.zeros(hidden)
    z = np.zeros(classes)
    total = 0.0
    for s in range(batch):
        for j in range(hidden):
            h[j] = b1[j]
        for f in range(features):
            for j in range(hidden):
                h[j] += x[s, f] * w1[f, j]
        for j in range(hidden):
            h[j] = math.tanh(h[j])
        for c in range(classes):
            z[c] = b2[c]
        for j in range(hidden):
            for c in range(classes):
                z[c] += h[j] * w2[j, c]
        total += _xent(z, labels[s])
    return total / batch


SPELLINGS = (layers_first, inplace_accumulate)
