"""Shared fixtures; the whole session keeps bioik's disk caches (parsed robots, sphere
covers, grids) in a temporary folder, never in the user's."""

import numpy as np
import pytest


def pytest_collection_modifyitems(config, items):
    """Tests marked `boundscheck` run only when `-m boundscheck` selects them."""
    if "boundscheck" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="compiles every kernel with bounds checks (minutes): run with -m boundscheck")
    for item in items:
        if "boundscheck" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(autouse=True, scope="session")
def _session_cache_dir(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("BIOIK_CACHE_DIR", str(tmp_path_factory.mktemp("bioik-cache")))
    yield
    mp.undo()
