"""mink as a peer (``peer:mink``): differential IK (`solve_ik`) on a MuJoCo model, iterated.

The model is MJCF written here from the chain URDF (`chain_urdf`: one body per link, a
hinge or slide joint per movable joint with its limits, the root body welded to the
world) and, in a scene, the robot's collision geometry and the obstacles as geoms
(`export.collision_model`: primitives as they are, each convex piece of a non-convex
solid as a mesh geom, whose convex hull MuJoCo uses). `CollisionAvoidanceLimit` gets
exactly the pairs bioik's exact check tests; mink itself drops pairs on bodies welded
together or in a parent-child relation (a note says how many).

A solve steps `solve_ik` with a `FrameTask` on the tip (position and orientation cost 1,
mink's examples' settings: the daqp QP solver, damping 1e-3), `ConfigurationLimit` and,
in a scene, `CollisionAvoidanceLimit(minimum distance MIN_DISTANCE)`, integrating each
velocity, until the frame error is within PEER_TOLERANCE in position and angle and (in a
scene) MuJoCo finds every checked pair apart: that is the peer's claim. An attempt that
has not converged in STEPS steps, or whose QP has no solution (a start in collision),
restarts from a uniform random configuration, until the timeout passes (checked after
every step).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from bioik.bench.peers import export
from bioik.bench.peers.base import PEER_TOLERANCE, PeerAdapter
from bioik.bench.peers.drake import MIN_DISTANCE
from bioik.model.robot_model import PRISMATIC

#: mink's settings (its examples'): QP solver, damping, integration step (s).
SOLVER, DAMPING, DT = "daqp", 1e-3, 0.01
#: Steps per attempt before a restart (a converging attempt takes far fewer here).
STEPS = 100
#: Pairs closer than this (m) enter the collision limit (mink's default).
DETECTION_DISTANCE = 0.01


def _f(values: Any) -> str:
    return " ".join(repr(float(v)) for v in np.ravel(values))


def _quat(R: np.ndarray) -> str:
    from scipy.spatial.transform import Rotation

    x, y, z, w = Rotation.from_matrix(R).as_quat()
    return _f((w, x, y, z))


def _geom(name: str, g: export.Geom, meshes: list[str]) -> str:
    """A geom element (a convex piece adds its mesh asset to `meshes`)."""
    place = f'pos="{_f(g.pose[:3, 3])}" quat="{_quat(g.pose[:3, :3])}" contype="1" conaffinity="1"'
    if g.kind == "box":
        return f'<geom name="{name}" type="box" size="{_f(np.array(g.size) / 2)}" {place}/>'
    if g.kind == "sphere":
        return f'<geom name="{name}" type="sphere" size="{_f(g.size)}" {place}/>'
    if g.kind in ("cylinder", "capsule"):
        return f'<geom name="{name}" type="{g.kind}" size="{_f((g.size[0], g.size[1] / 2))}" {place}/>'
    meshes.append(f'<mesh name="{name}" vertex="{_f(g.vertices)}"/>')
    return f'<geom name="{name}" type="mesh" mesh="{name}" {place}/>'


class MinkAdapter(PeerAdapter):
    """mink's `solve_ik`, iterated with restarts (see the module)."""

    key, package, module = "mink", "mink", "mink"
    extra = "peers-clutter"
    collision_aware = True

    def _build(self, text: str, path: str) -> None:
        import mink
        import mujoco

        from bioik.model.urdf import parse_urdf

        chain = parse_urdf(text)
        limits = {n: (lo, hi) for n, lo, hi in zip(self.robot.variable_names, self.robot.lower, self.robot.upper)}
        bodies = [link.name for link in chain.links]
        cm = export.collision_model(self.robot, bodies, self.scene) if self.scene is not None else None
        meshes: list[str] = []
        geoms: dict[str, list[str]] = {b: [] for b in bodies}
        names: dict[str, list[str]] = {}
        if cm is not None:
            self.notes += cm.notes
            for link, (body, gs) in cm.links.items():
                names[link] = [f"{link}_{k}" for k in range(len(gs))]
                geoms[body] += [_geom(n, g, meshes) for n, g in zip(names[link], gs)]
        root = chain.links[chain.root].name
        xml = {root: f'<body name="{root}">' + "".join(geoms[root])}
        for j in chain.joints:  # parents before children
            child = chain.links[j.child].name
            head = f'<body name="{child}" pos="{_f(j.origin[:3, 3])}" quat="{_quat(j.origin[:3, :3])}">'
            head += '<inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>'
            if j.motions:
                (m,) = j.motions
                kind = "slide" if m.kind == PRISMATIC else "hinge"
                lo, hi = limits[j.name]
                bound = f' range="{_f((lo, hi))}"' if np.isfinite(lo) and np.isfinite(hi) else ""
                head += f'<joint name="{j.name}" type="{kind}" axis="{_f(m.axis)}"{bound}/>'
            xml[child] = head + "".join(geoms[child])
        world = ""
        if cm is not None:
            for name, gs in cm.obstacles.items():
                names[name] = [f"{name}_{k}" for k in range(len(gs))]
                world += "".join(_geom(n, g, meshes) for n, g in zip(names[name], gs))

        def nest(link: int) -> str:
            return xml[chain.links[link].name] + "".join(nest(chain.joints[c].child) for c in chain.child_joints[link]) + "</body>"

        mjcf = (f'<mujoco model="bioik_peer"><compiler angle="radian" autolimits="true"/><asset>{"".join(meshes)}</asset>'
                f'<worldbody>{world}{nest(chain.root)}</worldbody></mujoco>')
        self.model = mujoco.MjModel.from_xml_string(mjcf)
        self.configuration = mink.Configuration(self.model)
        self.order = np.array([self.model.jnt_qposadr[self.model.joint(j).id] for j in self.joints])
        self.task = mink.FrameTask(self.tip, "body", position_cost=1.0, orientation_cost=1.0)
        self.limits: list[Any] = [mink.ConfigurationLimit(self.model)]
        self.pairs = np.zeros((0, 2), dtype=int)
        if cm is not None:
            asked = [(names[a], names[b]) for a, b in (*cm.self_pairs, *cm.scene_pairs) if names.get(a) and names.get(b)]
            limit = mink.CollisionAvoidanceLimit(self.model, asked, minimum_distance_from_collisions=MIN_DISTANCE,
                                                 collision_detection_distance=DETECTION_DISTANCE)
            self.limits.append(limit)
            self.pairs = np.array(limit.geom_id_pairs, dtype=int).reshape(-1, 2)
            wanted = sum(len(a) * len(b) for a, b in asked)
            if wanted > len(self.pairs):
                self.notes.append(f"mink leaves out {wanted - len(self.pairs)} of {wanted} checked geom pairs "
                                  "(on bodies welded together or parent and child)")
        self._fromto = np.empty(6)

    def _positions(self, x: np.ndarray) -> np.ndarray:
        v = np.zeros(self.model.nq)
        v[self.order] = x
        return v

    def _fk(self, x: np.ndarray) -> np.ndarray:
        self.configuration.update(self._positions(x))
        return np.asarray(self.configuration.get_transform_frame_to_world(self.tip, "body").as_matrix())

    def _apart(self) -> bool:
        """MuJoCo finds every checked pair apart (distance ≥ 0)."""
        import mujoco

        m, d = self.model, self.configuration.data
        return all(mujoco.mj_geomDistance(m, d, int(a), int(b), DETECTION_DISTANCE, self._fromto) >= 0.0 for a, b in self.pairs)

    def _run(self, T: np.ndarray, x0: np.ndarray, deadline: float) -> np.ndarray | None:
        import mink

        self.task.set_target(mink.SE3.from_matrix(T))
        config = self.configuration
        config.update(self._positions(x0))
        steps = 0
        while True:
            error = self.task.compute_error(config)
            self._last = config.q[self.order].copy()
            if np.linalg.norm(error[:3]) <= PEER_TOLERANCE and np.linalg.norm(error[3:]) <= PEER_TOLERANCE and self._apart():
                return self._last
            if time.perf_counter() >= deadline:
                return None
            if steps < STEPS:
                try:
                    velocity = mink.solve_ik(config, [self.task], DT, SOLVER, damping=DAMPING, limits=self.limits)
                except mink.NoSolutionFound:  # the QP is infeasible here (a start in collision): restart
                    steps = STEPS
                    continue
                config.integrate_inplace(velocity, DT)
                self.iterations += 1
                steps += 1
                continue
            self.restarts += 1
            steps = 0
            config.update(self._positions(self.random_x()))
