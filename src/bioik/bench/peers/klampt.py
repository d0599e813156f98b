"""Klamp't as a peer (``peer:klampt``)."""

from __future__ import annotations

import time

import numpy as np

from bioik.bench.peers.base import PEER_TOLERANCE, PeerAdapter, PeerSkipped, _quiet


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
