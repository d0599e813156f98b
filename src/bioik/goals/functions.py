"""Goals with user functions [R 3.8]: LinkFunction and JointFunction.

Every solver that takes residual goals takes them, with no solver named too: the kernels
call the function through a C callback whose address is in the goal's parameter row
(`bioik.goals.callbacks`). A numba `@njit` function runs at compiled speed; any other
Python callable works the same way, slower (the GIL is taken for each call). The kernels
differentiate the function by central differences.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

import numpy as np
from numba import njit

from bioik.errors import GoalError
from bioik.goals.base import N_PARAMS, Goal
from bioik.goals.callbacks import Callback, call_joint, call_link, data_pointer, joint_callback, link_callback
from bioik.goals.kernels import MAX_LINK_ROWS, OUT1, chain_rule
from bioik.goals.registry import ANY_LINKS, PER_VARIABLE
from bioik.kinematics.frames import JIT, matrix_from_frame

LINK_FUNCTION, JOINT_FUNCTION = 24, 25
#: The residual of a function that returned NaN, inf or a negative cost, or raised: far
#: from met; `Problem.accept` names the fault once the search returns.
PENALTY = 1e10


@njit(inline="always", **JIT)
def link_function_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    """r = √function(T) from the callback; ∂r/∂q by the chain rule from its differences
    along the link's translations and rotations."""
    o = gi[g, OUT1]
    m = MAX_LINK_ROWS
    A, B = scratch[0:m], scratch[m : 2 * m]  # A[0], A[1]: the callback's 6 differences (contiguous)
    value = call_link(np.int64(gf[g, 0]), data_pointer(frames[o]), data_pointer(A), np.int64(1 if with_jac else 0))
    if not (value >= 0.0 and value < np.inf):
        r[0] = PENALTY
        return 1
    s = np.sqrt(value)
    r[0] = s
    if with_jac and s > 0.0:
        c = 0.5 / s
        for k in range(3):
            B[0, k] = c * A[1, k]
            A[0, k] *= c
            A[1, k] = 0.0
        for i in range(1, m):
            for k in range(3):
                B[i, k] = 0.0
        chain_rule(J, o, A, B, 1, Jr)
    return 1


