"""Collision avoidance goal [E 8.3]: no robot sphere may sink into an obstacle or another link.

The robot is covered by spheres (`bioik.collision.sphere_model`, conservative: spheres
apart ⇒ geometry apart); the scene's signed distance is exact for primitives and a grid
for meshes (`bioik.scene.sdf`; with `lower_grids`, lowered by the grid's error bound so it
never overstates a clearance). For a sphere with centre c and radius ρ, its penetration
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

On links made of meshes the cover spheres overshoot by centimetres, so there a sphere is
only a bound: where it is nearer an obstacle than its tree's reach, the scene row charges
the small boxes of the link's surface beneath it instead (`bioik.collision.surface`:
groups, clusters, leaves). Every obstacle farther than that reach from the sphere is left
out below it. A node whose box keeps the margin by the lower bound of each obstacle's field
over it (a primitive's tangent plane at the centre, d(c) − Σ|∇d·a_i|·e_i; a grid's
d(c) − reach) is skipped with everything below it, which is what lets a flat face lie
millimetres from a table without reading its leaves; a node whose centre is itself within
the margin of an obstacle is charged as one sphere; each remaining leaf whose bound b falls
short costs (m − b)². A zero cost proves every leaf's bound keeps the margin, and so the
whole surface; the converse fails only where a sphere's or node's centre lies off the
surface within the margin of an obstacle that no leaf reaches (a pocket of a concave link),
a price paid for charging deep nodes in one query. The cost is continuous where a sphere
switches to its tree (every leaf is clear there). A leaf's Jacobian follows its centre
along the gradient.

Derivatives: a sphere centre c = p + R·c_l moves with its link as ∂c/∂p = I,
∂c/∂ω = −[c − p]×, and ∂pen/∂c = −n (n the distance gradient at c, or the unit vector
from the other sphere), so ∂pen/∂q = −nᵀ·J_v + (n × (c − p))ᵀ·J_ω.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import KW_ONLY, dataclass, field

import numpy as np
from numba import njit

from bioik.collision.acm import allowed_collisions
from bioik.collision.sphere_pairs import sphere_pairs
from bioik.collision.spheres import SphereModel
from bioik.collision.surface import LEAF_ROW, NODE_ROW
from bioik.errors import GoalError, GoalTypeError
from bioik.goals.base import N_PARAMS, Goal, finite_number
from bioik.goals.kernels import AUX, goal_output
from bioik.goals.registry import ANY_LINKS
from bioik.goals.spheres import (IMMOVABLE, SPHERE_ROW, add_row, contact_masks, cover, finish_row, per_robot,
                                 scene_depth, sphere_centre, sphere_rows)
from bioik.kinematics.frames import JIT, qrot
from bioik.kinematics.ops import at
from bioik.scene.scene import Scene
from bioik.scene.sdf import GRID, H_COUNT, HEADER, MASK_BITS, R_CENTRE, R_KIND, R_RADIUS, REC, near_obstacles, obstacle_sdf

COLLISION = 13

#: Data block: header (spheres S, pairs P, start of the scene blob or −1, start of the
#: world-centre scratch, covered links L, link pairs G, start of the surface trees, start
#: of their leaves), S
#: sphere rows (`bioik.goals.spheres`), L bounding-sphere rows (one per covered link, the
#: same form), P pair rows (sphere i, sphere j, slack) grouped by link pair, G link-pair
#: rows (bound a, bound b, first pair, pair count), (S + L) × 3 world centres (scratch the
#: kernel fills: each solve owns its problem copy), S tree rows (first group node, group
#: count — 0: no tree —, the tree's reach from the sphere centre), the trees' node rows and
#: leaf rows (`bioik.collision.surface`; a node's children counted from the first node, or
#: from the first leaf), then the packed scene.
HEAD, PAIR_ROW, GROUP_ROW, TREE_ROW = 8, 3, 4, 3


@njit(inline="always", **JIT)
def _add_sphere_row(gi, g, frames, J, aux, rows, world, s, pen, nx, ny, nz, Jr):
    """The self-collision row's term of sphere s (world centre from the scratch)."""
    o = goal_output(gi, g, int(aux[rows + SPHERE_ROW * s]))
    w = world + 3 * s
    add_row(J, o, pen, nx, ny, nz, aux[w] - frames[o, 0], aux[w + 1] - frames[o, 1], aux[w + 2] - frames[o, 2], Jr, 1)


