"""The differential tester's command line.

    python -m tests.fuzz -n 10000              # seeds 0..9999, 2 worker processes
    python -m tests.fuzz -n 500 --start 20000 --jobs 1
    python -m tests.fuzz --seed 1234 --show    # print one program and its outcome
    python -m tests.fuzz --seed 1234 --minimize

Programs run in child processes, a chunk of seeds each, so that a crash of native code (or
a hang, past --timeout seconds) is reported as the outcome of the seed that caused it and
the run goes on. Every failure is minimized (unless --no-minimize) and printed with its
seed; the exit status is 1 when anything failed. A summary counts each outcome.
"""
from __future__ import annotations

import argparse
import collections
import sys
import time

from . import check, generate, minimize, runner

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-n", type=int, default=1000, help="how many programs (default 1000)")
    p.add_argument("--start", type=int, default=0, help="first seed (default 0)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--seed", type=int, help="run one seed in this process")
    p.add_argument("--show", action="store_true", help="with --seed: print the program")
    p.add_argument("--minimize", action="store_true", help="with --seed: minimize it")
    p.add_argument("--no-minimize", action="store_true", help="do not minimize failures")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per program")
    p.add_argument("--worker", nargs=2, type=int, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        runner.worker(*a.worker)
        return 0
    if a.seed is not None:
        return _one(a.seed, a.show, a.minimize)

    t0 = time.time()
    counts: collections.Counter = collections.Counter()
    failures = []

    def report(results: list[dict]) -> None:
        for r in results:
            counts[r["kind"]] += 1
            if r["kind"] not in ("ok", "skip"):
                failures.append(r)
                print(f"seed {r['seed']}: {r['kind']}: {r['detail'].splitlines()[0]}",
                      flush=True)
        print(f"  {sum(counts.values())}/{a.n} programs, {time.time() - t0:.0f} s: "
              + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), flush=True)

    runner.run_seeds(a.start, a.n, jobs=a.jobs, timeout=a.timeout, report=report)
    for r in failures:
        print(f"\n=== seed {r['seed']}: {r['kind']}\n{r['detail']}")
        if not a.no_minimize and r["kind"] != "crash":
            prog = generate.generate(r["seed"])
            print("--- minimized:\n" + minimize.minimize(prog.source, prog.args, r["kind"]))
            print(f"--- arguments: {prog.args!r}")
    print(f"\n{a.n} programs (seeds {a.start}..{a.start + a.n - 1}) in {time.time() - t0:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if failures else 0


def _one(seed: int, show: bool, minimize_it: bool) -> int:
    prog = generate.generate(seed)
    if show or minimize_it:
        print(prog.source)
        print(f"# arguments: {prog.args!r}")
    out = check.run(prog.source, prog.args)
    print(f"seed {seed}: {out.kind}" + (f"\n{out.detail}" if out.detail else ""))
    if minimize_it and out.failed:
        print("--- minimized:\n" + minimize.minimize(prog.source, prog.args, out.kind,
                                                     log=print))
    return 1 if out.failed else 0


if __name__ == "__main__":
    sys.exit(main())
