"""Seeded queries for the concurrency tests, and an independent check of each answer.

Kept out of the test module so that worker processes (started with `spawn`) can import it.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

import numpy as np
from scipy.spatial.transform import Rotation

import bioik

SOLVERS = ["lm", "bio2_lm", "bio2_memetic", "kdl", "jac"]
ROBOTS = ["ur5", "panda", "iiwa14"]


@lru_cache(maxsize=None)
def robot(name: str) -> bioik.Robot:
    return bioik.load_robot(name)


def queries(n: int, seed: int = 0) -> list[tuple]:
    """n queries (robot, solver, kind, target pose, seed state, random_seed), cycling over
    solvers and robots. kind 0: one pose goal (the one-call path); 1: the same with a
    secondary goal (the general path); 2: a callback that rejects the first solution and
    runs a nested `bioik.solve` of its own (a re-entrant solve)."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        name = ROBOTS[k % len(ROBOTS)]
        solver = SOLVERS[(k // len(ROBOTS)) % len(SOLVERS)]
        r = robot(name)
        T = r.link_pose(r.random_configuration(rng), r.tips[0])
        kind = 0 if k % 5 < 3 else (1 if k % 5 == 3 else 2)
        if kind == 1 and solver in ("kdl", "jac"):
            kind = 0  # they take pose-type goals only
        out.append((name, solver, kind, T, r.random_configuration(rng), k))
    return out


def solve(query: tuple) -> tuple[str, bool, np.ndarray]:
    """(digest of the result, success, q) for one query."""
    name, solver, kind, T, seed, random_seed = query
    r = robot(name)
    tip = r.tips[0]
    goals = [bioik.PoseGoal(tip, T)]
    callback = None
    if kind == 1:
        goals.append(bioik.CenterJointsGoal(weight=0.01, secondary=True))
    elif kind == 2:
        seen = []

        def callback(q):
            # a nested solve on the same robot and solver, while the outer one is running
            inner = bioik.solve(r, [bioik.PoseGoal(tip, r.link_pose(q, tip))], seed=seed, solver=solver, timeout=3600.0,
                                max_iterations=50, random_seed=random_seed)
            seen.append(inner.q)
            return len(seen) > 1

    res = bioik.solve(r, goals, seed=seed, solver=solver, timeout=3600.0, max_iterations=120, random_seed=random_seed,
                      callback=callback)
    h = hashlib.sha1(res.q.tobytes())
    h.update(f"{res.success}:{res.iterations}:{res.restarts}:{res.callback_calls}".encode())
    return h.hexdigest(), bool(res.success), res.q


def false_success(query: tuple, success: bool, q: np.ndarray) -> bool:
    """A success whose answer misses the target or leaves the limits (checked from scratch)."""
    if not success:
        return False
    name, _, _, T, _, _ = query
    r = robot(name)
    A = r.link_pose(q, r.tips[0])
    dp = np.linalg.norm(A[:3, 3] - T[:3, 3])
    angle = Rotation.from_matrix(A[:3, :3].T @ T[:3, :3]).magnitude()
    return not (dp <= 1e-5 * (1 + 1e-9) and angle <= 1e-5 * 1.001 and r.within_limits(q))


def solve_many(qs: list[tuple]) -> list[tuple[str, bool, np.ndarray]]:
    return [solve(q) for q in qs]
