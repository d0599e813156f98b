"""Drake as a peer (``peer:drake``): `InverseKinematics` on a `MultibodyPlant`, solved with SNOPT.

The plant is the chain URDF (`chain_urdf`, root welded to the world). In a scene the
robot's collision geometry and the obstacles (`export.collision_model`: primitives as they
are, non-convex solids as convex pieces) are registered with its SceneGraph, and the
filters leave exactly the pairs bioik's exact check tests. Each solve is one program: a
position constraint (a box of ±PEER_TOLERANCE/√3 per axis, so within PEER_TOLERANCE), an
orientation constraint (angle ≤ PEER_TOLERANCE) and, in a scene,
`AddMinimumDistanceLowerBoundConstraint(MIN_DISTANCE)`; SNOPT runs from the seed, then
from uniform random starts until it reports success or the timeout passes. The SNOPT in
Drake's wheel ignores a "Time limit" (an attempt given 0.01 s of it ran its 200 major
iterations, 0.5-0.8 s on the tanks), so each attempt gets a major iteration limit that
fits the time left: that time over the longest time per iteration seen so far in
attempts that ran to a limit of at least MEASURED (`seconds_per_iteration`, kept across solves; the
warm-up's solves measure it before any solve is timed). The runner records the time the
whole call took, any overrun included, and the report shows the longest call.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from bioik.bench.peers import export
from bioik.bench.peers.base import PEER_TOLERANCE, PeerAdapter, PeerSkipped

#: The distance SNOPT (and mink) keep between checked pairs (m). bioik's check accepts
#: touching (distance ≥ 0); a bound of 0 lets a solver end at a touch it rounds into a
#: penetration, so a small positive bound, below every stored witness's clearance: the
#: least among the first 100 witnesses of the eight EBIKE scenarios is 4.4 µm (Shelf).
MIN_DISTANCE = 1e-6
#: Drake's default: pairs closer than MIN_DISTANCE + this shape the constraint.
INFLUENCE = 0.01
#: SNOPT's own tolerances: feasibility and optimality far below the benchmark's 1e-5, and
#: an iteration limit well above what a converging attempt takes here.
SNOPT_OPTIONS = {"Major feasibility tolerance": 1e-11, "Major optimality tolerance": 1e-6}
MAJOR_ITERATIONS = 200
#: SNOPT's exit code when it stops at the major iteration limit.
ITERATION_LIMIT = 32
#: Attempts of fewer iterations do not measure the time per iteration (a call's own
#: setup would weigh in it).
MEASURED = 20


def _shape(g: export.Geom, label: str) -> Any:
    from pydrake.geometry import Box, Capsule, Convex, Cylinder, Sphere

    if g.kind == "box":
        return Box(*g.size)
    if g.kind == "sphere":
        return Sphere(g.size[0])
    if g.kind == "cylinder":
        return Cylinder(*g.size)
    if g.kind == "capsule":
        return Capsule(*g.size)
    return Convex(np.ascontiguousarray(np.asarray(g.vertices, dtype=float).T), label)


class DrakeAdapter(PeerAdapter):
    """Drake's `InverseKinematics` with SNOPT (see the module)."""

    key, package, module = "drake", "drake", "pydrake"
    extra = "peers-clutter"
    collision_aware = True

    def _build(self, text: str, path: str) -> None:
        from pydrake.geometry import CollisionFilterDeclaration, GeometrySet
        from pydrake.math import RigidTransform
        from pydrake.multibody.parsing import Parser
        from pydrake.multibody.plant import AddMultibodyPlantSceneGraph, CoulombFriction
        from pydrake.solvers import SnoptSolver, SolverOptions
        from pydrake.systems.framework import DiagramBuilder

        builder = DiagramBuilder()
        plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.0)
        (instance,) = Parser(plant).AddModelsFromString(text, "urdf")
        model = self.robot.model
        plant.WeldFrames(plant.world_frame(), plant.GetFrameByName(model.links[model.root].name, instance))
        ids: dict[str, list[Any]] = {}
        self.bodies = [plant.get_body(b).name() for b in plant.GetBodyIndices(instance)]
        if self.scene is not None:
            cm = export.collision_model(self.robot, self.bodies, self.scene)
            self.notes += cm.notes
            friction = CoulombFriction(0.5, 0.5)
            for link, (body, geoms) in cm.links.items():
                ids[link] = [plant.RegisterCollisionGeometry(plant.GetBodyByName(body, instance), RigidTransform(g.pose),
                                                             _shape(g, f"{link}_{k}"), f"{link}_{k}", friction)
                             for k, g in enumerate(geoms)]
            for name, geoms in cm.obstacles.items():
                ids[name] = [plant.RegisterCollisionGeometry(plant.world_body(), RigidTransform(g.pose), _shape(g, f"{name}_{k}"),
                                                             f"{name}_{k}", friction) for k, g in enumerate(geoms)]
        plant.Finalize()
        if ids:  # leave only the pairs bioik's check tests
            keep = {frozenset(p) for p in (*cm.self_pairs, *cm.scene_pairs)}
            declaration = CollisionFilterDeclaration()
            names = list(ids)
            for i, a in enumerate(names):
                for b in names[i:]:
                    if frozenset((a, b)) not in keep and ids[a] and ids[b]:
                        declaration.ExcludeBetween(GeometrySet(ids[a]), GeometrySet(ids[b]))
            scene_graph.collision_filter_manager().Apply(declaration)
            welded = sorted({link for link, _ in cm.scene_pairs if link not in self.robot.moving_links})
            if welded:  # SceneGraph filters geometry on bodies welded together, the world's included
                self.notes.append(f"links welded to the world not checked against obstacles: {', '.join(welded)}"
                                  " (no joint moves them; bioik's check tests them)")
        self.diagram = builder.Build()
        self.context = self.diagram.CreateDefaultContext()
        self.plant = plant
        self.plant_context = plant.GetMyMutableContextFromRoot(self.context)
        self.frame = plant.GetFrameByName(self.tip, instance)
        self.order = np.array([plant.GetJointByName(j, instance).position_start() for j in self.joints])
        self.solver = SnoptSolver()
        self.options = SolverOptions()
        for k, v in SNOPT_OPTIONS.items():
            self.options.SetOption(self.solver.solver_id(), k, v)
        if not self.solver.available() or not self.solver.enabled():
            raise PeerSkipped("this drake build has no SNOPT")
        self.seconds_per_iteration = 0.0  # the longest seen (0: none yet)

    def _positions(self, x: np.ndarray) -> np.ndarray:
        v = np.zeros(self.plant.num_positions())
        v[self.order] = x
        return v

    def _fk(self, x: np.ndarray) -> np.ndarray:
        self.plant.SetPositions(self.plant_context, self._positions(x))
        return np.asarray(self.plant.CalcRelativeTransform(self.plant_context, self.plant.world_frame(), self.frame).GetAsMatrix4())

    def _program(self, T: np.ndarray) -> Any:
        from pydrake.math import RotationMatrix
        from pydrake.multibody.inverse_kinematics import InverseKinematics

        ik = InverseKinematics(self.plant, self.plant_context, with_joint_limits=True)
        box = np.full(3, PEER_TOLERANCE / math.sqrt(3.0))
        world = self.plant.world_frame()
        ik.AddPositionConstraint(self.frame, np.zeros(3), world, T[:3, 3] - box, T[:3, 3] + box)
        ik.AddOrientationConstraint(world, RotationMatrix(T[:3, :3]), self.frame, RotationMatrix(), PEER_TOLERANCE)
        if self.scene is not None:
            ik.AddMinimumDistanceLowerBoundConstraint(MIN_DISTANCE, INFLUENCE)
        return ik

    def _run(self, T: np.ndarray, x0: np.ndarray, deadline: float) -> np.ndarray | None:
        ik = self._program(T)
        x = x0
        while True:
            left = deadline - time.perf_counter()
            fits = left / self.seconds_per_iteration if self.seconds_per_iteration else MAJOR_ITERATIONS
            limit = int(min(MAJOR_ITERATIONS, max(1, fits)))
            self.options.SetOption(self.solver.solver_id(), "Major iterations limit", limit)
            t0 = time.perf_counter()
            result = self.solver.Solve(ik.prog(), self._positions(x), self.options)
            if result.get_solver_details().info == ITERATION_LIMIT and limit >= MEASURED:
                self.seconds_per_iteration = max(self.seconds_per_iteration, (time.perf_counter() - t0) / limit)
            self.iterations += 1
            self._last = np.asarray(result.GetSolution(ik.q()))[self.order]
            if result.is_success():
                return self._last
            if time.perf_counter() >= deadline:
                return None
            self.restarts += 1
            x = self.random_x()
