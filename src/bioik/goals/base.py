"""What every goal is: a weighted residual r(q) with cost ‖r‖²·w², and an acceptance test.

Built-in goals are *data*: a kind code, the links they read and a parameter row,
evaluated by compiled kernels (`bioik.goals.kernels`). Each goal class declares its kind,
kernel and residual size beside its code; defining the class registers them
(`bioik.goals.registry`, which also says how to add a goal). Goals with user callables
(`LinkFunctionGoal`, `JointFunctionGoal`) are evaluated in Python instead.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from numba import njit

from bioik.errors import GoalError, GoalTypeError
from bioik.goals.registry import PYTHON, register
from bioik.kinematics.frames import JIT

if TYPE_CHECKING:
    from bioik.kinematics.robot import Robot

#: Width of a goal's parameter row (a goal that needs more, like Balance, returns a longer
#: row and the problem's rows widen to fit it; see `bioik.problem.layout`).
N_PARAMS = 16

#: Largest goal weight: costs are ‖r‖²·w², and a weight past this overflows them or makes
#: every other goal's cost vanish beside it.
MAX_WEIGHT = 1e6

#: The kind codes that code outside their goal's file compares against: the solvers' pose
#: fast paths and acceptance test (`bioik.goals.pose`), RelaxedIK's joint-limit term
#: (`bioik.goals.joints`), the acceptance test of the scan goal, met inside its walls
#: (`bioik.goals.scan`), and PYTHON (`bioik.goals.registry`). Every other goal declares
#: its code in its own file only; the registry refuses a code in use.
POSITION, ORIENTATION, POSE = 1, 2, 3
SCAN = 17
AVOID_JOINT_LIMITS = 22


@dataclass
class Goal:
    """Base of all goals. `weight` multiplies the residual (cost = ‖r‖²·w²);
    `secondary` goals steer the search but are not part of the success test;
    `tolerance`: the goal is met when ‖r‖ ≤ tolerance (pose-type goals have their own test).
    """

    #: What the compiled layer needs, declared by each goal class (a class that sets `kind`
    #: is registered on definition; see `bioik.goals.registry`): its kind code, residual
    #: kernel, residual rows (or PER_VARIABLE) and the links its kernel reads (0, 1 or ANY_LINKS).
    kind: ClassVar[int] = PYTHON
    kernel: ClassVar[Callable | None] = None
    size: ClassVar[int] = 3
    link_count: ClassVar[int] = 1
    #: Links whose frames the goal reads, in the order its kernel expects (goals override
    #: this with a property, or with a field as `RCMGoal` does).
    links: ClassVar[tuple[str, ...]] = ()

    #: The field a batch varies (`bioik.GoalBatch`): the goal's target, as the pose of a
    #: `PoseGoal`; None for goals without one.
    target_field: ClassVar[str | None] = None

    #: Whether `refresh` watches the fields (pose-type goals, built in hot loops, check their
    #: own in `params`).
    watch_fields: ClassVar[bool] = True

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        if "kind" in cls.__dict__:  # a subclass that keeps its parent's kind is not a new kind
            register(cls)
        # after validation, remember the field values `refresh` compares against
        if cls.watch_fields:
            validate = cls.__post_init__

            def __post_init__(self, _validate=validate) -> None:
                _validate(self)
                self._seen = tuple(getattr(self, name) for name in _field_names(type(self)))

            cls.__post_init__ = __post_init__

    def refresh(self) -> None:
        """Validate and convert again if a field was reassigned after the goal was built:
        the kernels read the converted values, never an unchecked one."""
        seen = self.__dict__.get("_seen")
        if seen is not None and any(getattr(self, n) is not v for n, v in zip(_field_names(type(self)), seen)):
            self.__post_init__()

    def __post_init__(self) -> None:
        cls = type(self).__name__
        raw = getattr(self, "weight", 1.0)
        try:
            w = float(raw)
        except OverflowError:  # an int past the float range
            w = np.inf
        except (TypeError, ValueError):
            raise GoalTypeError(f"{cls}: weight must be a number in [0, {MAX_WEIGHT:g}]; got {raw!r}") from None
        if not (np.isfinite(w) and 0.0 <= w <= MAX_WEIGHT):
            raise GoalError(f"{cls}: weight must be a number in [0, {MAX_WEIGHT:g}] (the cost is ‖r‖²·w²: larger "
                            f"weights overflow it or drown every other goal); got {raw!r}")
        if hasattr(self, "weight"):
            self.weight = w  # the float the problem computes with ("1" or an int would fail there)
        for name in ("tolerance", "position_tolerance", "rotation_tolerance"):
            tol = getattr(self, name, None)
            if tol is None:
                continue
            try:
                t = float(tol)
            except OverflowError:
                t = np.inf
            except (TypeError, ValueError):
                raise GoalTypeError(f"{cls}: {name} must be a finite number >= 0 or None; got {tol!r}") from None
            if not (np.isfinite(t) and t >= 0):
                raise GoalError(f"{cls}: {name} must be a finite number >= 0 or None; got {tol!r}")
            setattr(self, name, t)
        secondary = getattr(self, "secondary", False)
        if not isinstance(secondary, (bool, np.bool_)):
            raise GoalTypeError(f"{cls}: secondary must be True or False; got {secondary!r}")
        for name in ("link", "variable"):  # the names that key the prepared problem
            value = getattr(self, name, "")
            if not isinstance(value, str):
                raise GoalTypeError(f"{cls}: {name} must be a {name} name (a str); got {value!r}")

    def links_for(self, robot: Robot) -> tuple[str, ...]:
        """Links the goal reads on `robot` (the same as `links` unless they depend on the
        robot, as for `BalanceGoal`)."""
        return self.links

    def params(self, robot: Robot) -> np.ndarray:
        """The goal's parameter row (N_PARAMS floats, or more) for the compiled kernels."""
        return np.zeros(N_PARAMS)

    def with_target(self, target) -> Goal:
        """A copy with `target` in `target_field`, checked as the constructor checks it."""
        if self.target_field is None:
            raise GoalTypeError(f"{type(self).__name__} has no target a batch can vary; give the batch as a list of goal lists")
        return replace(self, **{self.target_field: target})

    def target_rows(self, robot: Robot, targets) -> np.ndarray:
        """The parameter rows (N, N_PARAMS or more) of this goal with each of N `targets` in
        turn: the rows of a batch, computed without a solve per target."""
        rows = []
        for i, target in enumerate(targets):
            try:
                rows.append(self.with_target(target).params(robot))
            except GoalError as e:
                raise type(e)(f"targets[{i}]: {e}") from None
        return np.array(rows)

    def layout_key(self) -> Hashable:
        """What fixes the problem layout beyond the goal's class and links (the scene a
        collision goal reads, with its obstacle set); None for most goals."""
        return None

    def data(self, robot: Robot) -> np.ndarray | None:
        """The goal's data block, written into the problem's `aux` section once, when the
        problem is built (bulky data the parameter row, rewritten every solve, cannot
        carry: robot spheres, a scene's distance grids); None for most goals."""
        return None

    def data_version(self) -> Hashable:
        """Changes when the data block must be rewritten in place (obstacles moved)."""
        return None

    def write_data(self, robot: Robot, block: np.ndarray) -> None:
        """Rewrite the data block in place for the current `data_version` (same layout)."""
        block[:] = self.data(robot)

    @property
    def is_secondary(self) -> bool:
        return bool(getattr(self, "secondary", False))