def _tree_rows(model: SphereModel, order: np.ndarray) -> np.ndarray:
    """Per sphere in `order`, its surface tree row: first group node, group count (0: no
    tree) and the reach of everything beneath it from the sphere's centre."""
    rows = np.zeros((len(order), TREE_ROW))
    tree = model.surface
    if tree is None or not len(tree.nodes):
        return rows
    for r, s in enumerate(order):
        first, count = tree.roots[s]
        if count:
            g = tree.nodes[first : first + count]
            reach = np.max(np.linalg.norm(g[:, :3] - model.centres[s], axis=1) + g[:, 3])
            rows[r] = first, count, reach + 1e-9
    return rows


def _bounding_rows(model: SphereModel) -> np.ndarray:
    """Per covered link, a sphere row (link slot, centre, radius) holding all its spheres:
    centred on their centres' mean, reaching the farthest sphere's far side."""
    rows = np.zeros((len(model.links), SPHERE_ROW))
    for k in range(len(model.links)):
        mine = model.link_of == k
        c = model.centres[mine].mean(axis=0)
        rows[k, 0], rows[k, 1:4] = k, c
        rows[k, 4] = np.max(np.linalg.norm(model.centres[mine] - c, axis=1) + model.radii[mine])
    return rows


@njit(inline="always", **JIT)
def _node(aux, f, n):
    """The node row at aux[n] on a link with frame row f: its offset u = R·c_l from the
    link origin and its world centre."""
    ux, uy, uz = qrot(f[3], f[4], f[5], f[6], at(aux, n), at(aux, n + 1), at(aux, n + 2))
    return ux, uy, uz, f[0] + ux, f[1] + uy, f[2] + uz


@njit(inline="always", **JIT)
def _bounds(scene, aux, n, box, f, margin, mask):
    """The node or leaf at aux[n] (centre, reach) with its box at aux[box] (9 axes, 3 half
    extents, in the link's frame; f the link's frame row), against every obstacle `mask`
    leaves: the lowest bound of the field over its box (a primitive's tangent plane at the
    centre, d(c) − Σ|∇d·a_i|·e_i, or for a grid d(c) − reach) with that obstacle's gradient
    at the centre, the smallest distance at the centre with its gradient, the reach and the
    offset u of the centre from the link origin. Obstacles farther than margin + reach
    are passed over (bounds of +inf when all are); the tangent plane is read only when
    d(c) − reach falls short of the margin, since a bound that keeps it is never used."""
    ux, uy, uz, x, y, z = _node(aux, f, n)
    reach = at(aux, n + 3)
    low, lx, ly, lz = np.inf, 0.0, 0.0, 0.0
    near, nx, ny, nz = np.inf, 0.0, 0.0, 0.0
    for k in range(int(scene[H_COUNT])):
        if k < MASK_BITS and (mask >> k) & 1:
            continue
        rec = HEADER + k * REC
        cx = x - at(scene, rec + R_CENTRE)
        cy = y - at(scene, rec + R_CENTRE + 1)
        cz = z - at(scene, rec + R_CENTRE + 2)
        far = margin + reach + at(scene, rec + R_RADIUS)
        if cx * cx + cy * cy + cz * cz >= far * far:
            continue
        d, gx, gy, gz = obstacle_sdf(scene, rec, x, y, z)
        bound = d - reach
        if bound < margin and at(scene, rec + R_KIND) != GRID:  # a convex field: at least its tangent plane
            tx, ty, tz = qrot(f[3], -f[4], -f[5], -f[6], gx, gy, gz)  # the gradient in the link frame
            plane = d
            for i in range(3):
                a = box + 3 * i
                plane -= abs(tx * at(aux, a) + ty * at(aux, a + 1) + tz * at(aux, a + 2)) * at(aux, box + 9 + i)
            bound = max(bound, plane)
        if bound < low:
            low, lx, ly, lz = bound, gx, gy, gz
        if d < near:
            near, nx, ny, nz = d, gx, gy, gz
    return low, lx, ly, lz, near, nx, ny, nz, reach, ux, uy, uz


