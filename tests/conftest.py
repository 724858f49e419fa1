"""How the suite is spread over pytest-xdist's workers (`python -m pytest -x -q -n auto`).

Tests marked `heavy` (tens of seconds each, e.g. the differential tester's parts) are handed
out first, so that they do not end the run alone on one worker. pyproject.toml sets
`--dist loadgroup`: a module whose tests share an expensive module-scoped fixture (a bench
run, a C library built by `pyad compile`) marks them with `pytest.mark.xdist_group(name)`, so
that one worker runs them all and builds the fixture once instead of once per worker.

pytest-xdist (3.8) groups tests by appending `@name` to their node ids, which pytest 9 no
longer lets it do (it writes `item._nodeid`; pytest 9 reads `item._id`): without the shim in
`pytest_collection_modifyitems` below every group was split over the workers and the bench
smoke test's run (tests/api/test_bench_smoke.py) was made twice.
tests/structure/test_xdist_groups.py checks that a group runs on one worker.
"""
from __future__ import annotations


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)  # stable
    if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        _group_node_ids(items)


def _group_node_ids(items) -> None:
    """Give the tests of an `xdist_group` the node id `ID@name`, from which xdist's
    LoadGroupScheduling reads the group (what xdist's own hook means to do)."""
    from _pytest.nodeid import NodeId  # pytest 9's node ids; needed under loadgroup only
    for item in items:
        mark = item.get_closest_marker("xdist_group")
        if mark is None or item.nodeid.rfind("@") > item.nodeid.rfind("]"):
            continue  # not grouped, or renamed already (by an xdist whose hook works)
        name = mark.args[0] if mark.args else mark.kwargs.get("name", "default")
        item._id = NodeId.parse(f"{item.nodeid}@{name}")


def pytest_configure(config):
    """The on-disk cache (on by default for functions in files, like these tests') goes to a
    fresh directory of this run, shared by its workers: the suite never reads entries an
    earlier run or the user's programs wrote, nor leaves its own in the user's cache."""
    import os
    import tempfile
    if not os.environ.get("PYAD_CACHE_DIR"):
        os.environ["PYAD_CACHE_DIR"] = tempfile.mkdtemp(prefix="pyad-test-cache-")
