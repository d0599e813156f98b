"""Rollouts: the configuration a solver holds after each of its iterations [L], for
plots and debugging.

Every solver is reproducible for a given random seed and iteration budget, so the
configuration after iteration k is exactly the answer of the same solve stopped after k
iterations. `rollout` replays the solve with budgets 1, 2, … K and collects those
answers, which works for every solver without instrumenting its kernel. The price is
K(K+1)/2 iterations in all, fine for the few hundred iterations a rollout is read for.
A stopped solve returns what a timeout would give: the current configuration for the
pseudo-inverse solvers (`kdl`, `jac`, `nullspace`), the best so far for the others — so
a rollout of `gd_c`, which accepts worse steps, shows its best-so-far, not its wandering.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bioik.goals.base import Goal
from bioik.kinematics.robot import Robot
from bioik.solvers.api import Solver

#: Wall-clock allowance of each replayed solve: the iteration budget ends it, not time.
REPLAY_TIMEOUT = 3600.0


@dataclass(slots=True)
class Rollout:
    """The configurations of `rollout`.

    Attributes:
        q: (K, dof), row k−1 the answer of the solve given an iteration budget of k (for
            most solvers row 0 is the seed: the budget's first iteration evaluates it).
        cost: (K,) each row's total cost.
        success: whether the last one meets the goals (the solve ended there).
    """

    q: np.ndarray
    cost: np.ndarray
    success: bool


def rollout(
    robot: Robot,
    goals: Sequence[Goal],
    seed: Any = None,
    *,
    iterations: int = 100,
    solver: str | None = None,
    random_seed: int = 0,
    **params: Any,
) -> Rollout:
    """The solver's configuration after each iteration, up to `iterations` or until it
    succeeds or stops by itself (e.g. `gd` stuck in a local optimum).

    Args:
        robot: the robot.
        goals: the goals, as for `bioik.solve`.
        seed: the start configuration (None: a random start).
        iterations: K, the most iterations to replay.
        solver: a solver name (None: the default).
        random_seed: the RNG seed every replayed solve uses.
        **params: the solver's parameters.

    Returns:
        A `Rollout`.
    """
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < 1:
        raise ValueError(f"iterations must be an integer >= 1; got {iterations!r}")
    s = Solver(robot, solver, REPLAY_TIMEOUT, **params)
    qs, costs = [], []
    success = False
    for k in range(1, int(iterations) + 1):
        res = s.solve(goals, seed, random_seed=random_seed, max_iterations=k)
        qs.append(res.q)
        costs.append(res.cost)
        if res.success or res.iterations < k:
            success = res.success
            break
    return Rollout(np.array(qs), np.array(costs), success)
