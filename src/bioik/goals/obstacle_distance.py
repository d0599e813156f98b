"""Obstacle distance goal: keep one link at least a given distance from an obstacle.

The link's collision geometry is its spheres (`bioik.collision.sphere_model`, a
conservative cover: spheres far enough ⇒ geometry far enough). A sphere with centre c and
radius ρ falls short of the distance δ by

    s = max(0, δ + ρ − d(c))            (d: the scene's signed distance, < 0 inside)

where d reads the one named obstacle (every other obstacle masked out, as the collision
goal's allowed pairs do: `bioik.goals.spheres`) or, without a name, all of them. The
residual is one row in metres,

    r = √Σ_link's spheres s²,

as `MinDistanceGoal`'s max(0, δ − ‖p − t‖) is, with no scale of its own: a shortfall of
1 mm costs as much as a position goal 1 mm off, and `tolerance` is in metres (the
collision goal divides by its ε instead, the depth that costs 1 in [E 8.3]).

Derivatives: ∂s/∂c = −n (n the distance gradient), and ∂r/∂q = Σ s·∂s/∂q / r, ∂c/∂q as
in `bioik.goals.spheres`.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from functools import partial

import numpy as np
from numba import njit

from bioik.collision.spheres import SphereModel
from bioik.errors import GoalError, GoalTypeError
from bioik.goals.base import N_PARAMS, Goal, finite_number
from bioik.goals.kernels import AUX
from bioik.goals.registry import ANY_LINKS
from bioik.goals.spheres import (MASK_OBSTACLES, SPHERE_ROW, block_scene, cover, finish_row, link_spheres,
                                 obstacle_index, per_robot, read_scene_block, scene_block, scene_depth, sphere_centre,
                                 sphere_rows)
from bioik.kinematics.frames import JIT
from bioik.scene.scene import Scene

OBSTACLE_DISTANCE = 15


@njit(**JIT)
def obstacle_distance_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    """r = √Σ max(0, δ + ρ − d(c))² over the link's spheres, with its Jacobian."""
    distance = gf[g, 0]
    S, rows, scene = read_scene_block(aux, gi[g, AUX])
    C = 0.0
    for s in range(S):
        i = rows + SPHERE_ROW * s
        o, ux, uy, uz, cx, cy, cz = sphere_centre(gi, g, frames, aux, i)
        C += scene_depth(scene, aux, i, distance + aux[i + 4], J, o, ux, uy, uz, cx, cy, cz, Jr, 0, with_jac)
    finish_row(C, 1.0, r, Jr, 0, with_jac)
    return 1


@dataclass(eq=False)
class ObstacleDistanceGoal(Goal):
    """Keep `link` (its spheres) at least `distance` (m) from the scene's obstacle named
    `obstacle` (None: from every obstacle).

    Residual r = √Σ max(0, distance + ρ − d(c))² over the link's spheres (centre c,
    radius ρ; see the module docstring), cost ‖r‖²·w². An obstacle is singled out by
    masking out every other one, and a mask holds the first 52 obstacles only: naming one
    needs a scene of at most 52. Obstacles move between solves with `scene.move`; adding or
    removing one prepares a new problem.

    Args:
        link: the link that keeps away.
        scene: the obstacles.
        obstacle: the obstacle's name (None: every obstacle).
        distance: δ, the least distance (m).
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance (m).
        spheres: the robot's sphere cover (None: `sphere_model(robot)`).
    """

    link: str
    scene: Scene
    obstacle: str | None = None
    distance: float = 0.05
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    spheres: SphereModel | None = None
    kind = OBSTACLE_DISTANCE
    size = 1
    kernel = obstacle_distance_residual
    link_count = ANY_LINKS
    #: The sphere cover of the robot last asked for.
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        if not isinstance(self.scene, Scene):
            raise GoalTypeError(f"ObstacleDistanceGoal: scene must be a bioik.Scene; got {type(self.scene).__name__}")
        if self.obstacle is not None and not isinstance(self.obstacle, str):
            raise GoalTypeError(f"ObstacleDistanceGoal: obstacle must be an obstacle name or None; got {self.obstacle!r}")
        self.distance = finite_number(self.distance, "distance", "ObstacleDistanceGoal", 0.0)
        self._mask()

    @property
    def links(self):
        return (self.link,)

    def layout_key(self):
        return (self.scene, self.scene.layout_version, self.obstacle, None if self.spheres is None else id(self.spheres))

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0] = self.distance
        return p

    def _mask(self) -> int:
        """The bits of the obstacles the link's spheres ignore: all but `obstacle` (none
        without one)."""
        if self.obstacle is None:
            return 0
        k = obstacle_index(self.scene, self.obstacle, "ObstacleDistanceGoal")
        n = len(self.scene)
        if n > MASK_OBSTACLES:
            raise GoalError(f"ObstacleDistanceGoal: naming an obstacle masks out every other one, and a mask holds "
                            f"the first {MASK_OBSTACLES} obstacles only; the scene has {n}")
        return ((1 << n) - 1) & ~(1 << k)

    def data(self, robot):
        model = per_robot(self._cache, robot, partial(cover, self.spheres), self.spheres)
        index = link_spheres(model, self.link, "ObstacleDistanceGoal")
        return scene_block(sphere_rows(model, index, 0, self._mask()), self.scene)

    def data_version(self):
        return self.scene.pose_version

    def write_data(self, robot, block):
        self.scene.write_poses(block_scene(block))
