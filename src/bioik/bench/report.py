"""Per-experiment tables [E Table 6.1]: solve rate within 5/10/100/1000 ms and within
1/2/3/5/10/100 solution-callback calls, mean and median time, as markdown.

The benchmark's iterations are solution-callback calls, as in [E 6]: the runner's check of
an answer is the callback, so "≤ k calls" is the rate solved by the k-th answer a solver
offered (a peer offers one). Beside them, "solver it." is the median of the solvers' own
iterations (`Result.iterations`: one LM step, one bio2 generation …), which are not
comparable from one solver to another. An experiment run with `--no-callback` has no call
counts ("—"). Rates are over all n_targets of the experiment (a target not yet run counts
as unsolved); the time columns are over the targets run, solved or not (a failure's time
is the time it took to give up).

Every experiment's row ends with the solver's own claims: "claimed %" (the rate it
reported success on, its `Result.success`; a peer's own word), "false succ." (claimed
successes the benchmark's check rejected) and "max ms" (the longest call, a timeout
overrun shows there). Rows stored before claims were kept show "—". A peer's notes (what
its model of the robot or scene leaves out) are listed under the table.

`track` experiments (a path) add the max position error and the mean and max joint
displacement per step, ‖q_i − q_{i−1}‖ over consecutive targets that both have a stored
solution (how smoothly the solver follows the path).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from bioik.bench.store import Experiment, ResultRow, ResultStore

TIME_THRESHOLDS_MS = (5, 10, 100, 1000)
CALL_THRESHOLDS = (1, 2, 3, 5, 10, 100)


@dataclass(frozen=True)
class Summary:
    """The numbers of one experiment's row in the report (rates in %, times in ms)."""

    experiment: Experiment
    n_run: int
    success: float
    within_ms: dict[int, float]
    within_calls: dict[int, float] | None  # None: run without a callback
    median_iterations: float
    mean_ms: float
    median_ms: float
    mean_position_error: float
    max_position_error: float
    mean_step: float
    max_step: float
    claimed: float | None = None  # % of targets the solver claimed (None: claims not stored)
    false_successes: int | None = None  # claimed, rejected by the check
    max_ms: float = float("nan")


def time_thresholds(timeout: float) -> tuple[int, ...]:
    """The time thresholds (ms) reported for a run with this timeout (those ≤ the timeout)."""
    return tuple(t for t in TIME_THRESHOLDS_MS if t <= timeout * 1e3 * (1 + 1e-9))


def joint_steps(rows: list[ResultRow]) -> np.ndarray:
    """‖q_i − q_{i−1}‖ for consecutive target indices that both have a row (rows in index order)."""
    return np.array([float(np.linalg.norm(np.subtract(b.solution, a.solution)))
                     for a, b in pairwise(rows) if b.target_index == a.target_index + 1])


def summarize(store: ResultStore, exp: Experiment) -> Summary:
    """The report numbers of `exp`, computed from its stored rows."""
    rows = store.results(exp.id)
    solved = np.array([r.solved for r in rows], dtype=bool)
    ms = np.array([r.time_s * 1e3 for r in rows])
    calls = np.array([r.callback_calls for r in rows])
    n = exp.n_targets

    def rate(mask: np.ndarray) -> float:
        return 100.0 * float(np.count_nonzero(mask)) / n

    nan = float("nan")
    steps = joint_steps(rows)
    errors = np.array([r.position_error for r in rows])
    claims = [r for r in rows if r.claimed is not None]
    known = bool(rows) and len(claims) == len(rows)
    return Summary(
        exp,
        len(rows),
        rate(solved),
        {t: rate(solved & (ms <= t)) for t in time_thresholds(exp.timeout)},
        {k: rate(solved & (calls <= k)) for k in CALL_THRESHOLDS} if exp.callback else None,
        float(np.median([r.iterations for r in rows])) if rows else nan,
        float(ms.mean()) if rows else nan,
        float(np.median(ms)) if rows else nan,
        float(errors.mean()) if rows else nan,
        float(errors.max()) if rows else nan,
        float(steps.mean()) if len(steps) else nan,
        float(steps.max()) if len(steps) else nan,
        rate(np.array([bool(r.claimed) for r in rows])) if known else None,
        sum(bool(r.claimed) and not r.solved for r in rows) if known else None,
        float(ms.max()) if rows else nan,
    )


