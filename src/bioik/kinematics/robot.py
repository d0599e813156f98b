"""`Robot`: a robot model with an active joint group, and its forward kinematics.

Configurations `q` are vectors of the group's variables, in `robot.variable_names`
order; joints outside the group stay at `robot.frozen` values.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from functools import cached_property
from numbers import Integral
from typing import Any

import numpy as np

from bioik.kinematics.extrapolate import extrapolate_frames
from bioik.kinematics.fk import fk_batch, fk_link
from bioik.kinematics.jacobian import jacobian
from bioik.kinematics.program import KinematicProgram, build_program
from bioik.model.fingerprint import feed, model_fingerprint
from bioik.model.group import Group, GroupSpec, resolve_group
from bioik.model.names import UnknownNameError, suggest
from bioik.model.robot_model import PRISMATIC, REVOLUTE, RobotModel
from bioik.model.srdf import SRDFError

#: Sampling range used for variables without finite limits (continuous: ±π; floating/planar
#: translations: ±1 m).
UNBOUNDED_SAMPLE = {REVOLUTE: np.pi, PRISMATIC: 1.0}


class Robot:
    """A robot with an active group: names, limits, FK, Jacobians and sampling.

    Made by `bioik.load_robot`, which most code should call instead.

    Args:
        model: the parsed robot model (links, joints, variables).
        group: the active joints: a group name, a list of joint names or `[(base, tip), …]`
            chains (None: `default_group`, else every joint).
        groups: named groups, as in the bundled robots' catalogue.
        default_group: the group used when `group` is None.
        frozen: values of the joints outside the group, by variable name or as a full
            vector (default: 0 clipped into the limits).
        source: where the model came from (a name or path), for messages.
        srdf: the SRDF loaded with the robot; its disabled collision pairs join the
            allowed-collision matrix.
        semantics: that SRDF resolved for `model` (`bioik.model.srdf.semantics`): its groups
            are in `groups`; with no group named, its default group (every joint but the
            passive ones, ending in every group's tips) is active; its group states are
            `named_configuration`s.
    """

    def __init__(
        self,
        model: RobotModel,
        group: GroupSpec = None,
        *,
        groups: Mapping[str, Any] | None = None,
        default_group: str | None = None,
        frozen: Mapping[str, float] | np.ndarray | None = None,
        source: str | None = None,
        srdf: Any = None,
        semantics: Any = None,
    ):
        self.model = model
        #: The `bioik.model.srdf.SRDF` loaded with the robot (its disabled collision pairs
        #: join the allowed-collision matrix), or None.
        self.srdf = srdf
        self.semantics = semantics
        self.groups: dict[str, Any] = dict(groups or {})
        self.default_group = default_group
        self.source = source
        if semantics is not None and isinstance(group, str) and group in semantics.unusable:
            raise SRDFError(f"group {group!r} of robot {model.name!r} cannot be used: {semantics.unusable[group]}")
        if group is None and default_group is None and semantics is not None and semantics.default:
            g = resolve_group(model, semantics.default)
            self.group = Group("all", g.variables, g.tips)
        else:
            self.group = resolve_group(model, group, self.groups, default_group)
        full = np.array([np.clip(0.0, v.lower, v.upper) for v in model.variables])
        if isinstance(frozen, Mapping):
            full = _frozen(model, full, frozen)
        elif frozen is not None:
            full = _frozen(model, full, dict(zip(model.variable_names, _vector(frozen, len(model.variables), "frozen configuration"))))
        self.frozen = full
        vs = [model.variables[i] for i in self.group.variables]
        self.variable_names: list[str] = [v.name for v in vs]
        self.lower = np.array([v.lower for v in vs])
        self.upper = np.array([v.upper for v in vs])
        self.velocity = np.array([v.velocity for v in vs])
        self.kinds = np.array([v.kind for v in vs], dtype=np.int64)
        half = np.array([UNBOUNDED_SAMPLE[v.kind] for v in vs])
        finite = np.isfinite(self.lower) & np.isfinite(self.upper)
        #: Finite box used for random configurations (the limits where they exist).
        self.sample_lower = np.where(finite, self.lower, -half)
        self.sample_upper = np.where(finite, self.upper, half)
        #: 1 for revolute variables with more than one turn of range (continuous joints
        #: included): their angles are ambiguous modulo 2π.
        self.multiturn = ((self.kinds == REVOLUTE) & ~(self.upper - self.lower <= 2 * np.pi)).astype(np.int64)
        self._center = 0.5 * (self.sample_lower + self.sample_upper)
        self.link_names: list[str] = model.link_names
        self.tips: list[str] = list(self.group.tips)
        active = set(self.group.variables)
        moving: set[str] = set()
        for j in model.joints:  # parents before children
            if model.links[j.parent].name in moving or any(m.variable in active for m in j.motions):
                moving.add(model.links[j.child].name)
        #: The links some active variable moves; the others keep one pose in every solve
        #: (the base, links behind frozen joints), so no search can change what they touch.
        self.moving_links: frozenset[str] = frozenset(moving)
        self._link_pos = {name: i for i, name in enumerate(self.link_names)}
        self._segments = max(self.program.n_segments, 1)
        # the arrays the compiled kernels were given are read-only: editing a limit in place
        # would change `clip` but not the prepared solvers
        for a in (self.frozen, self.lower, self.upper, self.velocity, self.kinds, self.sample_lower, self.sample_upper,
                  self.multiturn, self._center):
            a.setflags(write=False)

    # -- names and sizes -----------------------------------------------------------
    @property
    def name(self) -> str:
        return self.model.name

    @property
    def dof(self) -> int:
        """Number of active variables."""
        return len(self.variable_names)

    @cached_property
    def program(self) -> KinematicProgram:
        """FK program over all links (the one `fk`, `link_pose`, `jacobian` use)."""
        return self.program_for(self.link_names)

    @cached_property
    def fingerprint(self) -> str:
        """Hex SHA-256 of what this robot solves over: the model's content (see
        `bioik.model.fingerprint`), the active variables, the tips and the frozen values.
        Equal for the same URDF loaded twice; names, paths and group labels do not count."""
        h = hashlib.sha256(b"bioik-robot-1")
        for part in (model_fingerprint(self.model), self.group.variables, self.group.tips, self.frozen):
            feed(h, part)
        return h.hexdigest()

    def program_for(self, links: Sequence[str]) -> KinematicProgram:
        """A compact FK program for just `links` (what solvers evaluate).

        Args:
            links: the link names the program must compute.

        Returns:
            The `KinematicProgram` over those links and the joints that move them.
        """
        idx = [self.model.link_index(l) for l in links]
        return build_program(self.model, list(self.group.variables), self.frozen, idx)

    def with_group(self, group: GroupSpec) -> Robot:
        """The same robot with another active group (frozen values kept).

        Args:
            group: a group name, a list of joint names or `[(base, tip), …]` chains.

        Returns:
            A new `Robot`.
        """
        return Robot(self.model, group, groups=self.groups, default_group=self.default_group, frozen=self.frozen, source=self.source,
                     srdf=self.srdf, semantics=self.semantics)

    def with_frozen(self, values: Mapping[str, float]) -> Robot:
        """The same group with other values for the joints outside it.

        Args:
            values: variable name → value, for variables outside the group.

        Returns:
            A new `Robot`.
        """
        if not isinstance(values, Mapping):
            raise TypeError(f"with_frozen takes a dict of joint values by variable name; got {type(values).__name__} {values!r}")
        frozen = _frozen(self.model, self.frozen, values)
        return Robot(self.model, self.group_spec, groups=self.groups, default_group=self.default_group, frozen=frozen, source=self.source,
                     srdf=self.srdf, semantics=self.semantics)

    @property
    def group_spec(self) -> dict:
        """This group as a spec that `with_group` accepts."""
        return {"joints": list(dict.fromkeys(self.model.variables[v].joint for v in self.group.variables)), "tips": self.tips}

    def link_index(self, link: str) -> int:
        """Position of `link` in `link_names` (error lists the closest names).

        Args:
            link: a link name.

        Returns:
            Its index.
        """
        i = self._link_pos.get(link) if isinstance(link, str) else None  # not a name (a list …): the model names it
        return self.model.link_index(link) if i is None else i

    # -- configurations ------------------------------------------------------------
    def check(self, q: Any, what: str = "configuration") -> np.ndarray:
        """q as a float vector of length dof; ValueError for a wrong length, NaN or inf.

        Args:
            q: the values to check.
            what: what q is, for the error message.

        Returns:
            q as a float array (dof,).
        """
        return _vector(q, self.dof, what, self.variable_names)

    def within_limits(self, q: np.ndarray, tol: float = 0.0) -> bool:
        """Whether q lies within the joint limits.

        Args:
            q: a configuration (dof,) of the active variables.
            tol: how far outside a limit still counts as within.

        Returns:
            True when every variable is within [lower − tol, upper + tol].
        """
        if tol == 0.0:  # the common case, in checking loops: no temporary arrays
            return bool((q >= self.lower).all() and (q <= self.upper).all())
        return bool(np.all(q >= self.lower - tol) and np.all(q <= self.upper + tol))

    def clip(self, q: np.ndarray) -> np.ndarray:
        """q clipped into the joint limits.

        Args:
            q: a configuration (dof,) of the active variables.

        Returns:
            A new array (dof,).
        """
        return np.clip(q, self.lower, self.upper)

    def random_configuration(self, rng: np.random.Generator | int | None = None, n: int | None = None) -> np.ndarray:
        """Uniform configurations within limits (within `sample_lower/upper` if unbounded).

        Args:
            rng: a numpy Generator, a seed or None.
            n: how many (None: one).

        Returns:
            One configuration (dof,), or an (n, dof) batch.
        """
        if n is not None and (isinstance(n, bool) or not isinstance(n, Integral) or n < 0):
            raise ValueError(f"n must be None (one configuration) or a whole number >= 0; got {n!r}")
        try:
            rng = np.random.default_rng(rng)
        except (TypeError, ValueError):
            raise ValueError(f"rng must be a numpy Generator, a seed (a whole number >= 0) or None; got {rng!r}") from None
        size = (self.dof,) if n is None else (n, self.dof)
        return rng.uniform(self.sample_lower, self.sample_upper, size=size)

    def center(self) -> np.ndarray:
        """Mid-range configuration (0 for unbounded variables).

        Returns:
            An array (dof,).
        """
        return self._center.copy()

    @property
    def named_configurations(self) -> list[str]:
        """Names of the SRDF's group states (`named_configuration`); empty without an SRDF."""
        return [] if self.semantics is None else list(self.semantics.states)

    def named_configuration(self, name: str) -> np.ndarray:
        """An SRDF group state as a configuration of this robot's group.

        The state's values for the group's variables, and the frozen values (or, for the
        group's other variables, the default of the unmoved robot: 0 clipped into the
        limits) for the rest: usable as a seed or a `frozen` configuration.

        Args:
            name: a `<group_state>` name of the SRDF loaded with the robot.

        Returns:
            An array (dof,).
        """
        if self.semantics is not None and name in self.semantics.unusable and name not in self.semantics.states:
            raise SRDFError(f"named configuration {name!r} of robot {self.name!r} cannot be used: {self.semantics.unusable[name]}")
        if self.semantics is None or name not in self.semantics.states:
            known = self.named_configurations
            raise UnknownNameError(f"unknown named configuration {name!r} of robot {self.name!r}; "
                                   f"{suggest(name, known) if known else 'it has none (they come from an SRDF: load_robot(..., srdf=...))'}")
        full = self.frozen.copy()
        for variable, value in self.semantics.states[name].items():
            full[self.model.variable_index(variable)] = value
        return full[list(self.group.variables)]

    def full_configuration(self, q: Any) -> dict[str, float]:
        """All model variables by name: q for the group, frozen values for the rest.

        Args:
            q: a configuration (dof,) of the active variables.

        Returns:
            Variable name → value, for every variable of the model.
        """
        q = self.check(q)
        full = self.frozen.copy()
        full[list(self.group.variables)] = q
        return dict(zip(self.model.variable_names, full.tolist()))

    # -- kinematics ----------------------------------------------------------------
    def link_pose(self, q: Any, link: str) -> np.ndarray:
        """4×4 pose of `link` in the robot base frame.

        Args:
            q: a configuration (dof,) of the active variables.
            link: a link name.

        Returns:
            The 4×4 homogeneous transform.
        """
        q = self.check(q)
        out = np.empty((4, 4))
        p = self.program
        # scratch per call, not per robot: calls from several threads run at once
        fk_link(p.seg_i, p.seg_f, p.out_seg, p.out_tf, q, self.link_index(link), np.empty((self._segments, 7)),
                np.empty(self._segments, dtype=np.int64), out)
        return out

    def fk(self, Q: Any, links: Sequence[str] | None = None) -> np.ndarray:
        """Forward kinematics: poses of `links` in the base frame.

        Args:
            Q: a batch of configurations (N, dof), or one (dof,).
            links: link names (None: every link, in `link_names` order).

        Returns:
            Poses (N, L, 4, 4) for a batch, (L, 4, 4) for one configuration.
        """
        Q2, single = _batch(Q, self.dof)
        if links is None:
            idx = np.arange(len(self.link_names))
        else:
            idx = np.array([self.link_index(l) for l in _names(links)], dtype=np.int64)
        out = np.empty((len(Q2), len(idx), 4, 4))
        p = self.program
        fk_batch(p.seg_i, p.seg_f, p.out_seg, p.out_tf, np.ascontiguousarray(Q2), idx, np.empty((self._segments, 7)), out)
        return out[0] if single else out

    def jacobian(self, q: Any, link: str, point: Any = None) -> np.ndarray:
        """6×dof geometric Jacobian of `link` (or of `point`, given in the link frame).

        Args:
            q: a configuration (dof,) of the active variables.
            link: a link name.
            point: a point (3,) in the link frame (None: the link's origin).

        Returns:
            The 6×dof Jacobian. Rows: linear velocity of the point, then angular velocity, in
            the base frame.
        """
        q = self.check(q)
        pt = np.zeros(3) if point is None else _vector(point, 3, "point")
        p = self.program
        frames = np.empty((len(p.out_seg), 7))
        J = np.empty((6, self.dof))
        jacobian(p.seg_i, p.seg_f, p.out_seg, p.out_tf, q, self.link_index(link), pt, np.empty((self._segments, 7)), frames, J)
        return J

    def extrapolate(self, q0: Any, Q: Any, links: Sequence[str]) -> np.ndarray:
        """First-order prediction of link poses from FK and Jacobians at q0 (BioIK 2's
        extrapolated FK).

        Args:
            q0: the configuration (dof,) the prediction is made at.
            Q: configurations (N, dof) to predict the poses at.
            links: the link names.

        Returns:
            Predicted poses (N, L, 4, 4).
        """
        from bioik.kinematics.frames import matrix_from_frame

        q0 = self.check(q0)
        Q, _ = _batch(Q, self.dof)
        p = self.program_for(_names(links))
        frames0 = np.empty((len(links), 7))
        seg = np.empty((max(p.n_segments, 1), 7))
        J = np.empty((6 * len(links), self.dof))
        Jo = np.empty((6, self.dof))
        for o in range(len(links)):
            jacobian(p.seg_i, p.seg_f, p.out_seg, p.out_tf, q0, o, np.zeros(3), seg, frames0, Jo)
            J[6 * o : 6 * o + 6] = Jo
        out = np.empty((len(Q), len(links), 7))
        extrapolate_frames(frames0, J, np.ascontiguousarray(Q - q0), out)
        return np.array([[matrix_from_frame(f) for f in row] for row in out])

    def __repr__(self) -> str:
        return f"Robot({self.name!r}, group={self.group.name!r}, dof={self.dof}, tips={self.tips})"