@njit(**JIT)
def surface_depth(scene, aux, i, tree, nodes, leaves, margin, frames, J, o, cx, cy, cz, Jr, with_jac):
    """Σ pen² over the leaves beneath the sphere of row aux[i] (tree row aux[tree]; see the
    module docstring): a leaf whose bound falls pen short of the margin costs pen², with
    Jr[0] += pen·∂pen/∂q. A node whose centre is itself within the margin of an obstacle
    is charged as one sphere instead: deep in an obstacle, its own depth steers as well as
    its leaves' and costs one query."""
    mask = np.int64(at(aux, i + 5))
    if mask == IMMOVABLE:
        return 0.0
    reach = margin + at(aux, tree + 2)
    d, mask = near_obstacles(scene, cx, cy, cz, reach, mask)  # the rest cannot reach a leaf
    if d >= reach:
        return 0.0
    if d < margin:
        return scene_depth(scene, aux, i, margin + at(aux, i + 4), J, o, cx - frames[o, 0], cy - frames[o, 1],
                           cz - frames[o, 2], cx, cy, cz, Jr, 0, with_jac)
    f = frames[o]
    C = 0.0
    first = int(at(aux, tree))
    for g in range(first, first + int(at(aux, tree + 1))):
        gn = nodes + NODE_ROW * g
        cost, down = _visit(scene, aux, gn, f, margin, mask, J, o, Jr, with_jac)
        C += cost
        if not down:
            continue
        c0 = int(at(aux, gn + 4))
        for c in range(c0, c0 + int(at(aux, gn + 5))):
            cn = nodes + NODE_ROW * c
            cost, down = _visit(scene, aux, cn, f, margin, mask, J, o, Jr, with_jac)
            C += cost
            if not down:
                continue
            l0 = int(at(aux, cn + 4))
            for leaf in range(l0, l0 + int(at(aux, cn + 5))):
                ln = leaves + LEAF_ROW * leaf
                low, lx, ly, lz, _, _, _, _, _, ux, uy, uz = _bounds(scene, aux, ln, ln + 4, f, margin, mask)
                if low < margin:
                    C += _charge(margin - low, J, o, lx, ly, lz, ux, uy, uz, Jr, with_jac)
    return C


@njit(inline="always", **JIT)
def _visit(scene, aux, n, f, margin, mask, J, o, Jr, with_jac):
    """A group or cluster: (its cost, whether to read its children). Its box's bound keeps
    the margin: (0, no); its centre within the margin of an obstacle: charged as one
    sphere, (pen², no); else (0, yes)."""
    low, _, _, _, near, nx, ny, nz, reach, ux, uy, uz = _bounds(scene, aux, n, n + 6, f, margin, mask)
    if low >= margin:
        return 0.0, False
    if near < margin:
        return _charge(margin + reach - near, J, o, nx, ny, nz, ux, uy, uz, Jr, with_jac), False
    return 0.0, True


@njit(inline="always", **JIT)
def _charge(pen, J, o, nx, ny, nz, ux, uy, uz, Jr, with_jac):
    """pen² of one sphere of the tree, with Jr[0] += pen·∂pen/∂q."""
    if with_jac:
        add_row(J, o, pen, nx, ny, nz, ux, uy, uz, Jr, 0)
    return pen * pen


@njit(**JIT)
def collision_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    """Scene and self penetration rows (see the module docstring), with their Jacobians."""
    margin, eps = gf[g, 0], gf[g, 1]
    b = gi[g, AUX]
    S, P, scene_at, world_at = int(aux[b]), int(aux[b + 1]), int(aux[b + 2]), int(aux[b + 3])
    L, G, tree_at, leaves_at = int(aux[b + 4]), int(aux[b + 5]), int(aux[b + 6]), int(aux[b + 7])
    rows, world, trees, leaves = b + HEAD, b + world_at, b + tree_at, b + leaves_at
    nodes = trees + TREE_ROW * S
    bounds = rows + SPHERE_ROW * S
    pairs = bounds + SPHERE_ROW * L
    groups = pairs + PAIR_ROW * P
    scene = aux[b + scene_at :] if scene_at >= 0 else aux[b:b]
    C = 0.0
    for s in range(S):
        i = rows + SPHERE_ROW * s
        o, ux, uy, uz, cx, cy, cz = sphere_centre(gi, g, frames, aux, i)
        w = world + 3 * s
        aux[w], aux[w + 1], aux[w + 2] = cx, cy, cz
        if scene_at >= 0:
            tree = trees + TREE_ROW * s
            if at(aux, tree + 1) > 0.0:
                C += surface_depth(scene, aux, i, tree, nodes, leaves, margin, frames, J, o, cx, cy, cz, Jr, with_jac)
            else:
                C += scene_depth(scene, aux, i, margin + at(aux, i + 4), J, o, ux, uy, uz, cx, cy, cz, Jr, 0, with_jac)
    finish_row(C, eps, r, Jr, 0, with_jac)
    C = 0.0
    if G:
        for k in range(L):  # each link's bounding sphere, beside the sphere centres
            _, _, _, _, cx, cy, cz = sphere_centre(gi, g, frames, aux, bounds + SPHERE_ROW * k)
            w = world + 3 * (S + k)
            aux[w], aux[w + 1], aux[w + 2] = cx, cy, cz
    for h in range(G):  # (`at`: reads at indices ≥ 0, without numba's negative-index wrap)
        row = groups + GROUP_ROW * h
        ka, kb = int(at(aux, row)), int(at(aux, row + 1))
        wa, wb = world + 3 * (S + ka), world + 3 * (S + kb)
        dx, dy, dz = at(aux, wa) - at(aux, wb), at(aux, wa + 1) - at(aux, wb + 1), at(aux, wa + 2) - at(aux, wb + 2)
        reach = margin + at(aux, bounds + SPHERE_ROW * ka + 4) + at(aux, bounds + SPHERE_ROW * kb + 4)
        if dx * dx + dy * dy + dz * dz >= reach * reach:
            continue  # the links' bounding spheres are apart: so is every sphere pair
        first = int(at(aux, row + 2))
        for t in range(first, first + int(at(aux, row + 3))):
            row = pairs + PAIR_ROW * t
            si, sj = int(at(aux, row)), int(at(aux, row + 1))
            wi, wj = world + 3 * si, world + 3 * sj
            dx, dy, dz = at(aux, wi) - at(aux, wj), at(aux, wi + 1) - at(aux, wj + 1), at(aux, wi + 2) - at(aux, wj + 2)
            reach = margin + at(aux, rows + SPHERE_ROW * si + 4) + at(aux, rows + SPHERE_ROW * sj + 4) - at(aux, row + 2)
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
    finish_row(C, eps, r, Jr, 1, with_jac)
    return 2


