"""Compiled evaluation of a whole goal list: residuals, their Jacobians, and costs.

Goal table layout (built by `bioik.problem.problem`, packed by `bioik.problem.layout`):
  gi (G, 7 + E) int64: kind, first link output, second link output, secondary flag,
                   first residual row, residual size, start of the goal's data block in
                   aux (−1: none), then the outputs of a goal's third, fourth, … links
                   (−1 where a goal reads fewer links)
  gf (G, P ≥ N_PARAMS): parameter rows; gw (G,): weights; aux: goal data blocks.
A one-link goal's residual kernel gives r and its derivatives A = ∂r/∂p, B = ∂r/∂ω with
respect to the link's position and rotation vector; the chain rule with the link's
geometric Jacobian gives ∂r/∂q = A·J_v + B·J_ω. Joint goals give ∂r/∂q directly; goals
over any number of links (RCM, Balance) find their links and apply the chain rule
themselves, with the helpers here.

The dispatch on the kind is generated from `bioik.goals.registry` when it is first
compiled (`link_residual`, `kind_residual`), so that no file but a goal's own lists it: a
chain of inlined closures, one per registered kind, each testing its kind and calling its
kernel or the next — the if-chain one would write by hand, fixed at compile time. numba
caches the kernels it is inlined into (it is no `exec` source); a new goal file drops that
cache like any edit under goals/ (`bioik._kernel_cache`).
"""

from __future__ import annotations

from functools import cache

from numba import njit
from numba.extending import overload

from bioik.goals import registry
from bioik.goals.registry import ANY_LINKS, PYTHON
from bioik.kinematics.frames import JIT, NO, YES

#: Columns of the goal table gi: kind, first and second link output, secondary flag, first
#: residual row, residual size, start of the goal's data block in aux (−1: none); then the
#: outputs of a goal's third, fourth, … links.
KIND, OUT1, OUT2, SECONDARY, ROW, SIZE, AUX = range(7)
GI_COLUMNS = 7
#: Rows of the scratch matrices a link goal may use.
MAX_LINK_ROWS = 8


@njit(inline="always", **JIT)
def goal_output(gi, g, k):
    """Output (frame row) of goal g's k-th link, −1 past its last link."""
    return gi[g, OUT1 + k] if k < 2 else gi[g, GI_COLUMNS + k - 2]


@njit(inline="always", **JIT)
def goal_link_count(gi, g):
    """Number of links goal g reads."""
    k = 0
    while k < 2 + gi.shape[1] - GI_COLUMNS and goal_output(gi, g, k) >= 0:
        k += 1
    return k


@njit(inline="always", **JIT)
def chain_rule(J, o, A, B, d, Jr):
    """Jr[:d] += A·J_v + B·J_ω for output o's Jacobian rows in J."""
    n = Jr.shape[1]
    base = 6 * o
    for i in range(d):
        for k in range(3):
            a, b = A[i, k], B[i, k]
            if a != 0.0:
                for v in range(n):
                    Jr[i, v] += a * J[base + k, v]
            if b != 0.0:
                for v in range(n):
                    Jr[i, v] += b * J[base + 3 + k, v]


def link_residual(kind, p, f, r, A, B):
    """Residual of a one-link goal (`link_count` 1) of this kind into r, with A = ∂r/∂p and
    B = ∂r/∂ω (zeroed by the caller); 0 rows for any other kind. Compiled as the if-chain
    generated from the registry (`_dispatch`); this body runs only without numba."""
    return _dispatch()[0](kind, p, f, r, A, B)


def kind_residual(kind, gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    """`goal_residual` of a compiled goal kind, its Jr rows zeroed: the if-chain generated
    from the registry over the joint and any-link kinds, then the one-link path."""
    return _dispatch()[1](kind, gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch)


@njit(inline="always", **JIT)
def _one_link_goal(kind, gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    """A one-link goal: its kernel on the link frame, then the chain rule."""
    m = MAX_LINK_ROWS
    A, B = scratch[0:m], scratch[m : 2 * m]
    A[:, :] = 0.0
    B[:, :] = 0.0
    o = gi[g, OUT1]
    d = link_residual(kind, gf[g], frames[o], r, A, B)
    if with_jac:
        chain_rule(J, o, A, B, d, Jr)
    return d


@njit(inline="always", **JIT)
def _no_link_kind(kind, p, f, r, A, B):
    return 0


def _link_step(code, kernel, rest):
    @njit(inline="always")
    def step(kind, p, f, r, A, B):
        if kind == code:
            return kernel(p, f, r, A, B)
        return rest(kind, p, f, r, A, B)

    return step


def _joint_step(code, kernel, rest):
    @njit(inline="always")
    def step(kind, gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
        if kind == code:
            return kernel(gf[g], q, vdata, r, Jr)
        return rest(kind, gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch)

    return step


def _links_step(code, kernel, rest):
    @njit(inline="always")
    def step(kind, gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
        if kind == code:
            return kernel(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch)
        return rest(kind, gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch)

    return step


@cache
def _dispatch():
    """(link chain, kind chain) from the registry, built once, when first compiled: each
    step tests one kind and calls its kernel or the next step. The registry then refuses
    goals registered later (`registry.residual_size`)."""
    entries = registry.dispatched()
    link = _no_link_kind
    for e in reversed([e for e in entries if e.link_count == 1]):
        link = _link_step(e.kind, e.kernel, link)
    goal = _one_link_goal
    for e in reversed([e for e in entries if e.link_count != 1]):
        goal = {0: _joint_step, ANY_LINKS: _links_step}[e.link_count](e.kind, e.kernel, goal)
    return link, goal


@overload(link_residual, jit_options={"nogil": True, "error_model": "numpy"})
def _link_residual_overload(kind, p, f, r, A, B):
    chain = _dispatch()[0]
    return lambda kind, p, f, r, A, B: chain(kind, p, f, r, A, B)


@overload(kind_residual, inline="always")
def _kind_residual_overload(kind, gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    chain = _dispatch()[1]
    return lambda kind, gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch: chain(
        kind, gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch)


@njit(**JIT)
def goal_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    """Residual of goal g into r[0:size] (unweighted) and, if with_jac, ∂r/∂q into Jr.

    frames (O, 7) and J (6·O, n) are the link frames and their Jacobians; vdata and aux
    the problem's joint data and goal data blocks; scratch is (4·MAX_LINK_ROWS, 3). Returns the residual size (0: a Python goal).
    """
    kind = gi[g, KIND]
    size = gi[g, SIZE]
    if kind == PYTHON:
        return 0
    if with_jac:
        Jr[:size, :] = 0.0
    return kind_residual(kind, gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch)


#: The `kinds` argument of the kernels that can leave out every goal kind that is not
#: pose-type: ALL_KINDS keeps them (a run-time flag); POSE_ONLY (None) leaves them out, for
#: kernels that only ever see pose-type goals (kdl, jac, the one-call pose queries), which
#: then compile over a minute faster, cold (numba drops the branches `kinds is None` rules out).
ALL_KINDS, POSE_ONLY = YES, None


@njit(inline="always", **JIT)
def other_residual(kinds, gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    """`goal_residual`, or nothing (0 rows) when `kinds` is POSE_ONLY: the callers take their
    own path for pose-type goals, so with POSE_ONLY this is never reached."""
    if kinds is None:
        return 0
    return goal_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch)
