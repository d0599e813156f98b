"""The common part of the peer adapters: the robot's URDF reduced to a chain, and `PeerAdapter`.

Each adapter builds the peer's model from the robot's own URDF (`chain_urdf`: the links and
joints from the model root to the tip, visual/collision geometry dropped, joints outside the
active group frozen at the robot's frozen values as fixed joints), checks that the peer's FK
agrees with bioik's, and maps joint values by name. `PeerAdapter.solve(T, seed, timeout)`
runs the peer from `seed` and restarts it from random configurations until it reports
success or the timeout passes.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

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
    `iterations`, `restarts` and `_last`). A collision-aware peer also gets the `scene`
    (None: free space, no collision model) and lists in `notes` what it cannot represent.
    `x` are joint values in peer order (the chain's
    movable joints), mapped to bioik's q by joint name.
    """

    key = ""
    package = ""
    module = ""
    extra = "peers"  # the pip extra that installs it
    collision_aware = False  # takes a scene: obstacles and self-collision (Drake, mink)

    def __init__(self, robot: Robot, tip: str, rng: int | None = 0, scene: Any = None):
        if scene is not None and not self.collision_aware:
            raise ValueError(f"peer:{self.key} takes no scene (it sees no obstacle)")
        self.robot, self.tip, self.scene = robot, tip, scene
        self.notes: list[str] = []  # what the peer's model cannot represent (said beside its results)
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
