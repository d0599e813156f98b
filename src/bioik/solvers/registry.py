"""The solver families by name, each with its parameters and its compiled search."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from bioik.problem import Problem
from bioik.goals.base import ORIENTATION, POSE, POSITION, PYTHON
from bioik.solvers import bio1, bio2, gd, jac, kdl, lm, lm_pose, nullspace, optlib, relaxed, trac
from bioik.solvers.bio2_lbfgs import bio2_lbfgs_search
from bioik.solvers.python_goals import python_goal_search
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RANDOM_START, RESTARTS, SEED


@dataclass(frozen=True)
class Family:
    """A named solver: default parameters, what it accepts, and its search.

    search(problem, q, deadline, budget, seed, mode, settings, random_start) →
    (found, iterations, restarts) searches from q (or from a random configuration if
    random_start), leaving the best configuration in q.
    """

    name: str
    defaults: Mapping[str, float]
    search: Callable[..., tuple[bool, int, int]]
    description: str = ""
    #: Goal kinds the search understands (None: all compiled kinds).
    kinds: frozenset[int] | None = None
    #: Secondary goals of every compiled kind are accepted even if `kinds` is limited.
    any_secondary: bool = False
    #: Values appended to the settings that are not user parameters (e.g. a variant code).
    fixed: tuple[float, ...] = ()
    #: The search as a whole-query kernel for one primary pose-type goal
    #: (`Problem.single_pose`; protocol in `bioik.solvers.pose_query`); None: no such path.
    single_pose: Callable[..., int] | None = None
    #: Arguments `single_pose` takes after the protocol's five (e.g. bio2's normal deviates).
    single_pose_extra: tuple = ()

    def settings(self, params: Mapping[str, Any]) -> np.ndarray:
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ValueError(f"unknown parameter(s) {', '.join(unknown)} for solver {self.name!r}; known: {', '.join(self.defaults) or 'none'}")
        values = {**self.defaults, **params}
        out = np.array([float(values[k]) for k in self.defaults] + list(self.fixed))
        if not np.all(np.isfinite(out)):
            raise ValueError(f"parameters of solver {self.name!r} must be finite numbers; got {params}")
        return out

    def check(self, problem: Problem) -> None:
        """Refuse goal types this solver cannot handle (a clear error, not a silent failure)."""
        if self.kinds is None:
            return
        bad = sorted({type(g).__name__ for g in problem.goals
                      if g.kind not in self.kinds and g.kind != PYTHON and not (self.any_secondary and g.is_secondary)})
        if bad:
            also = " (and secondary goals of any type)" if self.any_secondary else ""
            raise ValueError(f"solver {self.name!r} handles only position, orientation and pose goals{also}; got {', '.join(bad)}")

    def search_for(self, problem: Problem) -> Callable[..., tuple[bool, int, int]]:
        """The search to run: the compiled one, or the Python path if goals call Python."""
        return python_goal_search if problem.python_goals else self.search


def _compiled(kernel, *extra):
    """Adapter from the Family.search protocol to a packed compiled search kernel
    kernel(ibuf, fbuf, q, settings, run, stats, *extra)."""

    def search(problem, q, deadline, budget, seed, mode, settings, random_start=False):
        run, stats = problem.run, problem.stats
        run[DEADLINE], run[BUDGET], run[SEED], run[MODE], run[RANDOM_START] = deadline, budget, seed, mode, random_start
        found = kernel(problem.ibuf, problem.fbuf, q, settings, run, stats, *extra)
        return found, int(stats[ITERATIONS]), int(stats[RESTARTS])

    return search


_bio2 = _compiled(bio2.bio2_search, bio2.NORMALS)
_gd = _compiled(gd.gd_search)
_POSE_KINDS = frozenset({POSE, POSITION, ORIENTATION})


SOLVERS: dict[str, Family] = {
    "lm": Family(
        "lm", lm.DEFAULTS, _compiled(lm.lm_search), description="Levenberg–Marquardt with random restarts (compiled)", single_pose=lm_pose.lm_pose_search
    ),
    "kdl": Family("kdl", kdl.DEFAULTS, _compiled(kdl.kdl_search), kinds=_POSE_KINDS, single_pose=kdl.kdl_pose_query, description="KDL-style Newton–Raphson, pseudo-inverse, restarts"),
    "nullspace": Family("nullspace", nullspace.DEFAULTS, _compiled(nullspace.nullspace_search), kinds=_POSE_KINDS, any_secondary=True,
                        single_pose=nullspace.nullspace_pose_query,
                        description="pseudo-inverse with joint centring (or secondary goals) in the null space [L]"),
    "jac": Family("jac", jac.DEFAULTS, _compiled(jac.jac_search), kinds=_POSE_KINDS, single_pose=jac.jac_pose_query, description="multi-goal damped pseudo-inverse Jacobian, restarts [R 3.5.1]"),
    "gd": Family("gd", gd.DEFAULTS, _gd, single_pose=gd.gd_pose_query, fixed=(gd.REJECT, 1), description="gradient descent, rejects cost increases, no resets [R 3.5.2]"),
    "gd_r": Family("gd_r", gd.DEFAULTS, _gd, single_pose=gd.gd_pose_query, fixed=(gd.RESET, 1), description="gradient descent with random resets [R 3.5.2]"),
    "gd_c": Family("gd_c", gd.DEFAULTS, _gd, single_pose=gd.gd_pose_query, fixed=(gd.CONTINUE, 1), description="gradient descent with continuation (steps always accepted) [R 3.5.2]"),
    "gd_c_4": Family("gd_c_4", gd.DEFAULTS, _gd, single_pose=gd.gd_pose_query, fixed=(gd.CONTINUE, 4), description="gradient descent with continuation, 4 interleaved chains [R 3.5.2]"),
    "bio1": Family("bio1", bio1.DEFAULTS, _compiled(bio1.bio1_search), single_pose=bio1.bio1_pose_query, description="BioIK 1: Hybrid Genetic Swarm Algorithm, exact FK [S 4.3]"),
    "bio2": Family("bio2", bio2.DEFAULTS, _bio2, fixed=(bio2.NONE,), single_pose=bio2.bio2_pose_query, single_pose_extra=(bio2.NORMALS,), description="BioIK 2 evolution without memetics"),
    "bio2_memetic": Family("bio2_memetic", bio2.DEFAULTS, _bio2, fixed=(bio2.QUADRATIC,), single_pose=bio2.bio2_pose_query, single_pose_extra=(bio2.NORMALS,), description="BioIK 2, quadratic memetics (faithful)"),
    "bio2_memetic_l": Family("bio2_memetic_l", bio2.DEFAULTS, _bio2, fixed=(bio2.LINEAR,), single_pose=bio2.bio2_pose_query, single_pose_extra=(bio2.NORMALS,), description="BioIK 2, linear memetics"),
    "bio2_lm": Family("bio2_lm", bio2.LM_DEFAULTS, _bio2, fixed=(bio2.LM,), single_pose=bio2.bio2_pose_query, single_pose_extra=(bio2.NORMALS,), description="BioIK 2 evolution with LM memetics on exact Jacobians"),
    "bio2_memetic_lbfgs": Family("bio2_memetic_lbfgs", bio2.DEFAULTS, bio2_lbfgs_search, description="BioIK 2, L-BFGS-B memetics (scipy)"),
    "trac": Family("trac", trac.DEFAULTS, trac.trac_search, kinds=_POSE_KINDS, fixed=(trac.SPEED,), description="TRAC-IK-style race of kdl and SLSQP, first valid wins (speed mode) [E 3.1.2]"),
    "trac_distance": Family("trac_distance", trac.DEFAULTS, trac.trac_search, kinds=_POSE_KINDS, fixed=(trac.DISTANCE,), description="TRAC-IK race, distance mode: the solution nearest the seed [E 3.1.2]"),
    "trac_manip1": Family("trac_manip1", trac.DEFAULTS, trac.trac_search, kinds=_POSE_KINDS, fixed=(trac.MANIP1,), description="TRAC-IK race, manip1 mode: maximal sqrt(det(J Jᵀ)) [E 3.1.2]"),
    "trac_manip2": Family("trac_manip2", trac.DEFAULTS, trac.trac_search, kinds=_POSE_KINDS, fixed=(trac.MANIP2,), description="TRAC-IK race, manip2 mode: minimal condition number of J [E 3.1.2]"),
    "relaxed": Family("relaxed", relaxed.DEFAULTS, relaxed.relaxed_search,
                      description="RelaxedIK-style: SLSQP on a weighted sum of groove/swamp losses, restarts [E 3.1.6, 7.2]"),
    **{f"optlib_{m}": Family(f"optlib_{m}", optlib.NM_DEFAULTS if m == "nelder_mead" else optlib.DEFAULTS, optlib.make_search(m),
                             description=f"scipy {optlib.LABELS[m]} on the IK cost, random restarts [R 3.5.3, E Table 3.1]")
       for m in optlib.METHODS},
}

DEFAULT_SOLVER = "lm"


def names() -> list[str]:
    """Names of the available solvers."""
    return sorted(SOLVERS)
