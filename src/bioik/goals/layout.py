"""Pack a problem's arrays into one int and one float buffer, and unpack them in kernels.

Passing an array to a compiled function costs ≈ 0.2 µs; a solve that handed over a dozen
separate tables would spend more on the call than the FK/IK test's whole search budget.
So the FK program, goal table, joint data and bounds travel as two buffers, and kernels
take views of them with `unpack` (free inside compiled code).

ibuf: header (S, O, G, n, E, P, 0, 0) | seg_i (S×3) | out_seg (O) | gi (G×(6+E))
fbuf: seg_f (S×9) | out_tf (O×7) | gf (G×P) | gw (G) | gt (G×2) | vdata (n×6)
      | bounds (4×n: lower, upper, sample lower, sample upper)

Goals that read more than two links (an RCM over a link chain, Balance) keep the
outputs of their third, fourth, … links in the E extra columns of gi (−1 padded;
E = the most links any goal reads, minus two, at least 0). Parameter rows are P ≥
N_PARAMS floats wide: P grows only for goals whose row is longer (Balance stores a mass
fraction and a centre of mass per link).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bioik.kinematics.frames import JIT

HEADER = 8
N_VDATA = 6
#: Columns of gi before the extra link outputs (named in `bioik.goals.kernels`).
GI_COLUMNS = 6


def sizes(S: int, O: int, G: int, n: int, E: int, P: int) -> tuple[int, int]:
    """Lengths of (ibuf, fbuf) for E extra link columns and parameter rows of width P ≥ N_PARAMS."""
    return HEADER + 3 * S + O + (GI_COLUMNS + E) * G, 9 * S + 7 * O + G * P + G + 2 * G + N_VDATA * n + 4 * n


@njit(**JIT)
def unpack(ibuf, fbuf):
    """Views (seg_i, seg_f, out_seg, out_tf, gi, gf, gw, gt, vdata, bounds) of the buffers."""
    S, O, G, n, E, P = ibuf[0], ibuf[1], ibuf[2], ibuf[3], ibuf[4], ibuf[5]
    W = GI_COLUMNS + E
    i = HEADER
    seg_i = ibuf[i : i + 3 * S].reshape((S, 3))
    i += 3 * S
    out_seg = ibuf[i : i + O]
    i += O
    gi = ibuf[i : i + W * G].reshape((G, W))
    f = 0
    seg_f = fbuf[f : f + 9 * S].reshape((S, 9))
    f += 9 * S
    out_tf = fbuf[f : f + 7 * O].reshape((O, 7))
    f += 7 * O
    gf = fbuf[f : f + P * G].reshape((G, P))
    f += P * G
    gw = fbuf[f : f + G]
    f += G
    gt = fbuf[f : f + 2 * G].reshape((G, 2))
    f += 2 * G
    vdata = fbuf[f : f + N_VDATA * n].reshape((n, N_VDATA))
    f += N_VDATA * n
    bounds = fbuf[f : f + 4 * n].reshape((4, n))
    return seg_i, seg_f, out_seg, out_tf, gi, gf, gw, gt, vdata, bounds


def views(ibuf: np.ndarray, fbuf: np.ndarray) -> tuple[np.ndarray, ...]:
    """The same views from Python (for filling the buffers)."""
    S, O, G, n, E, P = (int(x) for x in ibuf[:6])
    W = GI_COLUMNS + E
    cuts_i = np.cumsum([HEADER, 3 * S, O, W * G])
    cuts_f = np.cumsum([0, 9 * S, 7 * O, P * G, G, 2 * G, N_VDATA * n, 4 * n])
    seg_i = ibuf[cuts_i[0] : cuts_i[1]].reshape(S, 3)
    out_seg = ibuf[cuts_i[1] : cuts_i[2]]
    gi = ibuf[cuts_i[2] : cuts_i[3]].reshape(G, W)
    shapes = [(S, 9), (O, 7), (G, P), (G,), (G, 2), (n, N_VDATA), (4, n)]
    fv = [fbuf[cuts_f[k] : cuts_f[k + 1]].reshape(shape) for k, shape in enumerate(shapes)]
    return (seg_i, fv[0], out_seg, fv[1], gi, *fv[2:])
