"""What the dask tests send to their workers (importable there: spawned workers get this
process's sys.path): a solve that kills its worker once, in the middle of a chunk."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import bioik

#: The file whose absence makes `solve_or_die` kill its worker (set before the cluster starts).
MARKER = "BIOIK_TEST_KILL_MARKER"
#: The solver seed (runner: seed + target index) of the solve that kills.
KILL_SEED = 12


def solve_or_die(robot, goals, **kw):
    """`bioik.solve`, except that the solve of target seed KILL_SEED SIGKILLs its process the
    first time (the marker file is made first, so the chunk's re-run goes through)."""
    marker = Path(os.environ[MARKER])
    if kw.get("random_seed") == KILL_SEED and not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return bioik.solve(robot, goals, **kw)
