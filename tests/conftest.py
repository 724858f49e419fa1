"""How the suite is spread over pytest-xdist's workers (`python -m pytest -x -q -n auto`).

Tests marked `heavy` (tens of seconds each, e.g. the differential tester's parts) are handed
out first, so that they do not end the run alone on one worker. pyproject.toml sets
`--dist loadgroup`: a module whose tests must share one worker can mark them with
`pytest.mark.xdist_group(name)`; no module does so today (module-scoped fixtures are then
built once per worker that runs the module's tests). Without `-n` only the order changes.
"""
from __future__ import annotations


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)  # stable


def pytest_configure(config):
    """The on-disk cache (on by default for functions in files, like these tests') goes to a
    fresh directory of this run, shared by its workers: the suite never reads entries an
    earlier run or the user's programs wrote, nor leaves its own in the user's cache."""
    import os
    import tempfile
    if not os.environ.get("PYAD_CACHE_DIR"):
        os.environ["PYAD_CACHE_DIR"] = tempfile.mkdtemp(prefix="pyad-test-cache-")
