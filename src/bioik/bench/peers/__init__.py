"""Peer adapters: other Python IK libraries run through the benchmark's protocol and timeouts.

Selected like solvers as ``peer:NAME`` (`PEERS`): ``peer:rtb`` (Robotics Toolbox for Python,
``ETS.ik_LM``, C++ core), ``peer:klampt`` (Klamp't ``IKSolver`` with ``sampleInitial``
restarts), ``peer:ikpy`` (``Chain.inverse_kinematics_frame``, orientation mode "all") and
``peer:pinocchio`` (a damped-least-squares CLIK loop on the log6 error, written here on
Pinocchio's FK and Jacobians); and two that see obstacles, ``peer:drake`` (Drake's
``InverseKinematics`` with a minimum-distance constraint, SNOPT) and ``peer:mink`` (mink's
``solve_ik`` with a ``CollisionAvoidanceLimit`` on a MuJoCo model), which also run the
collision tests (a scene test without a goal set, and ``table``) with the scene exported
by `export`. They are optional (``pip install -e '.[peers]'``, ``'.[peers-clutter]'`` for
Drake and mink); a missing package raises `PeerSkipped`, which the CLI prints as one
"skipping ..." line naming the extra.

Each adapter builds the peer's model from the robot's own URDF (`chain_urdf`: the links and
joints from the model root to the tip, visual/collision geometry dropped, joints outside the
active group frozen at the robot's frozen values as fixed joints), checks that the peer's FK
agrees with bioik's, and maps joint values by name. `PeerAdapter.solve(T, seed, timeout)`
runs the peer from `seed` and restarts it from random configurations until it reports
success or the timeout passes; its answer is never trusted: `solve_function` wraps an
adapter as a `bioik.solve`-shaped function, so the runner times the call and checks the
answer on bioik's exact FK like every solver's (`runner.check`).
"""

from __future__ import annotations

import importlib
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from bioik.bench.peers.base import (FK_AGREEMENT, LIMIT_NOISE, PEER_TESTS, PEER_TOLERANCE, PREFIX, PeerAdapter, PeerSkipped,
                                    chain_urdf, urdf_source)
from bioik.bench.peers.drake import DrakeAdapter
from bioik.bench.peers.ikpy import IkpyAdapter
from bioik.bench.peers.klampt import KlamptAdapter
from bioik.bench.peers.mink import MinkAdapter
from bioik.bench.peers.pinocchio import PinocchioAdapter
from bioik.bench.peers.rtb import RtbAdapter
from bioik.kinematics.robot import Robot

PEERS: dict[str, type[PeerAdapter]] = {"rtb": RtbAdapter, "klampt": KlamptAdapter, "ikpy": IkpyAdapter, "pinocchio": PinocchioAdapter,
                                       "drake": DrakeAdapter, "mink": MinkAdapter}


def scene_aware(solver: str) -> bool:
    """Does peer `solver` take a scene (obstacles and self-collision)?"""
    return PEERS[check_peer(solver)].collision_aware


def is_peer(solver: str) -> bool:
    """Is `solver` a peer name (``peer:...``)?"""
    return isinstance(solver, str) and solver.startswith(PREFIX)


def check_peer(solver: str) -> str:
    """The key of a known peer name (``peer:rtb`` → ``rtb``), else ValueError listing the peers."""
    key = solver[len(PREFIX):] if is_peer(solver) else solver
    if key not in PEERS:
        raise ValueError(f"unknown peer {solver!r}; known: {', '.join(PREFIX + k for k in PEERS)}")
    return key


def check_available(solver: str) -> None:
    """PeerSkipped if the peer's package cannot be imported (checked by importing it)."""
    cls = PEERS[check_peer(solver)]
    try:
        importlib.import_module(cls.module)
    except Exception:  # an ImportError, or a broken install failing at import
        raise PeerSkipped(f"skipping {solver}: package {cls.package} is not installed (pip install -e '.[{cls.extra}]')") from None


def runs_test(solver: str, test: str) -> bool:
    """Does peer `solver` run `test`? Every peer runs PEER_TESTS; a collision-aware one also
    the collision tests (`targets.COLLISION_TESTS`: a scene test without a goal set, table)."""
    from bioik.bench.targets import collision_test

    return test in PEER_TESTS or (scene_aware(solver) and collision_test(test))


