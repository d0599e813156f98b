"""Pack a problem's arrays into one int and one float buffer, and unpack them in kernels.

Passing an array to a compiled function costs ≈ 0.2 µs; a solve that handed over a dozen
separate tables would spend more on the call than the FK/IK test's whole search budget.
So the FK program, goal table, joint data and bounds travel as two buffers, and kernels
take views of them with `unpack` (a few nanoseconds inside compiled code).

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
from numba import njit, types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from bioik.kinematics.frames import JIT

HEADER = 8
N_VDATA = 6
#: Columns of gi before the extra link outputs (named in `bioik.goals.kernels`).
GI_COLUMNS = 6


def sizes(S: int, O: int, G: int, n: int, E: int, P: int) -> tuple[int, int]:
    """Lengths of (ibuf, fbuf) for E extra link columns and parameter rows of width P ≥ N_PARAMS."""
    return HEADER + 3 * S + O + (GI_COLUMNS + E) * G, 9 * S + 7 * O + G * P + G + 2 * G + N_VDATA * n + 4 * n


@intrinsic
def _matrix(typingctx, buf, start, rows, cols):
    """buf[start : start + rows·cols] as a C-ordered (rows, cols) view of a C-ordered
    vector. `reshape` checks whether it can avoid a copy (≈ 20 ns a call, ten calls a
    query); here the buffer layout guarantees the view, so it is built directly."""
    if not (isinstance(buf, types.Array) and buf.ndim == 1 and buf.layout == "C"):
        return None
    sig = types.Array(buf.dtype, 2, "C")(buf, start, rows, cols)

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        first, r, c = (context.cast(builder, v, t, types.intp) for v, t in zip(args[1:], sig.args[1:]))
        out = make_array(sig.return_type)(context, builder)
        populate_array(out, data=builder.gep(src.data, [first]), shape=[r, c], strides=[builder.mul(c, src.itemsize), src.itemsize],
                       itemsize=src.itemsize, meminfo=src.meminfo, parent=src.parent)
        return impl_ret_borrowed(context, builder, sig.return_type, out._getvalue())

    return sig, codegen


@njit(**JIT)
def unpack(ibuf, fbuf):
    """Views (seg_i, seg_f, out_seg, out_tf, gi, gf, gw, gt, vdata, bounds) of the buffers."""
    S, O, G, n, E, P = ibuf[0], ibuf[1], ibuf[2], ibuf[3], ibuf[4], ibuf[5]
    W = GI_COLUMNS + E
    i = HEADER
    seg_i = _matrix(ibuf, i, S, 3)
    i += 3 * S
    out_seg = ibuf[i : i + O]
    i += O
    gi = _matrix(ibuf, i, G, W)
    f = 0
    seg_f = _matrix(fbuf, f, S, 9)
    f += 9 * S
    out_tf = _matrix(fbuf, f, O, 7)
    f += 7 * O
    gf = _matrix(fbuf, f, G, P)
    f += P * G
    gw = fbuf[f : f + G]
    f += G
    gt = _matrix(fbuf, f, G, 2)
    f += 2 * G
    vdata = _matrix(fbuf, f, n, N_VDATA)
    f += N_VDATA * n
    bounds = _matrix(fbuf, f, 4, n)
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