@njit(inline="always", **JIT)
def joint_function_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, scratch):
    """r = function(q) − q from the callback; ∂r/∂q = its differences − I."""
    n = q.shape[0]
    call_joint(np.int64(gf[g, 0]), data_pointer(q), np.int64(q.strides[0] // 8), np.int64(n), data_pointer(r),
               np.int64(r.strides[0] // 8), data_pointer(Jr), np.int64(Jr.strides[0] // 8), np.int64(Jr.strides[1] // 8),
               np.int64(1 if with_jac else 0))
    bad = False
    for i in range(n):
        if not (abs(r[i]) < np.inf):
            bad = True
    if bad:
        for i in range(n):
            r[i] = PENALTY
            if with_jac:
                for j in range(n):
                    Jr[i, j] = 0.0
        return n
    for i in range(n):
        r[i] -= q[i]
        if with_jac:
            Jr[i, i] -= 1.0
    return n


def _check_callable(function, goal: str) -> None:
    if not callable(function):
        raise GoalError(f"{goal}: function must be callable; got {type(function).__name__}")


class FunctionGoal:
    """What the two function goals share (a mixin of theirs, not a goal): the callback,
    made when first needed and kept while `function` stays the same."""

    function: Callable

    _callback: Callback | None = None
    _callback_of: object = None

    def callback(self) -> Callback:
        if self._callback is None or self._callback_of is not self.function:
            self._callback, self._callback_of = self._make_callback(), self.function
        return self._callback

    def __getstate__(self) -> dict:
        """Pickled without the callback (a C function pointer; made anew where it is used)."""
        state = dict(self.__dict__)
        state.pop("_callback", None)
        state.pop("_callback_of", None)
        return state

    def params(self, robot) -> np.ndarray:
        p = np.zeros(N_PARAMS)
        p[0] = self.callback().address  # < 2**53 on every platform numba runs on: exact as a float
        return p



@dataclass
class LinkFunctionGoal(FunctionGoal, Goal):
    """A user cost of the pose of `link`: cost = function(T)·w², with T the link's 4×4 pose
    in the base frame and function(T) a finite number ≥ 0. Met when √function(T) ≤
    tolerance. An `@njit` function runs at compiled speed, any other callable through
    Python (the module docstring).

    Args:
        link: the link whose pose the function reads.
        function: T ↦ a finite cost ≥ 0, T the link's 4×4 pose in the base frame.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when √function(T) ≤ tolerance.
    """

    link: str
    function: Callable[[np.ndarray], float]
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = LINK_FUNCTION
    size = 1
    link_count = ANY_LINKS
    kernel = link_function_residual

    def __post_init__(self):
        super().__post_init__()
        _check_callable(self.function, "LinkFunctionGoal")

    @property
    def links(self):
        return (self.link,)

    def _make_callback(self) -> Callback:
        return link_callback(self.function, checked_cost)

    def cost(self, robot, q: np.ndarray, frames_by_link: dict[str, np.ndarray]) -> float:
        """Unweighted cost at q, from the link frame (7 floats) in frames_by_link, checked."""
        return checked_cost(self.function(matrix_from_frame(frames_by_link[self.link])))


def checked_cost(value) -> float:
    """A link function's return value as a float, or the GoalError that names what is wrong."""
    if isinstance(value, float) and 0.0 <= value < math.inf:  # the usual case, without numpy's scalar checks
        return float(value)
    if np.ndim(value) != 0:
        raise GoalError(f"LinkFunctionGoal: function must return one number; got shape {np.shape(value)}")
    try:
        c = float(value)
    except (TypeError, ValueError):
        raise GoalError(f"LinkFunctionGoal: function must return a number; got {value!r}") from None
    if not (np.isfinite(c) and c >= 0.0):
        raise GoalError(f"LinkFunctionGoal: function must return a finite cost >= 0; got {c}")
    return c


@dataclass
class JointFunctionGoal(FunctionGoal, Goal):
    """A user constraint on the joint values [R 3.8]: function(q) returns the values the
    active variables should have; cost = Σ(function(q)_i − q_i)²·w² (the BioIK source's
    formula). The function gets a copy of q. Met when √cost ≤ tolerance. An `@njit`
    function runs at compiled speed, any other callable through Python.

    Args:
        function: q ↦ the values the active variables should have.
        weight: w, the residual's weight (cost ‖r‖²·w²; only ratios between goals matter).
        secondary: steer the search without deciding success (default False).
        tolerance: met when √cost ≤ tolerance.
    """

    function: Callable[[np.ndarray], np.ndarray]
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5
    kind = JOINT_FUNCTION
    size = PER_VARIABLE
    link_count = ANY_LINKS
    kernel = joint_function_residual

    def __post_init__(self):
        super().__post_init__()
        _check_callable(self.function, "JointFunctionGoal")

    def _make_callback(self) -> Callback:
        return joint_callback(self.function, checked_values)

    def cost(self, robot, q: np.ndarray, frames_by_link: dict[str, np.ndarray]) -> float:
        """Unweighted cost at q (frames_by_link is not read), the function's values checked."""
        return float(np.sum((checked_values(self.function(q.copy()), len(q)) - q) ** 2))


def checked_values(value, n: int) -> np.ndarray:
    """A joint function's return value as n floats, or the GoalError that names what is wrong."""
    try:
        target = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise GoalError(f"JointFunctionGoal: function must return {n} numbers; got {value!r}") from None
    if target.shape != (n,):
        raise GoalError(f"JointFunctionGoal: function must return {n} values; got shape {target.shape}")
    if not np.all(np.isfinite(target)):
        raise GoalError("JointFunctionGoal: function returned NaN or inf")
    return target
