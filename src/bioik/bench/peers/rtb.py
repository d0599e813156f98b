"""Robotics Toolbox for Python as a peer (``peer:rtb``)."""

from __future__ import annotations

import time

import numpy as np

from bioik.bench.peers.base import PEER_TOLERANCE, PeerAdapter, PeerSkipped


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
