"""Reproducible benchmark targets: pose goals for one tip, seed states and witnesses.

Tests: `fkik` (SPEC §3: FK of uniform random configurations; seed states independent uniform
draws), `unreachable` (the fkik poses with their position scaled ×3 from the base origin,
and pushed further along the same ray to at least 1.5× the largest tip distance seen in
WORKSPACE_SAMPLES random configurations, so targets near the base leave the workspace too),
`grid` (positions on a regular grid of ⌈∛n⌉ points per axis over the bounding box of
WORKSPACE_SAMPLES tip positions — n evenly spaced grid points when n is not a cube — with
one fixed orientation, the tip's at the centre of the joint limits, [R 4.2]; seed states
uniform random; many grid points are out of reach by design). The same (robot, test, n, seed) always gives identical targets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bioik.kinematics.robot import Robot

TESTS = ("fkik", "unreachable", "grid")
UNREACHABLE_SCALE = 3.0
UNREACHABLE_MARGIN = 1.5
WORKSPACE_SAMPLES = 2000


@dataclass(frozen=True)
class Targets:
    """n pose targets for `tip`: poses (n, 4, 4) in the base frame, seed states (n, dof),
    witnesses (n, dof) — a configuration that reaches each pose exactly, or None when unknown."""

    tip: str
    poses: np.ndarray
    seeds: np.ndarray
    witnesses: np.ndarray | None

    def __len__(self) -> int:
        return len(self.poses)


def check_test(test: str) -> str:
    """`test` if it is a known test name, else ValueError listing the known ones."""
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; known: {', '.join(TESTS)}")
    return test


def _fk_targets(robot: Robot, rng: np.random.Generator, n: int) -> Targets:
    tip = robot.tips[0]
    witnesses = robot.random_configuration(rng, n).reshape(n, robot.dof)
    seeds = robot.random_configuration(rng, n).reshape(n, robot.dof)
    poses = robot.fk(witnesses, links=[tip])[:, 0]
    return Targets(tip, poses, seeds, witnesses)


def _workspace_points(robot: Robot, rng: np.random.Generator) -> np.ndarray:
    """Tip positions (WORKSPACE_SAMPLES, 3) of uniform random configurations."""
    return robot.fk(robot.random_configuration(rng, WORKSPACE_SAMPLES), links=[robot.tips[0]])[:, 0, :3, 3]


def _unreachable_targets(robot: Robot, rng: np.random.Generator, n: int) -> Targets:
    targets = _fk_targets(robot, rng, n)
    reach = float(np.linalg.norm(_workspace_points(robot, rng), axis=1).max())
    poses = targets.poses.copy()
    p = poses[:, :3, 3]
    norm = np.maximum(np.linalg.norm(p, axis=1, keepdims=True), 1e-12)
    p *= np.maximum(UNREACHABLE_SCALE, UNREACHABLE_MARGIN * reach / norm)
    return Targets(targets.tip, poses, targets.seeds, None)


def _grid_targets(robot: Robot, rng: np.random.Generator, n: int) -> Targets:
    tip = robot.tips[0]
    points = _workspace_points(robot, rng)
    lo, hi = points.min(axis=0), points.max(axis=0)
    k = max(1, int(np.ceil(n ** (1.0 / 3.0))))
    axes = [np.linspace(lo[i], hi[i], k) for i in range(3)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    picked = grid[np.round(np.linspace(0, len(grid) - 1, n)).astype(int)]
    orientation = robot.link_pose((robot.lower + robot.upper) / 2.0, tip)[:3, :3]
    poses = np.tile(np.eye(4), (n, 1, 1))
    poses[:, :3, :3] = orientation
    poses[:, :3, 3] = picked
    seeds = robot.random_configuration(rng, n).reshape(n, robot.dof)
    return Targets(tip, poses, seeds, None)


def generate(robot: Robot, test: str, n: int, seed: int) -> Targets:
    """The `n` targets of `test` for `robot`, drawn from `numpy.random.default_rng(seed)`."""
    check_test(test)
    if n < 1:
        raise ValueError(f"the number of targets must be ≥ 1; got {n}")
    rng = np.random.default_rng(seed)
    if test == "grid":
        return _grid_targets(robot, rng, n)
    if test == "unreachable":
        return _unreachable_targets(robot, rng, n)
    return _fk_targets(robot, rng, n)


def pose_errors(robot: Robot, tip: str, T: np.ndarray, q: np.ndarray) -> tuple[float, float]:
    """(position error m, rotation angle rad) of `tip` at `q` from the target pose `T`, exact FK."""
    A = robot.link_pose(q, tip)
    dp = float(np.linalg.norm(A[:3, 3] - T[:3, 3]))
    R = A[:3, :3].T @ T[:3, :3]
    c = np.clip((np.trace(R) - 1.0) / 2.0, -1.0, 1.0)
    angle = float(np.arccos(c))
    if angle < 1e-3:  # arccos is ill-conditioned near 0: use the skew part instead
        s = np.linalg.norm([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]) / 2.0
        angle = float(np.arcsin(min(1.0, s)))
    return dp, angle
