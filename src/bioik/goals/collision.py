"""Collision avoidance goal [E 8.3]: no robot sphere may sink into an obstacle or another link.

The robot is covered by spheres (`bioik.collision.sphere_model`, conservative: spheres
apart ⇒ geometry apart); the scene's signed distance is exact for primitives and a grid
for meshes (`bioik.scene.sdf`). For a sphere with centre c and radius ρ, its penetration
beyond the margin m is

    pen = max(0, m + ρ − d(c))          (d: the scene's signed distance, < 0 inside)

and for a pair of spheres of two links that may collide (the allowed-collision matrix
leaves them checked), pen = max(0, m + ρ_i + ρ_j − ‖c_i − c_j‖). The cost of a
penetration depth is (pen/ε)² [E 8.3] (a depth of ε costs 1, as much as a pose goal off
by ε/w): the residual has two rows, the scene's and the robot's own,

    r = (√Σ_spheres pen² / ε,  √Σ_pairs pen² / ε),

so ‖r‖² is the sum of every (pen/ε)². Two rows instead of one per sphere keep the
solvers' linear algebra as small as a pose goal's (a row per sphere pair would be
hundreds). Self pairs are charged only for overlap beyond their slack
(`bioik.collision.sphere_pairs`: what the conservative covers overlap while the links'
geometry is apart), pen = max(0, m + ρ_i + ρ_j − slack_ij − ‖c_i − c_j‖). The goal is met when ‖r‖ ≤ tolerance, i.e. no sphere deeper than
tolerance·ε (1 µm by default) — the fast test inside the solvers; `bioik.solve` with a
scene then checks the answer exactly (`bioik.collision.CollisionChecker`).

Derivatives: a sphere centre c = p + R·c_l moves with its link as ∂c/∂p = I,
∂c/∂ω = −[c − p]×, and ∂pen/∂c = −n (n the distance gradient at c, or the unit vector
from the other sphere), so ∂pen/∂q = −nᵀ·J_v + (n × (c − p))ᵀ·J_ω.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from bioik.collision.acm import allowed_collisions
from bioik.collision.sphere_pairs import sphere_pairs
from bioik.collision.spheres import SphereModel, sphere_model
from bioik.goals.base import N_PARAMS, Goal, finite_number
from bioik.goals.kernels import AUX, goal_output
from bioik.goals.registry import ANY_LINKS
from bioik.kinematics.frames import JIT, qrot
from bioik.scene.scene import Scene
from bioik.scene.sdf import scene_distance

COLLISION = 13

#: Data block: header (spheres S, pairs P, start of the scene blob or −1, start of the
#: world-centre scratch), S sphere rows (goal link slot, centre in the link frame, radius,
#: obstacle mask), P pair rows (sphere i, sphere j, slack), S × 3 world centres (scratch the
#: kernel fills: each solve owns its problem copy), then the packed scene.
HEAD, SPHERE_ROW, PAIR_ROW = 4, 6, 3
#: Obstacles a link can be allowed to touch: mask bits must stay exact in a float.
MASK_OBSTACLES = 52


@njit(inline="always", **JIT)
def _add_row(J, o, pen, nx, ny, nz, ux, uy, uz, Jr, row):
    """Jr[row] += pen·∂pen/∂q for a point at offset u from link output o's origin whose
    penetration falls along n: pen·(−nᵀJ_v + (n × u)ᵀJ_ω)."""
    ax, ay, az = -pen * nx, -pen * ny, -pen * nz
    bx, by, bz = pen * (ny * uz - nz * uy), pen * (nz * ux - nx * uz), pen * (nx * uy - ny * ux)
    base = 6 * o
    for v in range(Jr.shape[1]):
        Jr[row, v] += (ax * J[base, v] + ay * J[base + 1, v] + az * J[base + 2, v]
                       + bx * J[base + 3, v] + by * J[base + 4, v] + bz * J[base + 5, v])


@njit(inline="always", **JIT)
def _add_sphere_row(gi, g, frames, J, aux, rows, world, s, pen, nx, ny, nz, Jr):
    """The self-collision row's term of sphere s (world centre from the scratch)."""
    o = goal_output(gi, g, int(aux[rows + SPHERE_ROW * s]))
    w = world + 3 * s
    _add_row(J, o, pen, nx, ny, nz, aux[w] - frames[o, 0], aux[w + 1] - frames[o, 1], aux[w + 2] - frames[o, 2], Jr, 1)


