"""The prepared-problem cache of a `Solver`: one `Problem` per goal structure, prepared
once (its kernels loaded, compiled on first use, before any clock starts) under a lock,
and the idle workspaces solves take their buffers from (`bioik.solvers.workspace`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

from bioik._compile_progress import compile_notice
from bioik._kernel_cache import compiled_entry, process_lock
from bioik.goals.base import PYTHON, Goal
from bioik.kinematics.robot import Robot
from bioik.problem import Problem, structure_key
from bioik.solvers.registry import SOLVERS, Family
from bioik.solvers.result import check_goals
from bioik.solvers.workspace import MAX_STRUCTURES, Workspace


class PreparedProblems:
    """`Solver`'s prepared problems and workspaces (a mixin: `Solver` holds the attributes
    named here; the one-call and general paths load the kernels)."""

    robot: Robot
    family: Family
    settings: Any
    network: Any
    _python_name: str
    _one_call: bool
    _single: Any
    _prepared: dict[tuple, Problem]
    _prepare_lock: threading.Lock
    _idle: list[Workspace]

    def _prepare(self, goals: Sequence[Goal], checked: bool = False) -> Problem:
        """The template problem of the goals' structure, prepared by one thread (the others
        wait for it) and kept for `MAX_STRUCTURES` structures (checked: the caller has just
        checked the goals)."""
        if not checked:
            check_goals(goals)
        key = structure_key(goals)
        p = self._prepared.get(key)
        if p is not None:
            return p
        with self._prepare_lock:  # one thread prepares (and compiles); the others wait for it
            p = self._prepared.get(key)
            if p is not None:
                return p
            name = self._python_name if any(g.kind == PYTHON for g in goals) else self.family.name
            # another process preparing the same solver finishes first; this one then loads its kernels
            with compile_notice(f"the {name} kernels"), process_lock(f"prepare-{name}"):
                p = self._new_problem(goals)
            if len(self._prepared) >= MAX_STRUCTURES:
                self._prepared.pop(next(iter(self._prepared)))
            self._prepared[key] = p
        return p

    def _new_problem(self, goals: Sequence[Goal]) -> Problem:
        """A prepared problem whose kernels are loaded (compiled on first use), so that the
        first solve's timeout is spent searching. A single pose-type goal loads only its
        one-call kernel: the general search is loaded when a solve first needs it."""
        p = Problem(self.robot, goals)
        self._run_for(p)[0].check(p, SOLVERS.values())
        if self.network is not None:
            self.network.check_goals(p.goals)
        p.general_ready = False
        if p.single_pose and self._one_call:
            defaults = self._with_network(self.family, self.family.settings({}))  # see `_load_general` on the defaults
            ws = Workspace(self.robot, defaults, self._prepare)
            self._solve_single_pose(ws, p, goals, self.robot.center(), time.monotonic(), time.monotonic() + 3600.0, 1, 0, 1e-5, 1e-5)
            self._single = compiled_entry(self.family.single_pose)
        else:
            self._load_general(p)
        return p

    def _workspace(self) -> Workspace:
        """An idle workspace (taken: no other solve gets it), or a new one."""
        try:
            return self._idle.pop()
        except IndexError:
            return Workspace(self.robot, self.settings, self._prepare)
