"""Pinocchio as a peer (``peer:pinocchio``, a CLIK loop written here on its FK and Jacobians)."""

from __future__ import annotations

import time

import numpy as np

from bioik.bench.peers.base import PEER_TOLERANCE, PeerAdapter, PeerSkipped


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
