"""ikpy as a peer (``peer:ikpy``)."""

from __future__ import annotations

import time

import numpy as np
from scipy.spatial.transform import Rotation

from bioik.bench.peers.base import PEER_TOLERANCE, PeerAdapter, PeerSkipped


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
