"""Peer adapters: other Python IK libraries run through the benchmark's protocol and timeouts.

Selected like solvers as ``peer:NAME`` (`PEERS`): ``peer:rtb`` (Robotics Toolbox for Python,
``ETS.ik_LM``, C++ core), ``peer:klampt`` (Klamp't ``IKSolver`` with ``sampleInitial``
restarts), ``peer:ikpy`` (``Chain.inverse_kinematics_frame``, orientation mode "all") and
``peer:pinocchio`` (a damped-least-squares CLIK loop on the log6 error, written here on
Pinocchio's FK and Jacobians). They are optional (``pip install -e '.[peers]'``); a missing
package raises `PeerSkipped`, which the CLI prints as one "skipping ..." line.

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

import contextlib
import importlib
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial.transform import Rotation

from bioik.errors import PeerSkipped as PeerSkipped
from bioik.kinematics.robot import Robot
from bioik.model.robot_model import PRISMATIC

PREFIX = "peer:"
#: Tests with pose goals on one tip: the only ones peers run.
PEER_TESTS = ("fkik", "grid", "unreachable", "scale")
#: Joint values outside bioik's limits by at most this much are clipped (float noise).
LIMIT_NOISE = 1e-9
#: Peer-side convergence threshold: half the benchmark's 1e-5 m / 1e-5 rad check, so a
#: peer neither stops short of it nor spends iterations far beyond it.
PEER_TOLERANCE = 5e-6
#: The peer's FK must match bioik's within this (m, and rad-ish entries of R) to be used.
FK_AGREEMENT = 1e-6


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
        raise PeerSkipped(f"skipping {solver}: package {cls.package} is not installed (pip install -e '.[peers]')") from None


def check_test(solver: str, test: str) -> None:
    """PeerSkipped unless `test` is one peers run (pose goals on one tip)."""
    if test not in PEER_TESTS:
        raise PeerSkipped(f"skipping {solver} on test {test}: peers run only pose goals on one tip ({', '.join(PEER_TESTS)})")


def load_peer(solver: str, robot: Robot, tip: str | None = None, robot_name: str | None = None) -> PeerAdapter:
    """The adapter of `solver` for `robot` and `tip` (default its first tip), model built and
    checked; PeerSkipped (with a one-line reason) when the package is missing or the robot is
    not supported."""
    key = check_peer(solver)
    check_available(solver)
    try:
        return PEERS[key](robot, tip or robot.tips[0])
    except PeerSkipped as e:
        raise PeerSkipped(f"skipping {solver} on robot {robot_name or robot.name}: {e}") from None


def solve_function(adapter: PeerAdapter) -> Callable[..., Any]:
    """A `bioik.solve`-shaped function running `adapter` (what the runner times and checks).

    It takes one PoseGoal on the adapter's tip and no solver parameters (ValueError otherwise).
    The Result's q is the peer's answer (its last attempt when it gave up; the seed when it
    made none), `success` is what the peer claimed: the runner ignores it and checks q itself.
    A `callback` is asked once about a claimed answer (callback_calls 1, `success` its
    verdict): a peer does not search on after a rejection, as TRAC-IK and BioIK 2 do not in
    [E 6].
    """
    import bioik

    solver = PREFIX + adapter.key

    def solve(robot: Robot, goals: Any, seed: Any = None, timeout: float = 0.005, solver: str | None = solver,
              position_tolerance: float = 0.0, rotation_tolerance: float = 0.0, callback: Any = None, **params: Any):
        # the tolerances are the runner's; a peer converges to its own PEER_TOLERANCE, tighter than any
        if params:
            raise ValueError(f"{solver} takes no solver parameters; got {', '.join(sorted(params))}")
        if robot is not adapter.robot:
            raise ValueError(f"{solver}: the adapter was built for another robot")
        if len(goals) != 1 or not isinstance(goals[0], bioik.PoseGoal) or goals[0].link != adapter.tip:
            raise ValueError(f"{solver} solves one PoseGoal on link {adapter.tip!r}")
        t0 = time.perf_counter()
        q = adapter.solve(goals[0].pose, seed, timeout)
        elapsed = time.perf_counter() - t0
        claimed = q is not None
        calls = 0
        if q is None:
            q = adapter.last if adapter.last is not None else adapter.start(seed)
        elif callback is not None:  # asked once: no peer searches on after a rejection
            calls = 1
            claimed = bool(callback(q))
            elapsed = time.perf_counter() - t0
        return bioik.Result(q=q, success=claimed, cost=math.nan, goal_errors=np.full((1, 2), math.nan), time=elapsed,
                            callback_calls=calls, restarts=adapter.restarts, iterations=adapter.iterations, solver=solver)

    return solve


# -- the robot's URDF, reduced to the chain root → tip ------------------------------------------


def urdf_source(robot: Robot) -> str:
    """The URDF text `robot` was loaded from (bundled name, file path or snakeN); PeerSkipped
    for a robot built from URDF text or a model (its source is not kept)."""
    import re

    from bioik import robots

    src = robot.source
    m = re.fullmatch(r"snake\((\d+)\)", src or "")
    if m is not None:
        return robots.snake_urdf(int(m.group(1)))
    if src in robots.names():
        return robots.urdf_path(src).read_text()
    if src is not None and Path(src).is_file():
        return Path(src).read_text()
    raise PeerSkipped("its URDF source is unknown (load it from a bundled name or a URDF file)")


def _rpy(R: np.ndarray) -> tuple[float, float, float]:
    """URDF roll-pitch-yaw of a rotation matrix (R = Rz(yaw) Ry(pitch) Rx(roll))."""
    pitch = math.asin(max(-1.0, min(1.0, -R[2, 0])))
    if abs(R[2, 0]) < 1.0 - 1e-12:
        return math.atan2(R[2, 1], R[2, 2]), pitch, math.atan2(R[1, 0], R[0, 0])
    return 0.0, pitch, math.atan2(-R[0, 1], R[1, 1])  # gimbal lock: roll folded into yaw


def _motion(kind: int, axis: np.ndarray, value: float) -> np.ndarray:
    T = np.eye(4)
    if kind == PRISMATIC:
        T[:3, 3] = axis * value
        return T
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    T[:3, :3] = np.eye(3) + math.sin(value) * K + (1 - math.cos(value)) * K @ K
    return T


def chain_urdf(robot: Robot, tip: str) -> tuple[str, list[str]]:
    """(URDF text of the chain model root → `tip`, names of its movable joints in chain order).

    Kept: the robot element, the chain's links (without visual/collision geometry) and joints,
    as written in the robot's URDF. A chain joint moved by no active variable becomes a fixed
    joint at the robot's frozen value; PeerSkipped for a chain joint peers cannot express
    (mimic of an active joint, planar, floating).
    """
    from lxml import etree

    model = robot.model
    root = etree.fromstring(urdf_source(robot).encode(), parser=etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, remove_blank_text=True, remove_comments=True))
    chain = [model.joints[j] for j in model.chain(model.links[model.root].name, tip)]
    active = set(robot.group.variables)
    links = {model.links[model.root].name} | {model.links[j.child].name for j in chain}
    joints = {j.name: j for j in chain}
    movable: list[str] = []
    out = etree.Element("robot", name=root.get("name", "robot"))
    for el in root:
        if el.tag == "link" and el.get("name") in links:
            link = etree.SubElement(out, "link", name=el.get("name"))
            for child in el:
                if child.tag == "inertial":
                    link.append(child)
        elif el.tag == "joint" and el.get("name") in joints:
            j = joints[el.get("name")]
            moved = [m for m in j.motions if m.variable in active]
            if not moved:
                if j.motions:  # frozen: a fixed joint at its frozen value
                    T = j.origin.copy()
                    for m in j.motions:
                        T = T @ _motion(m.kind, m.axis, m.multiplier * robot.frozen[m.variable] + m.offset)
                    fixed = etree.SubElement(out, "joint", name=j.name, type="fixed")
                    etree.SubElement(fixed, "parent", link=model.links[j.parent].name)
                    etree.SubElement(fixed, "child", link=model.links[j.child].name)
                    etree.SubElement(fixed, "origin", xyz=" ".join(repr(float(x)) for x in T[:3, 3]),
                                     rpy=" ".join(repr(float(x)) for x in _rpy(T[:3, :3])))
                else:
                    out.append(el)
                continue
            if j.type not in ("revolute", "continuous", "prismatic") or j.mimic is not None:
                raise PeerSkipped(f"joint {j.name!r} ({'mimic' if j.mimic else j.type}) is not supported by the peer adapters")
            out.append(el)
            movable.append(j.name)
    return etree.tostring(out, pretty_print=True, encoding="unicode"), movable


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence C/C++ output on stdout/stderr (file descriptors 1 and 2) inside the block."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


# -- adapters ------------------------------------------------------------------------------------


class PeerAdapter:
    """One peer library on one robot and tip.

    Subclasses set `key`, `package` (pip name), `module` (import name) and implement
    `_build(urdf_text, path)` (the peer's model, joint order = `self.joints`), `_fk(x)` (the
    peer's tip pose for peer joint values x, used once to check the model) and
    `_run(T, x0, deadline) -> x or None` (search from x0, restarting until the deadline; sets
    `iterations`, `restarts` and `_last`). `x` are joint values in peer order (the chain's
    movable joints), mapped to bioik's q by joint name.
    """

    key = ""
    package = ""
    module = ""

    def __init__(self, robot: Robot, tip: str, rng: int | None = 0):
        self.robot, self.tip = robot, tip
        self.rng = np.random.default_rng(rng)
        text, self.joints = chain_urdf(robot, tip)
        if not self.joints:
            raise PeerSkipped(f"no active joint moves tip {tip!r}")
        names = robot.variable_names
        self.index = np.array([names.index(j) for j in self.joints])  # peer joint i ↔ q[index[i]]
        self.lower, self.upper = robot.lower[self.index], robot.upper[self.index]
        self.sample_lower, self.sample_upper = robot.sample_lower[self.index], robot.sample_upper[self.index]
        self.iterations = self.restarts = 0
        self.last: np.ndarray | None = None
        self._last: np.ndarray | None = None  # the peer's latest attempt (peer order), set by _run
        with tempfile.TemporaryDirectory(prefix="bioik-peer-") as d:
            path = Path(d) / f"{robot.name}_{tip}.urdf"
            path.write_text(text)
            try:
                self._build(text, str(path))
            except PeerSkipped:
                raise
            except Exception as e:  # the peer's own parser or model builder refused the URDF
                raise PeerSkipped(f"{self.package} cannot build the model from the URDF ({type(e).__name__}: {e})") from None
        self._check_fk()

    # peer-specific
    def _build(self, text: str, path: str) -> None:
        raise NotImplementedError

    def _fk(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _run(self, T: np.ndarray, x0: np.ndarray, deadline: float) -> np.ndarray | None:
        raise NotImplementedError

    # common
    def _check_fk(self) -> None:
        """PeerSkipped unless the peer's tip pose agrees with bioik's on a few random configurations."""
        rng = np.random.default_rng(1)
        for _ in range(3):
            q = self.robot.random_configuration(rng)
            err = float(np.abs(self._fk(q[self.index]) - self.robot.link_pose(q, self.tip)).max())
            if not err <= FK_AGREEMENT:
                raise PeerSkipped(f"the {self.package} model's FK differs from bioik's by {err:.3g} (unsupported URDF features?)")

    def random_x(self) -> np.ndarray:
        """Random peer joint values within the limits (bioik's sampling box)."""
        return self.rng.uniform(self.sample_lower, self.sample_upper)

    def start(self, seed: Any) -> np.ndarray:
        """bioik's q at the start: the seed clipped into limits, or a random configuration."""
        return self.robot.clip(self.robot.check(seed, "seed")) if seed is not None else self.robot.random_configuration(self.rng)

    def to_q(self, x: np.ndarray, base: np.ndarray) -> np.ndarray:
        """bioik's q for peer values x (other variables from `base`); values past a limit by no
        more than float noise are clipped, larger excursions are kept (the check rejects them)."""
        q = base.copy()
        x = np.asarray(x, dtype=float)
        noise = ((x < self.lower) & (x >= self.lower - LIMIT_NOISE)) | ((x > self.upper) & (x <= self.upper + LIMIT_NOISE))
        q[self.index] = np.where(noise, np.clip(x, self.lower, self.upper), x)
        return q

    def solve(self, T: np.ndarray, seed: Any, timeout: float) -> np.ndarray | None:
        """bioik's q reaching pose T for the tip as the peer claims, or None when the peer found
        none within `timeout` seconds (its last attempt is then `self.last`)."""
        deadline = time.perf_counter() + timeout
        base = self.start(seed)
        self.iterations = self.restarts = 0
        self._last = None
        x = self._run(np.asarray(T, dtype=float), base[self.index], deadline)
        self.last = None if self._last is None else self.to_q(self._last, base)
        return None if x is None else self.to_q(x, base)


class RtbAdapter(PeerAdapter):
    """Robotics Toolbox for Python: `ETS.ik_LM` (C++ core, Chan's damping). One call runs up
    to SLIMIT searches of ILIMIT iterations (the first from the seed, then rtb's own random
    restarts, all in C++); calls repeat from random configurations until one succeeds
    within the limits or the timeout passes (checked between calls: a call of 20 searches
    takes ≈ 1.5 ms at most here)."""

    key, package, module = "rtb", "roboticstoolbox-python", "roboticstoolbox"
    ILIMIT = 30
    SLIMIT = 20
    #: ik_LM's tolerance is on E = ½ eᵀe (e: position and angle-axis error): ½ PEER_TOLERANCE².
    TOL = 0.5 * PEER_TOLERANCE**2

    def _build(self, text: str, path: str) -> None:
        import roboticstoolbox as rtb
        from roboticstoolbox.models.URDF.URDFRobot import URDF_file

        elinks, name, _ = URDF_file(path)
        robot = rtb.Robot(elinks, name=name)
        by_child = {self.robot.model.links[j.child].name: j.name for j in self.robot.model.joints}
        order = [by_child[link.name] for link in sorted((l for l in robot.links if l.isjoint), key=lambda l: l.jindex)]
        if order != self.joints:
            raise PeerSkipped(f"rtb's joint order {order} is not the chain's {self.joints}")
        self.ets = robot.ets(end=self.tip)

    def _fk(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(self.ets.fkine(x).A)

    def _run(self, T: np.ndarray, x0: np.ndarray, deadline: float) -> np.ndarray | None:
        x = x0
        while True:
            sol = self.ets.ik_LM(T, q0=x, ilimit=self.ILIMIT, slimit=self.SLIMIT, tol=self.TOL, joint_limits=True)
            self.iterations += int(sol.iterations)
            self._last = sol.q
            if sol.success:
                return sol.q
            if time.perf_counter() >= deadline:
                return None
            self.restarts += 1
            x = self.random_x()


class KlamptAdapter(PeerAdapter):
    """Klamp't: `IKSolver` on an `ik.objective` for the tip (fixed orientation and position),
    active DoFs = the chain's joints, joint limits on; `solve()` from the seed, then from
    `sampleInitial()` restarts until it succeeds or the timeout passes."""

    key, package, module = "klampt", "klampt", "klampt"
    MAX_ITERS = 50

    def _build(self, text: str, path: str) -> None:
        from klampt import IKSolver, WorldModel

        self.world = WorldModel()  # keeps the robot alive
        with _quiet():  # Klamp't's URDF parser prints progress lines from C++
            rid = self.world.loadElement(path)
        if rid < 0 or self.world.numRobots() < 1:
            raise PeerSkipped("klampt cannot load the URDF")
        self.kr = self.world.robot(0)
        self.link = self.kr.link(self.tip)
        self.dofs = [self.kr.link(child).getIndex() for child in self._child_links()]
        self.config = self.kr.getConfig()  # floating base (klampt's default for a URDF) at the origin
        self.solver = IKSolver(self.kr)
        self.solver.setActiveDofs(self.dofs)
        self.solver.setMaxIters(self.MAX_ITERS)
        self.solver.setTolerance(PEER_TOLERANCE)

    def _child_links(self) -> list[str]:
        model = self.robot.model
        return [model.links[model.joint(j).child].name for j in self.joints]

    def _set(self, x: np.ndarray) -> None:
        c = list(self.config)
        for i, v in zip(self.dofs, x):
            c[i] = float(v)
        self.kr.setConfig(c)

    def _fk(self, x: np.ndarray) -> np.ndarray:
        self._set(x)
        R, t = self.link.getTransform()
        T = np.eye(4)
        T[:3, :3] = np.asarray(R).reshape(3, 3).T  # klampt so3: column-major
        T[:3, 3] = t
        return T

    def _run(self, T: np.ndarray, x0: np.ndarray, deadline: float) -> np.ndarray | None:
        from klampt.model import ik

        s = self.solver
        s.clear()
        s.add(ik.objective(self.link, R=T[:3, :3].T.ravel().tolist(), t=T[:3, 3].tolist()))
        s.setActiveDofs(self.dofs)
        self._set(x0)
        while True:
            ok = s.solve()
            self.iterations += int(s.lastSolveIters())
            c = self.kr.getConfig()
            self._last = np.array([c[i] for i in self.dofs])
            if ok:
                return self._last
            if time.perf_counter() >= deadline:
                return None
            self.restarts += 1
            s.sampleInitial()


class IkpyAdapter(PeerAdapter):
    """ikpy: `Chain.from_urdf_file` (movable joints active), `inverse_kinematics_frame` with
    orientation mode "all" from the seed, then from random configurations until ikpy's own FK
    of the answer is within PEER_TOLERANCE or the timeout passes (ikpy has no success flag)."""

    key, package, module = "ikpy", "ikpy", "ikpy"

    def _build(self, text: str, path: str) -> None:
        import logging

        from ikpy.chain import Chain

        logging.getLogger("ikpy").setLevel(logging.ERROR)
        model = self.robot.model
        root = model.links[model.root].name
        chain = [model.joints[j] for j in model.chain(root, self.tip)]
        mask = [False] + [j.name in self.joints for j in chain]
        self.chain = Chain.from_urdf_file(path, base_elements=[root], active_links_mask=mask)
        names = [l.name for l in self.chain.links]
        if names[1:] != [j.name for j in chain]:
            raise PeerSkipped(f"ikpy's chain {names[1:]} is not the chain's joints {[j.name for j in chain]}")
        self.active = np.array([i for i, l in enumerate(self.chain.links) if l.name in self.joints])
        self.full = np.zeros(len(self.chain.links))

    def _full(self, x: np.ndarray) -> np.ndarray:
        f = self.full.copy()
        f[self.active] = x
        return f

    def _fk(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(self.chain.forward_kinematics(self._full(x)))

    def _run(self, T: np.ndarray, x0: np.ndarray, deadline: float) -> np.ndarray | None:
        x = x0
        while True:
            f = self.chain.inverse_kinematics_frame(T, initial_position=self._full(x), orientation_mode="all")
            self.iterations += 1
            self._last = np.asarray(f)[self.active]
            A = self.chain.forward_kinematics(f)
            angle = np.linalg.norm(Rotation.from_matrix(A[:3, :3].T @ T[:3, :3]).as_rotvec())
            if np.linalg.norm(A[:3, 3] - T[:3, 3]) <= PEER_TOLERANCE and angle <= PEER_TOLERANCE:
                return self._last
            if time.perf_counter() >= deadline:
                return None
            self.restarts += 1
            x = self.random_x()


class PinocchioAdapter(PeerAdapter):
    """Pinocchio: `buildModelFromXML`, then a damped-least-squares CLIK loop on the log6 error
    of the tip frame (local frame, Jlog6-corrected Jacobian, damping DAMPING; each step scaled
    to at most MAX_STEP per joint, then clipped to the limits), restarting from a random
    configuration after ITERATIONS steps, until ‖log6‖ < PEER_TOLERANCE or the timeout passes."""

    key, package, module = "pinocchio", "pin", "pinocchio"
    ITERATIONS = 30
    DAMPING = 1e-6
    MAX_STEP = 0.5

    def _build(self, text: str, path: str) -> None:
        import pinocchio as pin

        self.pin = pin
        self.model = pin.buildModelFromXML(text)
        names = list(self.model.names)[1:]  # 0 is the universe
        if names != self.joints:
            raise PeerSkipped(f"pinocchio's joints {names} are not the chain's {self.joints}")
        if self.model.nq != self.model.nv:
            raise PeerSkipped("continuous joints (nq ≠ nv) are not supported by the pinocchio adapter")
        self.data = self.model.createData()
        self.frame = self.model.getFrameId(self.tip)
        self.lo, self.hi = self.model.lowerPositionLimit.copy(), self.model.upperPositionLimit.copy()

    def _fk(self, x: np.ndarray) -> np.ndarray:
        self.pin.framesForwardKinematics(self.model, self.data, np.asarray(x, dtype=float))
        return np.asarray(self.data.oMf[self.frame].homogeneous)

    def _run(self, T: np.ndarray, x0: np.ndarray, deadline: float) -> np.ndarray | None:
        pin, model, data, fid = self.pin, self.model, self.data, self.frame
        target = pin.SE3(T[:3, :3].copy(), T[:3, 3].copy())
        damping = self.DAMPING * np.eye(6)
        q = np.asarray(x0, dtype=float).copy()
        steps = 0
        while True:
            pin.forwardKinematics(model, data, q)
            pin.updateFramePlacement(model, data, fid)
            iMd = data.oMf[fid].actInv(target)
            err = pin.log6(iMd).vector
            self.iterations += 1
            steps += 1
            if np.linalg.norm(err) < PEER_TOLERANCE:
                self._last = q
                return q
            if time.perf_counter() >= deadline:
                self._last = q
                return None
            if steps >= self.ITERATIONS:
                self.restarts += 1
                steps = 0
                q = self.random_x()
                continue
            J = pin.Jlog6(iMd.inverse()) @ pin.computeFrameJacobian(model, data, q, fid)  # LOCAL frame
            dq = J.T @ np.linalg.solve(J @ J.T + damping, err)
            big = np.abs(dq).max()
            if big > self.MAX_STEP:
                dq *= self.MAX_STEP / big
            q = np.clip(q + dq, self.lo, self.hi)


PEERS: dict[str, type[PeerAdapter]] = {"rtb": RtbAdapter, "klampt": KlamptAdapter, "ikpy": IkpyAdapter, "pinocchio": PinocchioAdapter}
