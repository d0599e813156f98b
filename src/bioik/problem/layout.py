"""The compiled problem's layout: named sections of one int and one float buffer.

Passing an array to a compiled function costs ≈ 0.2 µs; a solve that handed over a dozen
separate tables would spend more on the call than the FK/IK test's whole search budget.
So the FK program, goal table, joint data and bounds travel as two buffers, and kernels
take named views of them with `unpack` (a few nanoseconds inside compiled code):
`prob = unpack(ibuf, fbuf)`, then `prob.gi`, `prob.bounds` … A new section is a new field
of `ProblemViews` (and of `SECTIONS`); no kernel that reads the others changes.

ibuf: header (S, O, G, n, E, P, A, 0) | seg_i (S×3) | out_seg (O) | gi (G×(GI_COLUMNS+E))
fbuf: seg_f (S×9) | out_tf (O×7) | gf (G×P) | gw (G) | gt (G×2) | vdata (n×6)
      | bounds (4×n: lower, upper, sample lower, sample upper) | aux (A)

Goals that read more than two links (an RCM over a link chain, Balance) keep the
outputs of their third, fourth, … links in the E extra columns of gi (−1 padded;
E = the most links any goal reads, minus two, at least 0). Parameter rows are P ≥
N_PARAMS floats wide: P grows only for goals whose row is longer (Balance stores a mass
fraction and a centre of mass per link).

Goals with bulky data of their own (a collision goal's robot spheres and scene, with its
distance grids) keep it in `aux`, written when the problem is built (`Goal.data`); the
goal's gi row holds where its block starts (column AUX, −1 for none).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from bioik.kinematics.frames import JIT

from bioik.goals.kernels import GI_COLUMNS
from bioik.goals.joints import N_VDATA

HEADER = 8

#: Slots of the `run` array every general search takes: its deadline (monotonic s), its
#: iteration budget, the RNG seed, the acceptance mode and whether to start at random.
DEADLINE, BUDGET, SEED, MODE, RANDOM_START = range(5)
RUN_SLOTS = 5
#: Slots of the `stats` array a search fills.
ITERATIONS, RESTARTS = range(2)
STATS_SLOTS = 2


class ProblemViews(NamedTuple):
    """The sections of a compiled problem, as views of its two buffers."""

    #: FK program, per segment: parent segment, joint type, variable (−1: fixed).
    seg_i: np.ndarray
    #: FK program, per segment: origin (position + quaternion), joint multiplier, offset.
    seg_f: np.ndarray
    #: Per goal link (output): its segment, and its fixed offset frame from it (out_tf).
    out_seg: np.ndarray
    out_tf: np.ndarray
    #: Goal table (G, GI_COLUMNS + E): kind, link outputs, secondary, first row, size, …
    #: (columns named in `bioik.goals.kernels`).
    gi: np.ndarray
    #: Goal parameter rows (G, P), weights (G,), tolerances (G, 2: position, rotation).
    gf: np.ndarray
    gw: np.ndarray
    gt: np.ndarray
    #: Per variable (n, N_VDATA): joint data the joint goals read (columns in
    #: `bioik.goals.joints`).
    vdata: np.ndarray
    #: (4, n): lower and upper limits, then the sampling box for random configurations.
    bounds: np.ndarray
    #: (A,): goal data blocks (`Goal.data`), each starting at its goal's gi[g, AUX].
    aux: np.ndarray


#: (section, buffer, shape in terms of the header sizes S, O, G, n, W = GI_COLUMNS + E, P, A),
#: in buffer order: the one declaration both `views` and the test of `unpack` follow.
SECTIONS = (
    ("seg_i", "i", ("S", 3)),
    ("out_seg", "i", ("O",)),
    ("gi", "i", ("G", "W")),
    ("seg_f", "f", ("S", 9)),
    ("out_tf", "f", ("O", 7)),
    ("gf", "f", ("G", "P")),
    ("gw", "f", ("G",)),
    ("gt", "f", ("G", 2)),
    ("vdata", "f", ("n", N_VDATA)),
    ("bounds", "f", (4, "n")),
    ("aux", "f", ("A",)),
)


def _dims(S: int, O: int, G: int, n: int, E: int, P: int, A: int) -> dict[str, int]:
    return {"S": S, "O": O, "G": G, "n": n, "W": GI_COLUMNS + E, "P": P, "A": A}


def _shapes(S: int, O: int, G: int, n: int, E: int, P: int, A: int) -> list[tuple[str, str, tuple[int, ...]]]:
    d = _dims(S, O, G, n, E, P, A)
    return [(name, buf, tuple(d[x] if isinstance(x, str) else x for x in shape)) for name, buf, shape in SECTIONS]


def sizes(S: int, O: int, G: int, n: int, E: int, P: int, A: int = 0) -> tuple[int, int]:
    """Lengths of (ibuf, fbuf) for E extra link columns, parameter rows of width P ≥
    N_PARAMS and A floats of goal data."""
    total = {"i": HEADER, "f": 0}
    for _, buf, shape in _shapes(S, O, G, n, E, P, A):
        total[buf] += int(np.prod(shape))
    return total["i"], total["f"]


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


@njit(inline="always", **JIT)
def unpack(ibuf, fbuf):
    """The named sections (`ProblemViews`) of the buffers, in `SECTIONS` order.

    Inlined into every caller: it returns views, and numba caches a callee compiled for
    the first caller's reference-counting mode. Compiled for a `KERNEL` caller (no
    reference counting) and loaded from the cache by a counting one, its views were
    released twice — heap corruption."""
    S, O, G, n, E, P, A = ibuf[0], ibuf[1], ibuf[2], ibuf[3], ibuf[4], ibuf[5], ibuf[6]
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
    f += 4 * n
    aux = fbuf[f : f + A]
    return ProblemViews(seg_i, seg_f, out_seg, out_tf, gi, gf, gw, gt, vdata, bounds, aux)


def views(ibuf: np.ndarray, fbuf: np.ndarray) -> ProblemViews:
    """The same views from Python (for filling the buffers), cut by `SECTIONS`."""
    S, O, G, n, E, P, A = (int(x) for x in ibuf[:7])
    start = {"i": HEADER, "f": 0}
    bufs = {"i": ibuf, "f": fbuf}
    out = {}
    for name, buf, shape in _shapes(S, O, G, n, E, P, A):
        size = int(np.prod(shape))
        out[name] = bufs[buf][start[buf] : start[buf] + size].reshape(shape)
        start[buf] += size
    return ProblemViews(**out)
