"""Run generated programs in child processes (`python -m tests.fuzz --worker START COUNT`),
a chunk of seeds each, so that a crash of native code or a hang is reported as the outcome
of the seed that caused it and the run goes on."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

from . import check, generate

ROOT = Path(__file__).resolve().parent.parent.parent
CHUNK = 50
CRASH_VAR = "PYAD_FUZZ_ABORT_AT"  # abort the worker at this seed (tests the crash path)


def worker(start: int, count: int) -> None:
    """Run seeds start..start+count-1, one JSON line each (flushed: the parent reads them as
    they come, and knows which seed was running if this process dies)."""
    crash_at = os.environ.get(CRASH_VAR)  # a test of the crash path sets it
    for seed in range(start, start + count):
        print(json.dumps({"seed": seed, "start": True}), flush=True)
        if crash_at is not None and seed == int(crash_at):
            os.abort()
        prog = generate.generate(seed)
        out = check.run(prog.source, prog.args)
        print(json.dumps({"seed": seed, "kind": out.kind, "detail": out.detail[:4000]}),
              flush=True)


def run_chunk(start: int, count: int, timeout: float) -> list[dict]:
    """Results of one chunk; a child that dies or hangs gives 'crash' for the seed it was
    running, and the rest of the chunk runs in a new child."""
    results: list[dict] = []
    while count > 0:
        cmd = [sys.executable, "-m", "tests.fuzz", "--worker", str(start), str(count)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, cwd=ROOT)
        try:
            out, err = proc.communicate(timeout=timeout * count)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            err = f"timed out after {timeout * count:.0f} s\n" + err
        running = None
        done = set()
        for line in out.splitlines():
            rec = json.loads(line)
            if rec.get("start"):
                running = rec["seed"]
            else:
                results.append(rec)
                done.add(rec["seed"])
        if proc.returncode == 0 and running in done:
            return results
        if running is None or running in done:
            running = start + len(done)
        results.append({"seed": running, "kind": "crash",
                        "detail": f"exit status {proc.returncode}\n{err[-3000:]}"})
        count -= running + 1 - start
        start = running + 1
    return results



def run_seeds(start: int, n: int, jobs: int = 2, timeout: float = 20.0,
              report: Callable[[list[dict]], None] = lambda results: None) -> list[dict]:
    """Outcomes of seeds start..start+n-1, `jobs` children at a time; `report` sees each
    chunk's results as they come."""
    chunks = [(s, min(CHUNK, start + n - s)) for s in range(start, start + n, CHUNK)]
    out: list[dict] = []
    with ThreadPoolExecutor(jobs) as pool:
        for results in pool.map(lambda c: run_chunk(*c, timeout), chunks):
            report(results)
            out += results
    return out
