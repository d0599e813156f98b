"""Every solver parameter at the edges of its range (0 or 1, 1, the maximum) with numba's
bounds checking on: no kernel reads or writes out of bounds for any accepted value, and no
answer leaves the limits. The kernels are compiled again with the checks, in a cache of
their own (minutes), so this runs only when selected: `python3 -m pytest tests -m boundscheck`."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.boundscheck

SWEEP = Path(__file__).parents[2] / "benchmarks" / "param_edges.py"


def test_every_parameter_edge_stays_in_bounds_and_limits(tmp_path):
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    out = subprocess.run([sys.executable, str(SWEEP), "--max-iterations", "2", "--queries", "2"], env=env, capture_output=True,
                         text=True, timeout=5400, check=False)
    assert "| lm | damping |" in out.stdout and "| bio2 | population_size |" in out.stdout, out.stdout[-2000:] + out.stderr[-2000:]
    rows = [line for line in out.stdout.splitlines() if line.startswith("| ") and not line.startswith("| solver |")]
    broken = [row for row in rows if not row.endswith("|  |")]  # the last column names a problem
    assert not broken, "\n".join(broken[:20])
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "\n0 parameter values broke" in out.stdout
