"""The suite's xdist groups hold (tests/conftest.py): under `-n 2 --dist loadgroup` the tests
of a module marked `xdist_group` run on one worker, which builds its module fixture once,
while unmarked tests still spread over both workers."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("xdist")

ROOT = Path(__file__).resolve().parents[2]

MODULE = '''
import os
import time

import pytest

LOG = os.environ["GROUP_LOG"]


def note(what):
    with open(LOG, "a") as fh:
        fh.write(f"{what} {os.environ['PYTEST_XDIST_WORKER']}\\n")


@pytest.fixture(scope="module")
def built():
    note("fixture")


@pytest.mark.xdist_group("one")
@pytest.mark.parametrize("i", range(6))
def test_grouped(built, i):
    note("grouped")
    time.sleep(0.05)


@pytest.mark.parametrize("i", range(12))
def test_free(i):
    note("free")
    time.sleep(0.2)
'''


def test_a_group_runs_on_one_worker_and_builds_its_fixture_once(tmp_path):
    (tmp_path / "test_groups.py").write_text(textwrap.dedent(MODULE))
    log = tmp_path / "log"
    env = {**os.environ, "GROUP_LOG": str(log),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist",
                           "loadgroup", "-p", "tests.conftest", "-p", "no:cacheprovider",
                           "--rootdir", str(tmp_path), str(tmp_path / "test_groups.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [line.split() for line in log.read_text().splitlines()]
    assert [what for what, _ in rows].count("fixture") == 1, rows
    assert len({w for what, w in rows if what == "grouped"}) == 1, rows
    assert len([1 for what, _ in rows if what == "grouped"]) == 6
    assert {w for what, w in rows if what == "free"} == {"gw0", "gw1"}, rows
