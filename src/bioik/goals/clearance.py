"""Clearance goal [E 8.2]: keep the robot well away from the scene's obstacles.

The clearance term of Starke-style CollisionIK as EBIKE uses it [E 8.2], on the robot's
sphere cover (`bioik.collision.sphere_model`): a sphere with centre c and radius ρ is

    d = max(0, D(c) − ρ − m)            (D: the scene's signed distance, m: the margin)

from the obstacles' surfaces and costs (2ε/(ε + d))²: 1 at d = ε, 4 in contact (and
inside an obstacle, where d is clamped to 0: getting out is the collision goal's job),
falling off like (2ε/d)² far away. The residual is one row,

    r = √Σ_spheres (2ε/(ε + d))²,

so ‖r‖² is the summed cost. One row rather than one per sphere: a goal's row count is
fixed by its class, not by the robot's cover (and a row per sphere would make the
solvers' linear algebra as large as the cover); with one row a Gauss–Newton step sees
the cost's gradient but only a rank-one curvature, enough for a term that steers. With
any obstacle in the scene the cost never reaches 0, so the goal is secondary by default:
it pushes the arm away from the obstacles without keeping a solve from succeeding.

Derivatives: ∂cost/∂d = −2·cost/(ε + d) and ∂d/∂c = n (the distance gradient) while
d > 0, and with ∂r/∂q = ½·∂(r²)/∂q / r the row's Jacobian is
(1/r)·Σ cost/(ε + d)·(−n·∂c/∂q), ∂c/∂q as in `bioik.goals.spheres`.
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
from bioik.goals.spheres import (SPHERE_ROW, add_row, block_scene, contact_masks, cover, finish_row, per_robot,
                                 read_scene_block, scene_block, sphere_centre, sphere_rows)
from bioik.kinematics.frames import JIT
from bioik.scene.scene import Scene
from bioik.scene.sdf import scene_distance

CLEARANCE = 14


@njit(**JIT)
def clearance_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    """r = √Σ (2ε/(ε + d))² over the spheres (see the module docstring), with its Jacobian."""
    margin, eps = gf[g, 0], gf[g, 1]
    S, rows, scene = read_scene_block(aux, gi[g, AUX])
    C = 0.0
    for s in range(S):
        i = rows + SPHERE_ROW * s
        o, ux, uy, uz, cx, cy, cz = sphere_centre(gi, g, frames, aux, i)
        D, nx, ny, nz = scene_distance(scene, cx, cy, cz, np.inf, np.int64(aux[i + 5]))
        d = D - aux[i + 4] - margin
        if d > 0.0:  # an empty scene: D = ∞, cost 0
            k = 2.0 * eps / (eps + d)
            C += k * k
            if with_jac:
                add_row(J, o, k * k / (eps + d), nx, ny, nz, ux, uy, uz, Jr, 0)
        else:
            C += 4.0
    finish_row(C, 1.0, r, Jr, 0, with_jac)
    return 1


@dataclass(eq=False)
class ClearanceGoal(Goal):
    """Keep every robot sphere clear of the scene's obstacles, the more the better.

    A sphere d from the obstacles' surfaces costs (2ε/(ε + d))² [E 8.2]; one `margin`
    away counts as touching. Links the scene lets touch an obstacle (`Scene.allow_contact`)
    are not charged for it. Secondary by default: the cost never reaches 0, so as a
    primary goal it is met only when √Σ cost ≤ tolerance. Obstacles move between solves
    with `scene.move`; adding or removing one prepares a new problem.

    Args:
        scene: the obstacles.
        epsilon: ε, the surface distance (m) that costs 1 per sphere.
        margin: m, subtracted from every distance.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default True).
        spheres: the robot's sphere cover (None: `sphere_model(robot)`).
        tolerance: met, as a primary goal, when ‖r‖ ≤ tolerance.
    """

    scene: Scene
    _: KW_ONLY
    epsilon: float = 0.05
    margin: float = 0.0
    weight: float = 1.0
    secondary: bool = True
    spheres: SphereModel | None = None
    tolerance: float = 1e-5
    kind = CLEARANCE
    size = 1
    kernel = clearance_residual
    link_count = ANY_LINKS
    #: The sphere cover of the robot last asked for (`links_for` and `data` agree).
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        if not isinstance(self.scene, Scene):
            raise GoalTypeError(f"ClearanceGoal: scene must be a bioik.Scene; got {type(self.scene).__name__}")
        self.epsilon = finite_number(self.epsilon, "epsilon", "ClearanceGoal", 1e-9)
        self.margin = finite_number(self.margin, "margin", "ClearanceGoal", 0.0)

    def _cover(self, robot) -> SphereModel:
        return per_robot(self._cache, robot, partial(cover, self.spheres), self.spheres)

    def links_for(self, robot):
        model = self._cover(robot)
        if not model.links:
            raise GoalError(f"ClearanceGoal: robot {robot.name!r} has no link with collision geometry")
        return model.links

    def layout_key(self):
        return (self.scene, self.scene.layout_version, None if self.spheres is None else id(self.spheres))

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0], p[1] = self.margin, self.epsilon
        return p

    def data(self, robot):
        model = self._cover(robot)
        masks = contact_masks(model, self.scene, self.scene.allowed_contacts, "ClearanceGoal: the scene's contacts")
        return scene_block(sphere_rows(model, np.arange(len(model)), model.link_of, masks[model.link_of]), self.scene)

    def data_version(self):
        return self.scene.pose_version

    def write_data(self, robot, block):
        self.scene.write_poses(block_scene(block))