@njit(inline="always", **JIT)
def _finish_row(C, eps, r, Jr, row, with_jac):
    """r[row] = √C/ε; the accumulated Σ pen·∂pen/∂q becomes ∂r/∂q = Σ pen·∂pen/∂q / (ε²·r)."""
    r[row] = np.sqrt(C) / eps
    if with_jac and C > 0.0:
        s = 1.0 / (eps * np.sqrt(C))
        for v in range(Jr.shape[1]):
            Jr[row, v] *= s


@njit(**JIT)
def collision_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    """Scene and self penetration rows (see the module docstring), with their Jacobians."""
    margin, eps = gf[g, 0], gf[g, 1]
    b = gi[g, AUX]
    S, P, scene_at, world_at = int(aux[b]), int(aux[b + 1]), int(aux[b + 2]), int(aux[b + 3])
    rows, pairs, world = b + HEAD, b + HEAD + SPHERE_ROW * S, b + world_at
    scene = aux[b + scene_at :] if scene_at >= 0 else aux[b:b]
    C = 0.0
    for s in range(S):
        i = rows + SPHERE_ROW * s
        o = goal_output(gi, g, int(aux[i]))
        f = frames[o]
        ux, uy, uz = qrot(f[3], f[4], f[5], f[6], aux[i + 1], aux[i + 2], aux[i + 3])
        cx, cy, cz = f[0] + ux, f[1] + uy, f[2] + uz
        w = world + 3 * s
        aux[w], aux[w + 1], aux[w + 2] = cx, cy, cz
        if scene_at < 0:
            continue
        reach = margin + aux[i + 4]
        d, nx, ny, nz = scene_distance(scene, cx, cy, cz, reach, np.int64(aux[i + 5]))
        pen = reach - d
        if pen > 0.0:
            C += pen * pen
            if with_jac:
                _add_row(J, o, pen, nx, ny, nz, ux, uy, uz, Jr, 0)
    _finish_row(C, eps, r, Jr, 0, with_jac)
    C = 0.0
    for t in range(P):
        at = pairs + PAIR_ROW * t
        si, sj = int(aux[at]), int(aux[at + 1])
        wi, wj = world + 3 * si, world + 3 * sj
        dx, dy, dz = aux[wi] - aux[wj], aux[wi + 1] - aux[wj + 1], aux[wi + 2] - aux[wj + 2]
        reach = margin + aux[rows + SPHERE_ROW * si + 4] + aux[rows + SPHERE_ROW * sj + 4] - aux[at + 2]
        d2 = dx * dx + dy * dy + dz * dz
        if d2 >= reach * reach:
            continue
        dist = np.sqrt(d2)
        pen = reach - dist
        C += pen * pen
        if with_jac and dist > 0.0:
            nx, ny, nz = dx / dist, dy / dist, dz / dist
            _add_sphere_row(gi, g, frames, J, aux, rows, world, si, pen, nx, ny, nz, Jr)
            _add_sphere_row(gi, g, frames, J, aux, rows, world, sj, pen, -nx, -ny, -nz, Jr)
    _finish_row(C, eps, r, Jr, 1, with_jac)
    return 2


