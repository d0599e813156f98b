"""What the goals over the robot's sphere cover (`bioik.collision.sphere_model`) share:
looking the cover up once per robot, naming a link's spheres and a scene's obstacles, the
sphere rows of a goal's data block, and the kernel pieces that read them
(`CollisionAvoidanceGoal`, `ClearanceGoal`, `ObstacleDistanceGoal`; `TouchGoal` reads the
cover only).

A sphere row (SPHERE_ROW floats): the goal link slot of the sphere's link, its centre c_l
in that link's frame (3), its radius ρ, and the mask of the obstacles it ignores (bit k:
the scene's k-th obstacle, skipped by `sdf.scene_distance`). The mask is stored in a
float, so its bits are exact for the first MASK_OBSTACLES obstacles only.

Derivatives: a sphere centre c = p + u, u = R·c_l, moves with its link as ∂c/∂p = I,
∂c/∂ω = −[u]×, so a scalar whose gradient at c is g changes as gᵀJ_v + (u × g)ᵀJ_ω.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import numpy as np
from numba import njit

from bioik.collision.spheres import SphereModel, sphere_model
from bioik.errors import GoalError, GoalTypeError
from bioik.goals.kernels import goal_output
from bioik.kinematics.frames import JIT, qrot
from bioik.kinematics.ops import at
from bioik.model.names import UnknownNameError, suggest
from bioik.scene.scene import Scene
from bioik.scene.sdf import scene_distance

if TYPE_CHECKING:
    from bioik.kinematics.robot import Robot

T = TypeVar("T")

#: Floats of a sphere row: link slot, centre in the link frame (3), radius, obstacle mask.
SPHERE_ROW = 6
#: Obstacles a mask can name: mask bits must stay exact in a float.
MASK_OBSTACLES = 52
#: The mask of a sphere on a link no active variable moves: it costs no scene distance
#: (what it touches, no search can change; the exact check decides it).
IMMOVABLE = -1


def per_robot(cache: dict, robot: Robot, make: Callable[[Robot], T], *fields) -> T:
    """make(robot), computed once per robot model, group and frozen values and kept in a
    goal's `cache` (looking a sphere cover up hashes the robot's collision meshes, too slow
    to repeat every solve; a group's self-collision slack depends on what it moves), and
    anew when `fields`, the values of the goal's fields that make reads, have changed
    since (a field reassigned after the goal was built)."""
    key, state = id(robot.model), (fields, robot.group.variables, robot.frozen.tobytes())
    hit = cache.get(key)
    if hit is None or hit[0] is not robot.model or hit[1] != state:
        hit = cache[key] = (robot.model, state, make(robot))
    return hit[2]


def cover(spheres: SphereModel | None, robot: Robot) -> SphereModel:
    """A goal's own sphere cover, or the robot's default one."""
    if spheres is None:
        return sphere_model(robot)
    if not isinstance(spheres, SphereModel):
        raise GoalTypeError(f"a goal's spheres must be a SphereModel (bioik.collision.sphere_model(robot, ...)) or None; "
                            f"got {type(spheres).__name__}")
    return spheres


def link_slot(model: SphereModel, link: str, goal: str) -> int:
    """The index of `link` among the cover's links; a GoalError naming the covered links
    if it has no spheres (no collision geometry)."""
    if link not in model.links:
        raise GoalError(f"{goal}: link {link!r} has no collision geometry (no spheres); links with spheres: "
                        f"{suggest(str(link), model.links)}")
    return model.links.index(link)


def link_spheres(model: SphereModel, link: str, goal: str) -> np.ndarray:
    """Indices of `link`'s spheres in the cover (see `link_slot` for a link without)."""
    return np.flatnonzero(model.link_of == link_slot(model, link, goal))


def obstacle_index(scene: Scene, name: str, goal: str) -> int:
    """The index of obstacle `name` in the scene (its mask bit); UnknownNameError listing
    the scene's obstacles if there is none of that name, GoalError past the first
    MASK_OBSTACLES."""
    names = scene.names
    if name not in names:
        known = suggest(str(name), names) if names else "the scene is empty"
        raise UnknownNameError(f"{goal}: obstacle {name!r} is not in the scene; {known}")
    k = names.index(name)
    if k >= MASK_OBSTACLES:
        raise GoalError(f"{goal}: only the scene's first {MASK_OBSTACLES} obstacles can be named (their mask bits "
                        f"must be exact in a float); {name!r} is number {k + 1}")
    return k


