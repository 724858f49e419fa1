"""More loop spellings of the workloads W1-W5 (issue 17): the same functions written the way
different people would (scratch vectors updated in place, buffers rotated, helper functions,
other loop orders). `SPELLINGS[name]` lists (label, function) pairs, the workload's own loop
spelling first; every function takes the workload's arguments and returns its value.
`python -m bench.spellings` times them (bench/spellings/__main__.py)."""
from bench.spellings import w1, w2, w3, w4, w5
from bench.workloads import WORKLOADS

SPELLINGS = {name: (("reference", WORKLOADS[name].loop),)
             + tuple((fn.__name__, fn) for fn in mod.SPELLINGS)
             for name, mod in (("W1", w1), ("W2", w2), ("W3", w3), ("W4", w4), ("W5", w5))}
