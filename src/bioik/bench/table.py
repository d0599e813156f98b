"""The `table` test: a robot standing 3 cm above a table with three posts on it (ur5's cell).

The scene (`table_scene`): a table top 1.4 × 1.2 × 0.04 m whose upper face is TABLE_TOP
(3 cm) under the robot's base origin, and three posts 0.08 × 0.08 × 0.3 m standing on the
base's level at (0.45, 0.3), (-0.3, 0.45) and (0.2, -0.5): the cell of ur5's collision
tests (tests/solvers/test_fixed_links.py, test_concurrency.py), with no contact allowed.
Targets (`table_targets`): the tip poses of uniform random configurations that bioik's
exact check (coal) finds collision-free with the scene, each its target's witness; seed
states uniform random. Any robot standing at the origin takes it; ur5 is its robot.
"""

from __future__ import annotations

import numpy as np

from bioik.kinematics.robot import Robot
from bioik.scene import Scene

TABLE = "table"
TABLE_TOP = -0.03
POSTS = ((0.45, 0.3), (-0.3, 0.45), (0.2, -0.5))
#: Random configurations drawn per target kept, at most (a robot that collides with the
#: table almost everywhere gets a clear error instead of a search without end).
DRAWS_PER_TARGET = 200


def _at(x: float, y: float, z: float) -> np.ndarray:
    T = np.eye(4)
    T[:3, 3] = x, y, z
    return T


def table_scene() -> Scene:
    """The table top under the robot's foot and the three posts."""
    scene = Scene()
    scene.add_box("table", (1.4, 1.2, 0.04), _at(0.0, 0.0, TABLE_TOP - 0.02))
    for k, (x, y) in enumerate(POSTS):
        scene.add_box(f"post{k}", (0.08, 0.08, 0.3), _at(x, y, 0.15))
    return scene


def table_witnesses(robot: Robot, rng: np.random.Generator, n: int) -> np.ndarray:
    """n uniform random configurations that the exact check finds free among the table's
    obstacles (and of self-collision); ValueError when too few are."""
    from bioik.collision import CollisionChecker

    checker = CollisionChecker(robot, table_scene())
    kept: list[np.ndarray] = []
    for _ in range(DRAWS_PER_TARGET * n):
        q = robot.random_configuration(rng)
        if checker.is_free(q):
            kept.append(q)
            if len(kept) == n:
                return np.array(kept)
    raise ValueError(f"robot {robot.name!r}: fewer than 1 in {DRAWS_PER_TARGET} random configurations is free on the table")
