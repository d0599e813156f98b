"""No compiling inside a timed call: after an entry's first call (or its documented
warm-up), calls with array inputs of any layout — read-only, strided, nested lists,
float32, Fortran order — add no numba specialization, for solve, Solver, solve_batch,
track, rollout, a scene solve, Decoupler, PassageSolver, PassageFinder and the bench's
solvers (`layout_probe.py`, in a fresh process). A new specialization would compile, or
load from the disk cache, inside the caller's timeout: a passage solve once took 14 s
on a 1 s timeout that way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).with_name("layout_probe.py")


@pytest.fixture(scope="module")
def added() -> dict[str, list[str]]:
    out = subprocess.run([sys.executable, str(PROBE)], capture_output=True, text=True, timeout=3600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_every_entry_was_probed(added):
    assert {"solve", "solve, position", "Solver, two goals", "solve_batch", "solve_batch, GoalBatch", "track", "rollout",
            "solve, scene", "PassageSolver and PassageFinder, after warm_up", "Decoupler",
            "bioik bench run elise_ur10 scene:Shelf passage"} <= set(added)


def test_no_entry_compiles_for_a_new_input_layout(added):
    bad = {entry: sigs for entry, sigs in added.items() if sigs}
    assert not bad, "new specializations after the first call:\n" + json.dumps(bad, indent=1)
