"""Compile a robot model into flat arrays that the FK and Jacobian kernels run over.

Only the joints on the paths to the requested links are kept. Fixed joints and frozen
variables are folded into constant transforms. Each remaining one-variable motion is a
*segment*: a constant frame `F` (from the parent segment's frame) followed by a rotation
about, or a translation along, the segment's own z axis — joint axes are rotated onto z
when the program is built, so a revolute joint costs one quaternion product with
(cos θ/2, 0, 0, sin θ/2). A requested link's frame is its segment's frame times a
constant tail transform.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bioik.kinematics.frames import align_z, frame_from_matrix, rotation_about
from bioik.model.robot_model import REVOLUTE, Joint, RobotModel

#: Columns of `KinematicProgram.seg_i`.
PARENT, KIND, VAR = 0, 1, 2


@dataclass(frozen=True, eq=False)
class KinematicProgram:
    """Forward kinematics of `links` as arrays (see the module docstring).

    seg_i: (S, 3) int64 — parent segment (−1: robot base), motion kind, active variable.
    seg_f: (S, 9) float64 — constant frame before the motion (7), multiplier, offset.
    out_seg: (O,) int64 — segment carrying each requested link (−1: fixed to the base).
    out_tf: (O, 7) float64 — constant frame from that segment to the link.
    """

    seg_i: np.ndarray
    seg_f: np.ndarray
    out_seg: np.ndarray
    out_tf: np.ndarray
    links: tuple[str, ...]
    n_variables: int

    @property
    def n_segments(self) -> int:
        return len(self.seg_i)


def build_program(model: RobotModel, active: list[int], frozen: np.ndarray, links: list[int]) -> KinematicProgram:
    """Program for the frames of `links` as functions of the `active` model variables.

    active: model variable indices, in the order of the solver's configuration vector.
    frozen: a full model configuration; variables not in `active` keep these values.
    """
    position = {v: i for i, v in enumerate(active)}
    seg_i: list[tuple[int, int, int]] = []
    seg_f: list[np.ndarray] = []
    state: dict[int, tuple[int, np.ndarray]] = {model.root: (-1, np.eye(4))}

    def frame_of(link: int) -> tuple[int, np.ndarray]:
        path = []  # links below the nearest one already built, deepest first (no recursion: chains are long)
        while link not in state:
            path.append(link)
            link = model.joints[model.parent_joint[link]].parent
        for child in reversed(path):
            state[child] = add_joint(model.joints[model.parent_joint[child]], *state[link])
            link = child
        return state[link]

    def add_joint(joint: Joint, seg: int, T: np.ndarray) -> tuple[int, np.ndarray]:
        """(segment, constant transform) of the joint's child link, given its parent's."""
        T = T @ joint.origin
        for m in joint.motions:
            if m.variable in position:
                A = np.eye(4)
                A[:3, :3] = align_z(m.axis)
                F = T @ A
                seg_i.append((seg, m.kind, position[m.variable]))
                seg_f.append(np.concatenate([frame_from_matrix(F), [m.multiplier, m.offset]]))
                seg = len(seg_i) - 1
                T = np.eye(4)
                T[:3, :3] = A[:3, :3].T
            else:
                value = m.multiplier * frozen[m.variable] + m.offset
                M = np.eye(4)
                if m.kind == REVOLUTE:
                    M[:3, :3] = rotation_about(m.axis, value)
                else:
                    M[:3, 3] = m.axis * value
                T = T @ M
        return seg, T

    outs = [frame_of(l) for l in links]
    return KinematicProgram(
        seg_i=np.array(seg_i, dtype=np.int64).reshape(-1, 3),
        seg_f=np.array(seg_f, dtype=np.float64).reshape(-1, 9),
        out_seg=np.array([s for s, _ in outs], dtype=np.int64),
        out_tf=np.array([frame_from_matrix(T) for _, T in outs], dtype=np.float64).reshape(-1, 7),
        links=tuple(model.links[l].name for l in links),
        n_variables=len(active),
    )