def _vector(x: Any, n: int, what: str, names: Sequence[str] | None = None) -> np.ndarray:
    try:
        v = np.asarray(x, dtype=float)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int past the float range
        raise ValueError(f"{what} must be {n} numbers; got {x!r}") from None
    if v.shape != (n,):
        hint = f" ({', '.join(names)})" if names is not None and n <= 12 else ""
        raise ValueError(f"{what} must have {n} values{hint}; got shape {v.shape}")
    if not math.isfinite(v.sum()) and not np.all(np.isfinite(v)):
        bad = [names[i] if names is not None else str(i) for i in np.flatnonzero(~np.isfinite(v))]
        raise ValueError(f"{what} has NaN or inf at {', '.join(bad)}")
    return v


def _names(links: Any) -> Sequence[str]:
    """`links`, which must be a list (or tuple) of link names: a single name or anything else is a TypeError."""
    if isinstance(links, str) or not isinstance(links, Sequence):
        raise TypeError(f"links must be a list of link names; got {links!r}")
    return links


def _batch(Q: Any, dof: int) -> tuple[np.ndarray, bool]:
    """(configurations Q as finite floats (N, dof), whether Q was one configuration (dof,));
    ValueError for anything else."""
    try:
        v = np.asarray(Q, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"configurations must be numbers of shape (N, {dof}) or ({dof},); got {Q!r}") from None
    Q2 = np.atleast_2d(v)
    if Q2.ndim != 2 or Q2.shape[1] != dof:
        raise ValueError(f"configurations must have shape (N, {dof}) or ({dof},); got {v.shape}")
    if not np.all(np.isfinite(Q2)):
        raise ValueError("configurations contain NaN or inf")
    return Q2, v.ndim == 1


def _frozen(model: RobotModel, full: np.ndarray, values: Mapping[str, Any]) -> np.ndarray:
    """A copy of the model configuration `full` with `values` set by variable name.

    Each value must be a finite number within its variable's limits: a frozen joint is never
    moved by a solver, so a NaN or an out-of-range value would silently poison every answer.
    """
    full = full.copy()
    for name, value in values.items():
        i = model.variable_index(name)
        v = model.variables[i]
        try:
            x = float(value)
        except OverflowError:  # an int past the float range
            x = math.inf
        except (TypeError, ValueError):
            raise ValueError(f"frozen value of joint {name!r} is {value!r}; expected a number") from None
        if not v.lower <= x <= v.upper:  # NaN fails too
            raise ValueError(f"frozen value of joint {name!r} is {x}; expected a finite number within its limits [{v.lower}, {v.upper}]")
        if not math.isfinite(x):
            raise ValueError(f"frozen value of joint {name!r} is {x}; expected a finite number")
        full[i] = x
    return full