@dataclass(eq=False)
class CollisionAvoidanceGoal(Goal):
    """Keep the robot out of the scene's obstacles and out of itself.

    scene: the obstacles (None: self-collision only); margin: the clearance (m) every
    sphere must keep; epsilon: the penetration depth (m) that costs 1, (pen/ε)² [E 8.3];
    self_collision: check link pairs the allowed-collision matrix leaves checked;
    allowed: (link, obstacle name) pairs never checked (a robot standing on its table);
    spheres: the robot's sphere cover (default `sphere_model(robot)`). Met when no sphere
    is deeper than tolerance·ε. Obstacles move between solves with `scene.move` (the
    next solve reads their poses); adding or removing one prepares a new problem.
    """

    scene: Scene | None = None
    margin: float = 0.0
    epsilon: float = 0.01
    self_collision: bool = True
    allowed: Sequence[tuple[str, str]] = ()
    spheres: SphereModel | None = None
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-4
    kind = COLLISION
    size = 2
    kernel = collision_residual
    link_count = ANY_LINKS
    #: The spheres and pairs of the robot last asked for (`links_for` and `data` agree).
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        if self.scene is not None and not isinstance(self.scene, Scene):
            raise TypeError(f"CollisionAvoidanceGoal: scene must be a bioik.Scene or None; got {type(self.scene).__name__}")
        self.margin = finite_number(self.margin, "margin", "CollisionAvoidanceGoal", 0.0)
        self.epsilon = finite_number(self.epsilon, "epsilon", "CollisionAvoidanceGoal", 1e-9)
        pairs = []
        for pair in self.allowed:
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
                raise ValueError(f"CollisionAvoidanceGoal: allowed must be (link, obstacle) name pairs; got {pair!r}")
            pairs.append(tuple(pair))
        self.allowed = tuple(pairs)

    def _robot_data(self, robot) -> tuple[SphereModel, np.ndarray]:
        key = id(robot.model)
        hit = self._cache.get(key)
        if hit is None or hit[0] is not robot.model:
            model = self.spheres if self.spheres is not None else sphere_model(robot)
            order = np.argsort(model.link_of, kind="stable")
            pairs = np.zeros((0, PAIR_ROW))
            if self.self_collision:
                sp = sphere_pairs(robot, model, allowed_collisions(robot))
                pairs = np.c_[sp.index, sp.slack]
            hit = self._cache[key] = (robot.model, model, order, pairs)
        return hit[1], hit[2], hit[3]

    def links_for(self, robot):
        model, _, _ = self._robot_data(robot)
        if not model.links:
            raise ValueError(f"CollisionAvoidanceGoal: robot {robot.name!r} has no link with collision geometry")
        return model.links

    def layout_key(self):
        scene = self.scene
        return (scene, None if scene is None else scene.layout_version, self.self_collision, self.allowed,
                None if self.spheres is None else id(self.spheres))

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0], p[1] = self.margin, self.epsilon
        return p

    def _masks(self, model: SphereModel) -> np.ndarray:
        """Per covered link, the bits of the obstacles it may touch (`allowed`)."""
        masks = np.zeros(len(model.links), dtype=np.int64)
        names = [] if self.scene is None else self.scene.names
        for link, obstacle in self.allowed:
            if link not in model.links:
                raise ValueError(f"CollisionAvoidanceGoal: allowed names link {link!r}, which has no collision "
                                 f"geometry; covered links: {list(model.links)}")
            if obstacle not in names:
                raise ValueError(f"CollisionAvoidanceGoal: allowed names obstacle {obstacle!r}, not in the scene; "
                                 f"obstacles: {names}")
            k = names.index(obstacle)
            if k >= MASK_OBSTACLES:
                raise ValueError(f"CollisionAvoidanceGoal: allowed pairs can name only the scene's first "
                                 f"{MASK_OBSTACLES} obstacles; {obstacle!r} is number {k + 1}")
            masks[model.links.index(link)] |= np.int64(1) << k
        return masks

    def data(self, robot):
        model, order, pairs = self._robot_data(robot)
        S, P = len(order), len(pairs)
        rank = np.empty(S, dtype=np.int64)
        rank[order] = np.arange(S)  # spheres sorted by link; pairs renumbered to match
        masks = self._masks(model)
        blob = self.scene.pack() if self.scene is not None else np.zeros(0)
        world_at = HEAD + SPHERE_ROW * S + PAIR_ROW * P
        out = np.zeros(world_at + 3 * S + len(blob))
        out[:HEAD] = (S, P, world_at + 3 * S if self.scene is not None else -1, world_at)
        rows = out[HEAD : HEAD + SPHERE_ROW * S].reshape(S, SPHERE_ROW)
        links = model.link_of[order]
        rows[:, 0] = links
        rows[:, 1:4] = model.centres[order]
        rows[:, 4] = model.radii[order]
        rows[:, 5] = masks[links]
        if P:
            index = rank[pairs[:, :2].astype(np.int64)]
            out[HEAD + SPHERE_ROW * S : world_at] = np.c_[index, pairs[:, 2]].ravel()
        out[world_at + 3 * S :] = blob
        return out

    def data_version(self):
        return None if self.scene is None else self.scene.pose_version

    def write_data(self, robot, block):
        if self.scene is not None:
            self.scene.write_poses(block[int(block[2]) :])