def contact_masks(model: SphereModel, scene: Scene, pairs, goal: str) -> np.ndarray:
    """Per covered link, the bits of the obstacles it may touch: (link, obstacle) `pairs`."""
    masks = np.zeros(len(model.links), dtype=np.int64)
    for link, obstacle in pairs:
        masks[link_slot(model, link, goal)] |= np.int64(1) << obstacle_index(scene, obstacle, goal)
    return masks


def sphere_rows(model: SphereModel, index: np.ndarray, slots: np.ndarray, masks: np.ndarray | int) -> np.ndarray:
    """The sphere rows (len(index), SPHERE_ROW) of the cover's spheres `index`, with their
    goal link slots and obstacle masks."""
    rows = np.zeros((len(index), SPHERE_ROW))
    rows[:, 0] = slots
    rows[:, 1:4] = model.centres[index]
    rows[:, 4] = model.radii[index]
    rows[:, 5] = masks
    return rows


@njit(inline="always", **JIT)
def sphere_centre(gi, g, frames, aux, i):
    """The sphere of the row at aux[i] of goal g: its link's output o, the offset
    u = R·c_l of its centre from that link's origin, and the world centre c = p + u."""
    o = goal_output(gi, g, int(at(aux, i)))
    f = frames[o]
    ux, uy, uz = qrot(f[3], f[4], f[5], f[6], at(aux, i + 1), at(aux, i + 2), at(aux, i + 3))
    return o, ux, uy, uz, f[0] + ux, f[1] + uy, f[2] + uz


@njit(inline="always", **JIT)
def add_row(J, o, a, nx, ny, nz, ux, uy, uz, Jr, row):
    """Jr[row] += a·∂(−n·c)/∂q = a·(−nᵀJ_v + (n × u)ᵀJ_ω) for a point c at offset u from
    link output o's origin: a penetration depth along n shrinks as c moves along n."""
    ax, ay, az = -a * nx, -a * ny, -a * nz
    bx, by, bz = a * (ny * uz - nz * uy), a * (nz * ux - nx * uz), a * (nx * uy - ny * ux)
    base = 6 * o
    for v in range(Jr.shape[1]):
        Jr[row, v] += (ax * J[base, v] + ay * J[base + 1, v] + az * J[base + 2, v]
                       + bx * J[base + 3, v] + by * J[base + 4, v] + bz * J[base + 5, v])


@njit(inline="always", **JIT)
def scene_depth(scene, aux, i, reach, J, o, ux, uy, uz, cx, cy, cz, Jr, row, with_jac):
    """pen² for the sphere of row aux[i] (centre c at offset u from output o) that must
    stay `reach` away from the scene's obstacles its mask leaves: pen = max(0, reach − d(c)),
    d the scene's signed distance; with_jac: Jr[row] += pen·∂pen/∂q (∂pen/∂c = −∇d). A
    sphere whose mask is IMMOVABLE (on a link no active variable moves) costs nothing."""
    mask = np.int64(at(aux, i + 5))
    if mask == IMMOVABLE:
        return 0.0
    d, nx, ny, nz = scene_distance(scene, cx, cy, cz, reach, mask)
    pen = reach - d
    if pen > 0.0:
        if with_jac:
            add_row(J, o, pen, nx, ny, nz, ux, uy, uz, Jr, row)
        return pen * pen
    return 0.0


@njit(inline="always", **JIT)
def finish_row(C, eps, r, Jr, row, with_jac):
    """r[row] = √C/ε, where Jr[row] holds ½·∂C/∂q (e.g. Σ pen·∂pen/∂q for C = Σ pen²);
    that becomes ∂r/∂q = ½·∂C/∂q / (ε·√C) (none at C = 0, a kink)."""
    r[row] = np.sqrt(C) / eps
    if with_jac and C > 0.0:
        s = 1.0 / (eps * np.sqrt(C))
        for v in range(Jr.shape[1]):
            Jr[row, v] *= s


def scene_block(rows: np.ndarray, scene: Scene) -> np.ndarray:
    """The data block of a goal over some spheres and a scene: the sphere count S, the S
    sphere rows, then the packed scene (`Scene.pack`)."""
    return np.concatenate([[len(rows)], rows.ravel(), scene.pack()])


def block_scene(block: np.ndarray) -> np.ndarray:
    """The packed scene's part of a `scene_block` (a view, for `Scene.write_poses`)."""
    return block[1 + SPHERE_ROW * int(block[0]) :]


@njit(inline="always", **JIT)
def read_scene_block(aux, b):
    """The `scene_block` at aux[b]: sphere count S, start of the first sphere row, the scene."""
    S = int(aux[b])
    return S, b + 1, aux[b + 1 + SPHERE_ROW * S :]