def check_test(solver: str, test: str) -> None:
    """PeerSkipped unless peer `solver` runs `test` (`runs_test`)."""
    if not runs_test(solver, test):
        aware = ", ".join(PREFIX + k for k, c in PEERS.items() if c.collision_aware)
        raise PeerSkipped(f"skipping {solver} on test {test}: peers run only pose goals on one tip ({', '.join(PEER_TESTS)}); "
                          f"among obstacles (scene:NAME without a goal set, table) only {aware}")


def load_peer(solver: str, robot: Robot, tip: str | None = None, robot_name: str | None = None, scene: Any = None) -> PeerAdapter:
    """The adapter of `solver` for `robot` and `tip` (default its first tip) among `scene`'s
    obstacles (None: free space), model built and checked; PeerSkipped (with a one-line
    reason) when the package is missing or the robot is not supported."""
    key = check_peer(solver)
    check_available(solver)
    try:
        return PEERS[key](robot, tip or robot.tips[0], scene=scene)
    except PeerSkipped as e:
        raise PeerSkipped(f"skipping {solver} on robot {robot_name or robot.name}: {e}") from None


def solve_function(adapter: PeerAdapter) -> Callable[..., Any]:
    """A `bioik.solve`-shaped function running `adapter` (what the runner times and checks).

    It takes one PoseGoal on the adapter's tip (and, for a collision-aware peer, the scene
    test's collision goal and `scene=`, which the adapter was built with) and no solver
    parameters (ValueError otherwise). The Result's q is the peer's answer (its last
    attempt when it gave up; the seed when it made none), `success` is what the peer
    claimed: the runner stores the claim beside its own check of q. A `callback` is asked
    once about a claimed answer (callback_calls 1): a peer does not search on after a
    rejection, as TRAC-IK and BioIK 2 do not in [E 6].
    """
    import bioik
    from bioik.goals import CollisionAvoidanceGoal

    solver = PREFIX + adapter.key

    def solve(robot: Robot, goals: Any, seed: Any = None, timeout: float = 0.005, solver: str | None = solver,
              position_tolerance: float = 0.0, rotation_tolerance: float = 0.0, callback: Any = None, scene: Any = None,
              **params: Any):
        # the tolerances are the runner's; a peer converges to its own PEER_TOLERANCE, tighter than any
        if params:
            raise ValueError(f"{solver} takes no solver parameters; got {', '.join(sorted(params))}")
        if robot is not adapter.robot:
            raise ValueError(f"{solver}: the adapter was built for another robot")
        if scene is not None and (adapter.scene is None or list(scene.names) != list(adapter.scene.names)):
            raise ValueError(f"{solver}: the adapter was built for another scene (or none); build it with this one")
        poses = [g for g in goals if not isinstance(g, CollisionAvoidanceGoal) or adapter.scene is None]
        if len(poses) != 1 or not isinstance(poses[0], bioik.PoseGoal) or poses[0].link != adapter.tip:
            raise ValueError(f"{solver} solves one PoseGoal on link {adapter.tip!r}"
                             + (" (and the scene's collision goal)" if adapter.scene is not None else ""))
        t0 = time.perf_counter()
        q = adapter.solve(poses[0].pose, seed, timeout)
        claimed = q is not None
        calls = 0
        if q is None:
            q = adapter.last if adapter.last is not None else adapter.start(seed)
        elif callback is not None:  # asked once: no peer searches on after a rejection
            calls = 1
            callback(q)
        return bioik.Result(q=q, success=claimed, cost=math.nan, goal_errors=np.full((1, 2), math.nan),
                            time=time.perf_counter() - t0, callback_calls=calls, restarts=adapter.restarts,
                            iterations=adapter.iterations, solver=solver)

    solve.adapter = adapter  # type: ignore[attr-defined]  # the runner stores its notes
    return solve


__all__ = ["FK_AGREEMENT", "LIMIT_NOISE", "PEERS", "PEER_TESTS", "PEER_TOLERANCE", "PREFIX", "DrakeAdapter", "IkpyAdapter",
           "KlamptAdapter", "MinkAdapter", "PeerAdapter", "PeerSkipped", "PinocchioAdapter", "RtbAdapter", "chain_urdf",
           "check_available", "check_peer", "check_test", "is_peer", "load_peer", "runs_test", "scene_aware", "solve_function",
           "urdf_source"]
