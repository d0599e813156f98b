"""Shared fixtures; the whole session keeps bioik's disk caches (parsed robots, sphere
covers, grids) in a temporary folder, never in the user's."""

import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(autouse=True, scope="session")
def _session_cache_dir(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("BIOIK_CACHE_DIR", str(tmp_path_factory.mktemp("bioik-cache")))
    yield
    mp.undo()
