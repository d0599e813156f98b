"""`Family`: a named solver — its parameters, the goals it accepts and its search — as each
solver module declares it beside its code (`FAMILIES`); `bioik.solvers.registry` collects them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from bioik.errors import UnsupportedGoalsError as UnsupportedGoalsError
from bioik.goals.base import ORIENTATION, POSE, POSITION
from bioik.problem import Problem
from bioik.problem.layout import BUDGET, DEADLINE, ITERATIONS, MODE, RANDOM_START, RESTARTS, SEED
from bioik.solvers.core.clock import stoppable
from bioik.solvers.core.params import check_parameters

#: The goal kinds of solvers that handle only pose-type goals.
POSE_KINDS = frozenset({POSE, POSITION, ORIENTATION})


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
    #: The search optimises secondary goals (False: it would ignore them, so they are refused).
    secondary_goals: bool = True
    #: The search optimises goals that call Python (LinkFunctionGoal, JointFunctionGoal);
    #: a compiled search cannot call them, so it refuses them.
    python_goals: bool = False
    #: Values appended to the settings that are not user parameters (e.g. a variant code).
    fixed: tuple[float, ...] = ()
    #: The search as a whole-query kernel for one primary pose-type goal
    #: (`Problem.single_pose`; protocol in `bioik.solvers.core.pose_query`); None: no such path.
    single_pose: Callable[..., int] | None = None
    #: `single_pose` over a chunk of a batch of queries (`bioik.solvers.core.batch`).
    single_pose_batch: Callable[..., int] | None = None
    #: `single_pose`'s free tries among obstacles, proof and acceptance in one call
    #: (`bioik.solvers.core.free_tries`; no extra arguments); None: the tries run from Python.
    single_pose_free: Callable[..., int] | None = None
    #: `single_pose_free` over a chunk of a batch (`free_tries_rows`); None: no compiled scene batch.
    single_pose_free_rows: Callable[..., int] | None = None
    #: `search` among obstacles with its slices, polish and proofs in one resumable call
    #: (`bioik.solvers.core.scene_search`); None: `GeneralPath._search` runs them from Python.
    scene_search: Callable[..., int] | None = None
    #: Arguments `single_pose` and `single_pose_batch` take after the protocol's five (e.g. bio2's normal deviates).
    single_pose_extra: tuple = ()
    #: The parameter that runs `search` on that many threads of its own (bio2's `threads`:
    #: its islands); with more than one, a solve takes the general search even for a
    #: single pose goal, since the whole-query kernels run in the calling thread (a batch's
    #: compiled chunks still use them, the islands stepped in turn). None: no such parameter.
    thread_param: str | None = None
    #: The mode of the trained network the search needs ("neural", "neural2"; None: none):
    #: `Solver` finds it (`bioik.solvers.neural.network.find_network`) and appends it to the settings.
    network: str | None = None

    def settings(self, params: Mapping[str, Any]) -> np.ndarray:
        """The settings vector: `params` over the defaults, each checked against its range
        (`bioik.solvers.core.params`); unknown names are an error."""
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ValueError(f"unknown parameter(s) {', '.join(unknown)} for solver {self.name!r}; known: {', '.join(self.defaults) or 'none'}")
        values = check_parameters({**self.defaults, **params}, self.name)
        return np.array([values[k] for k in self.defaults] + list(self.fixed))

    def threads(self, settings: np.ndarray) -> int:
        """The threads `search` runs on with these settings (`thread_param`)."""
        if self.thread_param is None:
            return 1
        return int(settings[list(self.defaults).index(self.thread_param)])

    def warm_settings(self, settings: np.ndarray) -> np.ndarray:
        """The settings a warm-up search runs with: the defaults (one short step, however
        large the user's), but the threads of `settings`, so that it loads the same code."""
        if self.threads(settings) == 1:
            return self.settings({})
        return self.settings({self.thread_param: self.threads(settings)})

    def check(self, problem: Problem, solvers: Iterable[Family]) -> None:
        """Refuse goals this solver would not honour — goals that call Python, secondary
        goals it would ignore, goal types it cannot handle — naming those of `solvers`
        (the registry) that can; `solvers` is read only to word a refusal."""
        goals = problem.goals

        def able(can: Callable[[Family], bool]) -> str:
            return ", ".join(sorted(f.name for f in solvers if can(f)))

        if problem.python_goals and not self.python_goals:
            names = sorted({type(goals[k]).__name__ for k in problem.python_goals})
            raise UnsupportedGoalsError(
                f"solver {self.name!r} cannot run goals that call Python ({', '.join(names)}): its search does not "
                f"evaluate them; solvers that do: {able(lambda f: f.python_goals)}")
        secondary = sorted({type(g).__name__ for g in goals if g.is_secondary})
        if secondary and not self.secondary_goals:
            raise UnsupportedGoalsError(
                f"solver {self.name!r} does not optimise secondary goals (got secondary {', '.join(secondary)}); "
                f"make them primary, drop them, or use a solver that does: {able(lambda f: f.secondary_goals)}")
        if self.kinds is None:
            return
        bad = sorted({type(g).__name__ for g in goals if g.kind not in self.kinds and not (self.any_secondary and g.is_secondary)})
        if bad:
            also = " (and secondary goals of any type)" if self.any_secondary else ""
            raise UnsupportedGoalsError(
                f"solver {self.name!r} handles only position, orientation and pose goals{also}; got {', '.join(bad)}; "
                f"solvers for every goal type: {able(lambda f: f.kinds is None)}")


def compiled(kernel, *extra):
    """Adapter from the Family.search protocol to a packed compiled search kernel
    kernel(ibuf, fbuf, q, settings, run, stats, *extra); a long call from the main thread
    stops on Ctrl-C (`bioik.solvers.core.clock.stoppable`)."""

    def search(problem, q, deadline, budget, seed, mode, settings, random_start=False):
        run, stats = problem.run, problem.stats
        run[DEADLINE], run[BUDGET], run[SEED], run[MODE], run[RANDOM_START] = deadline, budget, seed, mode, random_start
        found = stoppable(kernel, deadline, problem.ibuf, problem.fbuf, q, settings, run, stats, *extra)
        return found, int(stats[ITERATIONS]), int(stats[RESTARTS])

    return search
