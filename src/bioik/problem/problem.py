"""`Problem`: a robot and a goal list compiled into two flat buffers for the solver kernels.

The layout (links read, goal kinds, residual rows) depends only on the goal *structure*;
`update` refreshes goal parameters, tolerances and the seed in place, so repeated solves
with the same structure skip all preparation. See `bioik.problem.layout` for the buffers;
residual sizes are what each goal class declares (`bioik.goals.registry`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bioik.goals.acceptance import MODES
from bioik.goals.base import N_PARAMS, ORIENTATION, POSE, POSITION, PYTHON, Goal
from bioik.goals.functions import PENALTY, FunctionGoal
from bioik.goals.joints import REFERENCE, joint_data
from bioik.goals.registry import residual_size
from bioik.kinematics.fk import fk_frames
from bioik.kinematics.robot import Robot
from bioik.problem.acceptance import evaluate
from bioik.problem.layout import RUN_SLOTS, STATS_SLOTS, sizes, views


def structure_key(goals: Sequence[Goal]) -> tuple:
    """What fixes a problem's layout (for one robot): goal classes, links read,
    primary/secondary and what a goal adds (`Goal.layout_key`: a collision goal's scene).
    Links that depend only on the robot (`BalanceGoal.links_for`) and the parameter rows'
    lengths are fixed by the goal class."""
    return tuple([(type(g), g.links, g.is_secondary, getattr(g, "variable", None), g.layout_key()) for g in goals])


class Problem:
    """Buffers `ibuf`, `fbuf` for the kernels (FK program of the goal links, goal table,
    joint data, bounds), with named numpy views for filling them from Python.

    Args:
        robot: the robot.
        goals: the goals whose structure the buffers are laid out for.
    """

    def __init__(self, robot: Robot, goals: Sequence[Goal]):
        if not goals:
            raise ValueError("no goals given: pass at least one goal, e.g. bioik.PoseGoal(link, pose)")
        for g in goals:
            if not isinstance(g, Goal):
                raise TypeError(f"{g!r} is not a bioik goal (expected e.g. bioik.PoseGoal)")
            g.refresh()  # fields reassigned since the goal was built are checked before the key reads them
        self.robot = robot
        self.key = structure_key(goals)
        goal_links = [g.links_for(robot) for g in goals]
        links: list[str] = []
        for names in goal_links:
            for link in names:
                robot.link_index(link)  # unknown link → error with the closest names
                if link not in links:
                    links.append(link)
        self.links = links
        program = robot.program_for(links)
        n, G = robot.dof, len(goals)
        S, O = program.n_segments, len(links)
        E = max(max(len(names) for names in goal_links) - 2, 0)
        P = max(max(len(g.params(robot)) for g in goals), N_PARAMS)
        blocks = [g.data(robot) for g in goals]
        starts, A = [], 0
        for block in blocks:
            starts.append(-1 if block is None else A)
            A += 0 if block is None else len(block)
        ni, nf = sizes(S, O, G, n, E, P, A)
        self.ibuf = np.zeros(ni, dtype=np.int64)
        self.fbuf = np.zeros(nf)
        self.ibuf[:7] = (S, O, G, n, E, P, A)
        (seg_i, seg_f, out_seg, out_tf, self.gi, self.gf, self.gw, self.gt, self.vdata, self.bounds,
         self.aux) = views(self.ibuf, self.fbuf)
        seg_i[:] = program.seg_i
        seg_f[:] = program.seg_f
        out_seg[:] = program.out_seg
        out_tf[:] = program.out_tf
        self.program = program
        row = 0
        for k, g in enumerate(goals):
            size = residual_size(g.kind, n, len(goal_links[k]))
            outs = [links.index(l) for l in goal_links[k]]
            outs += [-1] * (2 + E - len(outs))
            self.gi[k] = (g.kind, outs[0], outs[1], int(g.is_secondary), row, size, starts[k], *outs[2:])
            row += size
            if blocks[k] is not None:
                self.aux[starts[k] : starts[k] + len(blocks[k])] = blocks[k]
        #: Per goal: its data block's slice of aux and the `data_version` written there.
        self._blocks = [None if b is None else slice(starts[k], starts[k] + len(b)) for k, b in enumerate(blocks)]
        self._data_versions = [g.data_version() for g in goals]
        self.python_goals = [k for k, g in enumerate(goals) if g.kind == PYTHON]
        #: Goals whose kernels call a user function (`bioik.goals.functions`).
        self.function_goals = [k for k, g in enumerate(goals) if isinstance(g, FunctionGoal)]
        self.vdata[:] = joint_data(robot, robot.center())
        self.bounds[:] = (robot.lower, robot.upper, robot.sample_lower, robot.sample_upper)
        self.report = np.zeros(3 + 3 * G)
        #: Per-search arguments and counters handed to the kernels (reused, not reallocated).
        self.run = np.zeros(RUN_SLOTS)
        self.stats = np.zeros(STATS_SLOTS, dtype=np.int64)
        #: One primary pose, position or orientation goal and nothing else: the case that
        #: single-goal fast paths (`bioik.solvers.local.lm_pose`) take.
        self.single_pose = G == 1 and goals[0].kind in (POSE, POSITION, ORIENTATION) and not goals[0].is_secondary
        self.goals: list[Goal] = list(goals)
        self._gf_rows = list(self.gf)
        self._gt_rows = list(self.gt)
        #: The prepared problem this one was copied from (itself, if it is the original).
        self.template = self
        self.update(goals)

    def copy(self) -> Problem:
        """The same problem with buffers of its own: what one solve writes (goal rows, seed,
        run arguments, report) stays out of every other solve's way."""
        p = object.__new__(Problem)
        p.__dict__.update(self.__dict__)
        p.ibuf, p.fbuf = self.ibuf.copy(), self.fbuf.copy()
        (_, _, _, _, p.gi, p.gf, p.gw, p.gt, p.vdata, p.bounds, p.aux) = views(p.ibuf, p.fbuf)
        p._data_versions = list(self._data_versions)
        p.report, p.run, p.stats = self.report.copy(), self.run.copy(), self.stats.copy()
        p.goals, p._gf_rows, p._gt_rows = list(self.goals), list(p.gf), list(p.gt)
        p.template = self
        return p

    def update(
        self,
        goals: Sequence[Goal],
        reference: np.ndarray | None = None,
        position_tolerance: float = 1e-5,
        rotation_tolerance: float = 1e-5,
        *,
        refresh: bool = True,
    ) -> None:
        """Refresh goal parameters (same structure), tolerances and the reference (seed).
        refresh=False skips re-validating the goals' fields (the caller has just checked
        them, `bioik.solvers.result.check_goals`).

        Pose-type goals without tolerances of their own use the given ones. The solvers see
        the weights divided by the largest primary weight (`weight_scale`): only their
        ratios matter to the answer, and the searches' damping and stall tests are tuned
        for weights near 1 (lm failed every reachable pose at a weight of 1e-6)."""
        robot, gf_rows, gw, gt_rows = self.robot, self._gf_rows, self.gw, self._gt_rows
        if refresh:
            for g in goals:
                g.refresh()  # fields reassigned since the goal was built are checked before they are read
        top = max([g.weight for g in goals if not g.is_secondary], default=0.0)
        #: Factor from the goals' weights to the ones the solvers see (costs in `accept` are
        #: converted back, so they stay in the user's units).
        self.weight_scale = scale = 1.0 / top if top > 0.0 else 1.0
        for k, g in enumerate(goals):
            row = g.params(robot)
            gf_rows[k][: len(row)] = row  # the rest of a row stays 0: its length is fixed by the structure
            gw[k] = g.weight * scale
            tol = getattr(g, "tolerance", None)
            pt = getattr(g, "position_tolerance", tol)
            rt = getattr(g, "rotation_tolerance", tol)
            gt_rows[k][:] = (position_tolerance if pt is None else pt, rotation_tolerance if rt is None else rt)
            if self._blocks[k] is not None:
                version = g.data_version()
                if version != self._data_versions[k]:
                    g.write_data(robot, self.aux[self._blocks[k]])
                    self._data_versions[k] = version
        self.goals = list(goals)
        if reference is not None:
            self.vdata[:, REFERENCE] = reference

    def weight(self, k: int) -> float:
        """Goal k's weight as the solvers see it (see `update`)."""
        return self.goals[k].weight * self.weight_scale

    def link_frames(self, q: np.ndarray) -> np.ndarray:
        """Exact frames (O, 7) of the goal links at q."""
        p = self.program
        frames = np.empty((max(len(self.links), 1), 7))
        fk_frames(p.seg_i, p.seg_f, p.out_seg, p.out_tf, q, np.empty((max(p.n_segments, 1), 7)), frames)
        return frames

    def python_costs(self, q: np.ndarray) -> list[float]:
        """Unweighted costs of the goals with user callables (in `python_goals` order)."""
        if not self.python_goals:
            return []
        frames = self.link_frames(q)
        out = []
        for k in self.python_goals:
            g = self.goals[k]
            out.append(float(g.cost(self.robot, q, {l: frames[self.links.index(l)] for l in g.links_for(self.robot)})))
        return out

    def accept(self, q: np.ndarray, mode: str | int = "norm") -> tuple[bool, np.ndarray, float, float]:
        """(every primary goal met, per-goal errors (G, 2), primary cost, secondary cost)
        at q, from exact FK — the one acceptance test every solver's answer goes through.
        Costs are weighted by the goals' own weights."""
        evaluate(self.ibuf, self.fbuf, q, MODES[mode] if isinstance(mode, str) else mode, self.report)
        ok, errors, pc, sc = self.reported()
        for k in self.function_goals:  # what a user function raised or returned wrong is named now
            g = self.goals[k]
            g.callback().raise_failure()
            if not errors[k, 0] < PENALTY:
                frames = self.link_frames(q)
                g.cost(self.robot, q, {l: frames[self.links.index(l)] for l in g.links_for(self.robot)})
        if not self.python_goals:
            return ok, errors, pc, sc
        for k, c in zip(self.python_goals, self.python_costs(q)):
            g = self.goals[k]
            errors[k] = (np.sqrt(c), 0.0)
            weighted = c * g.weight**2
            if g.is_secondary:
                sc += weighted
            else:
                pc += weighted
                ok = ok and errors[k, 0] <= g.tolerance
        return bool(ok), errors, pc, sc

    def reported(self) -> tuple[bool, np.ndarray, float, float]:
        """`accept`'s answer read from the report `evaluate` has just written into
        `self.report` (by `accept`, or by a compiled caller): goals that call Python are not in it."""
        report = self.report
        G = len(self.goals)
        unscale = 1.0 / self.weight_scale**2
        return bool(report[0] == 1.0), report[3 : 3 + 2 * G].reshape(G, 2).copy(), float(report[1]) * unscale, float(report[2]) * unscale

    def report_arrays(self, reports: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(accepted (N,), errors (N, G, 2), primary cost (N,), secondary cost (N,)) of
        reports (N, 3 + 3G) that compiled callers had `evaluate` write (a batch's, one row a
        query), as `accept` gives them one query at a time."""
        G = len(self.goals)
        unscale = 1.0 / self.weight_scale**2
        return (reports[:, 0] == 1.0, reports[:, 3 : 3 + 2 * G].reshape(-1, G, 2).copy(), reports[:, 1] * unscale,
                reports[:, 2] * unscale)

    def cost(self, q: np.ndarray) -> tuple[float, float]:
        """(primary, secondary) weighted cost at q, from exact FK."""
        _, _, pc, sc = self.accept(q)
        return pc, sc