def _field_names(cls: type) -> tuple[str, ...]:
    """The dataclass field names of a goal class (cached on the class)."""
    names = cls.__dict__.get("_field_name_cache")
    if names is None:
        names = tuple(f.name for f in fields(cls))
        cls._field_name_cache = names
    return names


def read_only(a: np.ndarray) -> np.ndarray:
    """a, no longer writeable: a goal's arrays are validated once, so editing them in place
    must be an error rather than a change the goal never sees."""
    a.setflags(write=False)  # a quarter of the time of `a.flags.writeable = False`
    return a


def finite_vector(x, n: int, what: str, goal: str) -> np.ndarray:
    """A read-only copy of x as a float vector of length n, or a GoalError naming the goal
    and field."""
    try:
        v = np.array(x, dtype=float).reshape(-1)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int past the float range
        raise GoalError(f"{goal}: {what} must be {n} numbers; got {x!r}") from None
    if v.shape != (n,):
        raise GoalError(f"{goal}: {what} must be {n} numbers; got shape {np.shape(x)}")
    if not np.all(np.isfinite(v)):
        raise GoalError(f"{goal}: {what} contains NaN or inf: {v.tolist()}")
    return read_only(v)


def finite_number(x, what: str, goal: str, minimum: float = -np.inf) -> float:
    """x as a finite float ≥ minimum, or a GoalError naming the goal and field."""
    try:
        v = float(x)
    except OverflowError:  # an int past the float range
        v = np.inf
    except (TypeError, ValueError):
        raise GoalError(f"{goal}: {what} must be a number; got {x!r}") from None
    if not np.isfinite(v):
        raise GoalError(f"{goal}: {what} must be finite; got {v}")
    if v < minimum:
        raise GoalError(f"{goal}: {what} must be >= {minimum:g}; got {v}")
    return v


def unit_vector(x, what: str, goal: str) -> np.ndarray:
    v = finite_vector(x, 3, what, goal)
    n = np.linalg.norm(v)
    if n < 1e-12:
        raise GoalError(f"{goal}: {what} must be a non-zero 3-vector")
    return read_only(v / n)


@njit(inline="always", **JIT)
def add_skew(B, row, s, vx, vy, vz):
    """B[row:row+3] += s·[v]×, the matrix of w ↦ s·(v × w).

    For a link-fixed vector v = R·a, ∂v/∂ω = −[v]× (dv = dω × v): kernels use s = −1
    times the factor that multiplies v in their residual.
    """
    B[row + 0, 1] -= s * vz
    B[row + 0, 2] += s * vy
    B[row + 1, 0] += s * vz
    B[row + 1, 2] -= s * vx
    B[row + 2, 0] -= s * vy
    B[row + 2, 1] += s * vx
