"""More loop spellings of the workloads W1-W5 (issue 17): the same functions written the way
different people would (scratch vectors updated in place, buffers rotated, helper functions,
other loop orders). `SPELLINGS[name]` lists (label, function) pairs, the workload's own loop
spelling first; every function takes the workload's arguments and returns its value.
`python -m bench.spellings` times them (bench/spellings/__main__.py).

`LIVE[name]` is (what it is, values, outer trips of args): the state the workload's outer
loop carries from one trip to the next (the values a trip reads that earlier trips wrote; a
scratch array fully rewritten in each trip is not part of it). Issue 17's tape target is
8 * values bytes per outer trip."""
from bench.spellings import w1, w2, w3, w4, w5
from bench.workloads import WORKLOADS

SPELLINGS = {name: (("reference", WORKLOADS[name].loop),)
             + tuple((fn.__name__, fn) for fn in mod.SPELLINGS)
             for name, mod in (("W1", w1), ("W2", w2), ("W3", w3), ("W4", w4), ("W5", w5))}

LIVE = {
    "W1": ("the sum", 1, lambda x: len(x) - 1),
    "W2": ("the sum of the per-point logsumexps", 1, lambda alphas, means, icf, x: x.shape[0]),
    "W3": ("the state x, y, z", 3, lambda *args: args[6]),
    "W4": ("the energy (outer loop over bodies)", 1, lambda pos, m: pos.shape[0]),
    "W5": ("the loss total (loop over samples)", 1, lambda x, *rest: x.shape[0]),
}
