"""Interleaved timing: every (tool, kind) callable of a workload is timed in round-robin
batches, so drifts of the machine (frequency, other load) hit all tools alike.

Each batch repeats one callable enough times to last about `batch_s` (sized from the time of
one warm call); a sample is the mean time of a call in one batch; the figure reported is the
median sample. An entry stops being timed once it has `min_samples` samples and has used its
`budget_s`, or after one sample when a single call takes longer than `budget_s`; the rounds
end after `rounds` or when no entry is left."""
import gc
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Plan:
    rounds: int
    batch_s: float
    budget_s: float
    min_samples: int = 3


FULL = Plan(rounds=21, batch_s=0.02, budget_s=3.0)
QUICK = Plan(rounds=5, batch_s=0.005, budget_s=0.4)


@dataclass
class Entry:
    key: Any
    fn: Callable[[], Any]
    batch: int
    slow: bool
    samples: list[float] = field(default_factory=list)
    spent: float = 0.0

    def active(self, plan: Plan) -> bool:
        if self.slow:
            return not self.samples
        return len(self.samples) < plan.min_samples or self.spent < plan.budget_s


@dataclass(frozen=True)
class Stats:
    median_s: float
    min_s: float
    calls: int


def measure(callables: dict[Any, Callable[[], Any]], one_call_s: dict[Any, float],
            plan: Plan) -> dict[Any, Stats]:
    """Median time per call of each callable (already warmed up; `one_call_s`: the time of
    one warm call of each), interleaved."""
    entries = []
    for key, fn in callables.items():
        one = max(one_call_s[key], 1e-9)
        entries.append(Entry(key, fn, batch=max(1, min(1_000_000, int(plan.batch_s / one))),
                             slow=one > plan.budget_s))
    for r in range(plan.rounds):
        active = [e for e in entries if e.active(plan)]
        if not active:
            break
        shift = r % len(active)
        for e in active[shift:] + active[:shift]:
            gc.collect()
            fn, n = e.fn, e.batch
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            dt = time.perf_counter() - t0
            e.samples.append(dt / n)
            e.spent += dt
    return {e.key: Stats(statistics.median(e.samples), min(e.samples), e.batch * len(e.samples))
            for e in entries}