def experiment_label(exp: Experiment) -> str:
    """The solver name, with its parameters if any (legend and table label)."""
    params = ", ".join(f"{k}={v}" for k, v in sorted(exp.params.items()))
    return f"{exp.solver} ({params})" if params else exp.solver


#: What experiments share a table (and a plot): (robot, tip, test, timeout, targets, seed, seeding).
GroupKey = tuple[str, str, str, float, int, int, str]


def group_key(exp: Experiment) -> GroupKey:
    """What experiments share a table (and a plot): all but the solver and its parameters."""
    seeding = exp.seed_mode if exp.seed_config is None else f"{exp.seed_mode} {' '.join(f'{x:g}' for x in exp.seed_config)}"
    return (exp.robot, exp.tip, exp.test, exp.timeout, exp.n_targets, exp.seed, seeding)


def group_title(key: GroupKey) -> str:
    """The heading of a table or plot, e.g. `ur5 (tip tool0) · fkik · timeout 5 ms · 100 targets · seed 0 · seeds random`."""
    robot, tip, test, timeout, n, seed, seeding = key
    words = seeding.split()
    if len(words) > 7:  # a long fixed configuration: its first values
        seeding = " ".join(words[:7]) + " …"
    return f"{robot} (tip {tip}) · {test} · timeout {timeout * 1e3:g} ms · {n} targets · seed {seed} · seeds {seeding}"


def markdown(store: ResultStore) -> str:
    """Markdown tables for every experiment in `store`, one table per `group_key`.

    Args:
        store: the results database.

    Returns:
        The report's text.
    """
    groups: dict[GroupKey, list[Summary]] = {}
    for exp in store.experiments():
        groups.setdefault(group_key(exp), []).append(summarize(store, exp))
    out = []
    for key, sums in groups.items():
        _, _, test, timeout, n, _, _ = key
        ts = time_thresholds(timeout)
        track = test == "track"
        head = (["solver", "run", "success %"] + [f"≤ {t} ms %" for t in ts] + [f"≤ {k} calls %" for k in CALL_THRESHOLDS]
                + ["solver it.", "mean ms", "median ms", "mean pos err m"]
                + (["max pos err m", "mean step rad", "max step rad"] if track else [])
                + ["claimed %", "false succ.", "max ms"])
        out.append(f"### {group_title(key)}\n")
        out.append("calls: solution-callback calls, the benchmark's check being the callback [E 6]; "
                   "solver it.: median of the solver's own iterations (not comparable across solvers); "
                   "claimed: the solver's own success claims, false succ.: claims the check rejected\n")
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for s in sums:
            cells = ([experiment_label(s.experiment), f"{s.n_run}/{n}", f"{s.success:.1f}"] + [f"{s.within_ms[t]:.1f}" for t in ts]
                     + [f"{s.within_calls[k]:.1f}" if s.within_calls is not None else "—" for k in CALL_THRESHOLDS]
                     + [f"{s.median_iterations:g}", f"{s.mean_ms:.3f}", f"{s.median_ms:.3f}", f"{s.mean_position_error:.3g}"]
                     + ([f"{s.max_position_error:.3g}", f"{s.mean_step:.4g}", f"{s.max_step:.4g}"] if track else [])
                     + ["—" if s.claimed is None else f"{s.claimed:.1f}", "—" if s.false_successes is None else str(s.false_successes),
                        f"{s.max_ms:.1f}"])
            out.append("| " + " | ".join(cells) + " |")
        out += [f"- {experiment_label(s.experiment)}: {note}" for s in sums for note in s.experiment.environment.get("notes", [])]
        out.append("")
    return "\n".join(out)