@dataclass(eq=False)
class CollisionAvoidanceGoal(Goal):
    """Keep the robot out of the scene's obstacles and out of itself.

    A penetration of depth pen costs (pen/ε)² [E 8.3]; `allowed` pairs serve a robot
    standing on its table (beside the scene's own, `Scene.allow_contact`). Met when no
    sphere is deeper than tolerance·ε. Obstacles move between solves with `scene.move` (the
    next solve reads their poses); adding or removing one prepares a new problem.

    Args:
        scene: the obstacles (None: self-collision only).
        margin: the clearance (m) every sphere must keep.
        epsilon: ε, the penetration depth (m) that costs 1.
        self_collision: also check the link pairs the allowed-collision matrix leaves checked.
        allowed: (link, obstacle name) pairs never checked, beside the scene's own (those
            of links a partial `spheres` cover leaves out allow nothing here).
        spheres: the robot's sphere cover (None: `sphere_model(robot)`).
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when ‖r‖ ≤ tolerance (no sphere deeper than tolerance·ε).
        lower_grids: charge mesh obstacles by their grid less its error bound
            (`Scene.pack(lowered=True)`), so no sphere the costs call clear of a mesh is in
            it: more answers pass the exact check at once (elise_ur10 in Barrel, `lm`: 94.5 %
            of the first answers instead of 82.5 %), but tight passages get tighter by
            ≈ 1.1 grid cells (HydrogenTankSmall: 85.5 % solved within 1 s instead of 94 %).
    """

    scene: Scene | None = None
    _: KW_ONLY
    margin: float = 0.0
    epsilon: float = 0.01
    self_collision: bool = True
    allowed: Sequence[tuple[str, str]] = ()
    spheres: SphereModel | None = None
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-4
    lower_grids: bool = False
    kind = COLLISION
    size = 2
    kernel = collision_residual
    link_count = ANY_LINKS
    #: The spheres and pairs of the robot last asked for (`links_for` and `data` agree).
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        super().__post_init__()
        if self.scene is not None and not isinstance(self.scene, Scene):
            raise GoalTypeError(f"CollisionAvoidanceGoal: scene must be a bioik.Scene or None; got {type(self.scene).__name__}")
        for name in ("self_collision", "lower_grids"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise GoalTypeError(f"CollisionAvoidanceGoal: {name} must be True or False; got {getattr(self, name)!r}")
        self.margin = finite_number(self.margin, "margin", "CollisionAvoidanceGoal", 0.0)
        self.epsilon = finite_number(self.epsilon, "epsilon", "CollisionAvoidanceGoal", 1e-9)
        if not isinstance(self.allowed, Iterable):
            raise GoalTypeError(f"CollisionAvoidanceGoal: allowed must be a list of (link, obstacle) name pairs; "
                                f"got {self.allowed!r}")
        pairs = []
        for pair in self.allowed:
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
                raise GoalError(f"CollisionAvoidanceGoal: allowed must be (link, obstacle) name pairs; got {pair!r}")
            pairs.append(tuple(pair))
        self.allowed = tuple(pairs)

    def _robot_data(self, robot) -> tuple[SphereModel, np.ndarray, np.ndarray]:
        """The cover, its spheres in link order and the sphere pairs checked with their
        slack (once per robot)."""
        return per_robot(self._cache, robot, self._spheres_and_pairs, self.spheres, self.self_collision)

    def _spheres_and_pairs(self, robot) -> tuple[SphereModel, np.ndarray, np.ndarray]:
        model = cover(self.spheres, robot)
        order = np.argsort(model.link_of, kind="stable")
        pairs = np.zeros((0, PAIR_ROW))
        if self.self_collision:
            sp = sphere_pairs(robot, model, allowed_collisions(robot))
            pairs = np.c_[sp.index, sp.slack]
        return model, order, pairs

    def links_for(self, robot):
        model, _, _ = self._robot_data(robot)
        if not model.links:
            raise GoalError(f"CollisionAvoidanceGoal: robot {robot.name!r} has no link with collision geometry")
        return model.links

    def layout_key(self):
        scene = self.scene
        return (scene, None if scene is None else scene.layout_version, self.self_collision, self.allowed,
                None if self.spheres is None else id(self.spheres), bool(self.lower_grids))

    def params(self, robot):
        p = np.zeros(N_PARAMS)
        p[0], p[1] = self.margin, self.epsilon
        return p

    def data(self, robot):
        model, order, pairs = self._robot_data(robot)
        S, L = len(order), len(model.links)
        rank = np.empty(S, dtype=np.int64)
        rank[order] = np.arange(S)  # spheres sorted by link; pairs renumbered to match
        scene = Scene() if self.scene is None else self.scene
        # the scene's contacts of robot links this cover leaves out (a cover of part of the
        # robot) allow nothing here; a name no link of the robot has is still refused
        contacts = [(link, o) for link, o in scene.allowed_contacts if link in model.links or link not in robot.link_names]
        masks = contact_masks(model, scene, (*self.allowed, *contacts), "CollisionAvoidanceGoal: allowed")
        # what no active variable moves cannot be steered clear: the exact check decides it
        fixed = np.array([name not in robot.moving_links for name in model.links], dtype=bool)
        masks[fixed] = IMMOVABLE
        index = rank[pairs[:, :2].astype(np.int64)]
        pair_links = model.link_of[order][index] if len(index) else np.zeros((0, 2), dtype=np.int64)
        movable = ~(fixed[pair_links[:, 0]] & fixed[pair_links[:, 1]])
        index, pairs, pair_links = index[movable], pairs[movable], pair_links[movable]
        by_group = np.lexsort((pair_links[:, 1], pair_links[:, 0]))  # stable: pairs grouped by link pair
        index, slack, pair_links = index[by_group], pairs[by_group, 2], pair_links[by_group]
        groups, first, count = np.unique(pair_links, axis=0, return_index=True, return_counts=True)
        P, G = len(index), len(groups)
        blob = self.scene.pack(lowered=bool(self.lower_grids)) if self.scene is not None else np.zeros(0)
        bounds_at = HEAD + SPHERE_ROW * S
        pairs_at = bounds_at + SPHERE_ROW * L
        groups_at = pairs_at + PAIR_ROW * P
        world_at = groups_at + GROUP_ROW * G
        tree_at = world_at + 3 * (S + L)
        trees = _tree_rows(model, order)
        nodes = model.surface.nodes if model.surface is not None else np.zeros((0, NODE_ROW))
        leaves = model.surface.leaves if model.surface is not None else np.zeros((0, LEAF_ROW))
        leaves_at = tree_at + trees.size + nodes.size
        scene_at = leaves_at + leaves.size
        out = np.zeros(scene_at + len(blob))
        out[:HEAD] = (S, P, scene_at if self.scene is not None else -1, world_at, L, G, tree_at, leaves_at)
        links = model.link_of[order]
        out[HEAD:bounds_at] = sphere_rows(model, order, links, masks[links]).ravel()
        out[bounds_at:pairs_at] = _bounding_rows(model).ravel()
        out[pairs_at:groups_at] = np.c_[index, slack].ravel()
        out[groups_at:world_at] = np.c_[groups, first, count].ravel()
        out[tree_at : tree_at + trees.size] = trees.ravel()
        out[tree_at + trees.size : leaves_at] = nodes.ravel()
        out[leaves_at:scene_at] = leaves.ravel()
        out[scene_at:] = blob
        return out

    def data_version(self):
        return None if self.scene is None else self.scene.pose_version

    def write_data(self, robot, block):
        if self.scene is not None:
            self.scene.write_poses(block[int(block[2]) :])
