"""What every compiled search does first: its RNG and start, and its scratch buffers."""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.goals.kernels import MAX_LINK_ROWS
from bioik.kinematics.frames import JIT
from bioik.solvers.core.rng import random_configuration
from bioik.problem.layout import RANDOM_START, SEED


@njit(**JIT)
def search_start(run, slo, shi, q):
    """The search's RNG state (seed run[SEED]); q is redrawn uniformly if run[RANDOM_START] asks for a
    random start."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(int(run[SEED]))
    if run[RANDOM_START] > 0.0:
        random_configuration(rng, slo, shi, q)
    return rng


@njit(**JIT)
def kinematic_buffers(seg_i, out_seg, gi, n):
    """Scratch for FK + Jacobians and goal evaluation: (seg, frames, J, r, Jr, scratch, errors)."""
    O = max(out_seg.shape[0], 1)
    rows = max(MAX_LINK_ROWS, n)
    return (
        np.empty((max(seg_i.shape[0], 1), 7)),
        np.empty((O, 7)),
        np.empty((6 * O, n)),
        np.empty(rows),
        np.empty((rows, n)),
        np.empty((4 * MAX_LINK_ROWS, 3)),
        np.empty((gi.shape[0], 2)),
    )
