"""What every reproduction script shares: a source's protocol, resumable runs, the table cells.

A `Protocol` is one cell of a source table as the source measured it: robot, solver, number
of FK targets, timeout, the tolerances of success, where each solve starts. `run` solves its
targets one by one and stores a row per target in SQLite (`reproduce.db` beside this file by
default), so an interrupted run resumes where it stopped and a finished one is only read. Rows are
found by their protocol, not by bioik's version: after changing a solver, delete its rows
(or the file) to measure it again.
Success is checked here from the returned q (position and rotation error of the tip within
the protocol's tolerances, q within limits), never taken from the solver. `cell` prints our
figure with its 95 % Wilson interval; `write_section` puts a script's table into
RESULTS.md between markers of its own, so scripts can run in any order.
`run_together` solves the protocols of a comparison interleaved, target by target, so that
the machine's load falls on them alike; `ablation_table` is the table of [R]'s ablations
(an `Arm` per row, Fisher's test against its reference, a `verdict` on the direction),
at [R]'s 5 ms and at a load-free step budget (`STEPS`).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import binomtest, fisher_exact

import bioik
from bioik.bench.progress import progress_bar
from bioik.bench.targets import pose_errors

HERE = Path(__file__).resolve().parent
DB = HERE / "reproduce.db"
RESULTS = HERE / "RESULTS.md"


@dataclass(frozen=True)
class Protocol:
    """One measurement: `targets` FK targets of `robot`'s tip (uniform random configurations,
    RNG `seed`), each solved by `solver` within `timeout` seconds (and `max_iterations`, if
    given) from `start`: "random" (an independent uniform draw per target, [R 3.2]) or
    "centre" (the middle of the joint limits, the robot's default posture). Success: tip
    position error ≤ `position_tolerance` m and, for a pose goal, rotation error ≤
    `rotation_tolerance` rad. `params`: the solver's parameters, as (name, value) pairs.
    `threads` > 1: that many searches race on threads per target, the first from `start`,
    the others from random configurations, as [R 3.5]'s multi-threaded solvers did; a
    target counts as solved when one of them solves it within the timeout."""

    robot: str
    solver: str
    targets: int = 1000
    timeout: float = 0.005
    position_tolerance: float = 1e-5
    rotation_tolerance: float = 1e-5
    start: str = "random"
    goal: str = "pose"
    params: tuple[tuple[str, float], ...] = ()
    max_iterations: int | None = None
    seed: int = 0
    threads: int = 1

    def key(self) -> str:
        """The protocol as stored in the database (its rows are found by it; one thread, the
        default, is left out so that rows stored before threads existed are still found)."""
        d = asdict(self)
        if d["threads"] == 1:
            del d["threads"]
        return json.dumps(d, sort_keys=True)


@dataclass
class Outcome:
    """The rows of a protocol: per target success, wall time (s), iterations, errors."""

    success: np.ndarray
    time: np.ndarray
    iterations: np.ndarray
    position_error: np.ndarray = field(repr=False)
    rotation_error: np.ndarray = field(repr=False)

    @property
    def rate(self) -> float:
        return float(self.success.mean())

    def interval(self) -> tuple[float, float]:
        """95 % Wilson interval of the success rate."""
        ci = binomtest(int(self.success.sum()), len(self.success)).proportion_ci(0.95, method="wilson")
        return ci.low, ci.high


def _connect(db: Path) -> sqlite3.Connection:
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE IF NOT EXISTS rows (protocol TEXT, target INTEGER, success INTEGER, time REAL,"
                " iterations INTEGER, position_error REAL, rotation_error REAL, PRIMARY KEY (protocol, target))")
    return con


def _problem(p: Protocol) -> tuple[bioik.Robot, str, np.ndarray, np.ndarray]:
    """The robot, its tip, the target poses and the start of every solve (same for any solver)."""
    robot = bioik.load_robot(p.robot)
    tip = robot.tips[0]
    rng = np.random.default_rng(p.seed)
    poses = robot.fk(robot.random_configuration(rng, p.targets), links=[tip])[:, 0]
    if p.start == "random":
        starts = robot.random_configuration(rng, p.targets)
    elif p.start == "centre":
        starts = np.tile(0.5 * (robot.lower + robot.upper), (p.targets, 1))
    else:
        raise ValueError(f"unknown start {p.start!r}; known: random, centre")
    return robot, tip, poses, starts


def _goal(p: Protocol, tip: str, T: np.ndarray) -> bioik.Goal:
    return bioik.PoseGoal(tip, T) if p.goal == "pose" else bioik.PositionGoal(tip, T[:3, 3])


def _target_solver(p: Protocol) -> Callable[[int], tuple[int, float, int, float, float]]:
    """A function solving target i of `p` → its row (success, wall time, iterations,
    position and rotation error); the solver is compiled or loaded before it returns."""
    robot, tip, poses, starts = _problem(p)
    kw = dict(timeout=p.timeout, solver=p.solver, max_iterations=p.max_iterations,
              position_tolerance=p.position_tolerance, rotation_tolerance=p.rotation_tolerance, **dict(p.params))
    bioik.solve(robot, [_goal(p, tip, poses[0])], seed=starts[0], **kw)  # compile / load before timing
    pool = ThreadPoolExecutor(p.threads) if p.threads > 1 else None

    def checked(i: int, res: bioik.Result) -> tuple[bool, float, float]:
        dp, dr = pose_errors(robot, tip, poses[i], res.q)
        ok = robot.within_limits(res.q) and dp <= p.position_tolerance and (p.goal != "pose" or dr <= p.rotation_tolerance)
        if res.success and not ok:
            raise AssertionError(f"{p.solver} reported success for a wrong answer on {p.robot}, target {i}")
        return ok, dp, dr

    def solve(i: int) -> tuple[int, float, int, float, float]:
        goals = [_goal(p, tip, poses[i])]
        t = time.perf_counter()
        if pool is None:
            res = bioik.solve(robot, goals, seed=starts[i], random_seed=p.seed + i, **kw)
            elapsed = time.perf_counter() - t
            ok, dp, dr = checked(i, res)
            return int(ok), elapsed, res.iterations, dp, dr
        # a race: thread 0 from the start, the others from random configurations
        runs = [pool.submit(bioik.solve, robot, goals, seed=starts[i] if k == 0 else None, random_seed=p.seed + i + 7919 * k, **kw)
                for k in range(p.threads)]
        results = [r.result() for r in runs]
        elapsed = time.perf_counter() - t
        rows = [(checked(i, res), res) for res in results]
        won = [(res.time, ok, dp, dr, res) for (ok, dp, dr), res in rows if ok]
        if won:  # the first to finish among those that solved it
            took, ok, dp, dr, res = min(won, key=lambda w: w[0])
            return 1, took, res.iterations, dp, dr
        (ok, dp, dr), res = min(rows, key=lambda r: r[0][1])
        return 0, elapsed, res.iterations, dp, dr

    return solve


def run(p: Protocol, db: Path = DB, label: str = "") -> Outcome:
    """The outcome of protocol `p`, solving the targets not yet in `db` (one row each)."""
    return run_together([p], db, label)[0]


def run_together(ps: list[Protocol], db: Path = DB, label: str = "") -> list[Outcome]:
    """The outcomes of protocols `ps`, solving the targets not yet in `db` interleaved —
    target i of each protocol in turn — so that a change of the machine's load falls on
    every arm of a comparison alike."""
    con = _connect(db)
    keys = [p.key() for p in ps]
    todo = [{i for i in range(p.targets)} - {t for (t,) in con.execute("SELECT target FROM rows WHERE protocol = ?", (key,))}
            for p, key in zip(ps, keys)]
    if any(todo):
        solvers = [_target_solver(p) if left else None for p, left in zip(ps, todo)]
        total = sum(p.targets for p in ps)
        bar = progress_bar(label or " / ".join(f"{p.robot} {p.solver}" for p in ps), total, total - sum(map(len, todo)))
        for i in sorted(set().union(*todo)):
            for key, left, solve in zip(keys, todo, solvers):
                if i in left:
                    con.execute("INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?, ?)", (key, i, *solve(i)))
                    bar.update()
            if i % 50 == 0:
                con.commit()
        bar.close()
        con.commit()
    outcomes = [_outcome(con, key, p.targets) for p, key in zip(ps, keys)]
    con.close()
    return outcomes


def _outcome(con: sqlite3.Connection, key: str, targets: int) -> Outcome:
    rows = np.array(con.execute("SELECT success, time, iterations, position_error, rotation_error FROM rows"
                                " WHERE protocol = ? AND target < ? ORDER BY target", (key, targets)).fetchall())
    return Outcome(rows[:, 0].astype(bool), rows[:, 1], rows[:, 2].astype(int), rows[:, 3], rows[:, 4])


def rate_cell(o: Outcome) -> str:
    """"92.5 % [90.6, 94.0]": our success rate with its 95 % interval."""
    lo, hi = o.interval()
    return f"{100 * o.rate:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]"


def rate_time_cell(o: Outcome) -> str:
    """`rate_cell` and the mean wall time of all solves in ms (failures count at the time
    they took)."""
    return f"{rate_cell(o)} ({1e3 * o.time.mean():.2f} ms)"


def fisher_p(a: Outcome, b: Outcome) -> float:
    """Two-sided p-value of Fisher's exact test of a's success rate against b's."""
    sa, sb = int(a.success.sum()), int(b.success.sum())
    return float(fisher_exact([[sa, len(a.success) - sa], [sb, len(b.success) - sb]]).pvalue)


def compare(a: Outcome, b: Outcome) -> str:
    """"worse", "better" or "no significant difference": a's success rate against b's
    (Fisher's exact test, two-sided, 5 %)."""
    p = fisher_p(a, b)
    if p >= 0.05:
        return f"no significant difference (p = {p:.2f})"
    return f"{'worse' if a.rate < b.rate else 'better'} (p = {p:.1g})"


def verdict(ours: Outcome, reference: Outcome, theirs: float, theirs_reference: float) -> str:
    """Our difference to the reference arm against the source's: "same direction as [R]"
    or "opposite direction to [R]" when ours is significant (`fisher_p` < 0.05), and the
    source's difference in percentage points."""
    d = f"[R]: {theirs - theirs_reference:+.2f} points"
    if fisher_p(ours, reference) >= 0.05:
        return d
    same = (ours.rate - reference.rate) * (theirs - theirs_reference) > 0
    return f"{'same direction as' if same else 'opposite direction to'} {d}"


@dataclass(frozen=True)
class Arm:
    """A row of an ablation table: `solver` with `params` (a reference states the
    switch's default, so that its rows are its table's own), the source's success % per
    bioik robot (None: not in the source), and the index of the row it is tested against
    (None: a reference)."""

    label: str
    solver: str
    params: tuple[tuple[str, float], ...]
    source: dict[str, float | None]
    versus: int | None = 0


#: The ablations' second protocol: a budget of BioIK 2 steps (within 1 s), which load
#: cannot change; a `bio2_memetic` step on ur5 took 9 µs here on a quiet machine, 15 µs
#: under load, so 5 ms buys 300–550 steps.
STEPS = 300


def _versus(o: Outcome, ref: Outcome, theirs: float | None, theirs_ref: float | None) -> str:
    """`compare` and, where the source has both figures, the `verdict`."""
    return compare(o, ref) + ("" if theirs is None or theirs_ref is None else f"; {verdict(o, ref, theirs, theirs_ref)}")


def ablation_table(arms: list[Arm], robots: dict[str, str], targets: int, db: Path,
                   tag: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of an ablation table: per robot (bioik robot → the source's column)
    the source's figure and, for [R 3.2]'s 5 ms and for `STEPS` steps, ours
    (`rate_time_cell`; the arms run interleaved, `run_together`) with Fisher's test
    against the arm's reference and the `verdict`."""
    rows = [[a.label, f"`{a.solver}` " + ", ".join(f"{k}={v:g}" for k, v in a.params),
             "—" if a.versus is None else arms[a.versus].label] for a in arms]
    header = ["Variant", "bioik", "tested against"]
    for robot, theirs in robots.items():
        header += [f"{theirs} [R]", f"{robot}, 5 ms", "vs reference, 5 ms", f"{robot}, {STEPS} steps",
                   f"vs reference, {STEPS} steps"]
        for row, a in zip(rows, arms):
            row.append(f"{a.source[robot]:.2f} %" if a.source.get(robot) is not None else "—")
        for budget in ({}, {"timeout": 1.0, "max_iterations": STEPS}):
            ps = [Protocol(robot, a.solver, targets, params=a.params, **budget) for a in arms]
            outcomes = run_together(ps, db, f"{tag} {robot} {'steps' if budget else '5 ms'}")
            for a, o, row in zip(arms, outcomes, rows):
                ref = None if a.versus is None else outcomes[a.versus]
                theirs_ref = None if a.versus is None else arms[a.versus].source.get(robot)
                row += [rate_time_cell(o), "—" if ref is None else _versus(o, ref, a.source.get(robot), theirs_ref)]
    return header, rows


def ablation_text(script: str, targets: int) -> str:
    """The protocol paragraph of an ablation section."""
    return (f"Success rate [95 % interval] (mean time of all solves) at 1e-5 m / 1e-5 rad from random starts, "
            f"{targets} FK targets per arm, within [R]'s 5 ms and within {STEPS} steps (1 s). The arms of a robot run "
            "interleaved (target by target), so that the load of the machine (2 cores shared with other jobs) falls on "
            "them alike; the step budget is free of it. Fisher's exact "
            "test (two-sided) against the reference named; verdict: the direction of our difference against [R]'s. "
            f"`python3 benchmarks/reproduce/{script} --targets {targets}`.")


def publish_ablation(name: str, title: str, script: str, arms: list[Arm], robots: dict[str, str], targets: int, db: Path,
                     results: Path) -> str:
    """An ablation script's section: `ablation_table` under `ablation_text`, published."""
    header, rows = ablation_table(arms, robots, targets, db, name)
    return publish(name, title, ablation_text(script, targets), header, rows, results)


def table(header: list[str], rows: list[list[str]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def solver_table(source: dict[str, tuple[str, dict[str, Any]]], robots: dict[str, str], targets: int, db: Path, tag: str,
                 source_cell: Callable[[Any], str], our_cell: Callable[[Outcome], str]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a table with a row per source method — `source`: method →
    (bioik solver, {robot: source figure}) — and for each of `robots` (bioik robot → the
    source's column) the source's cell beside ours, run at the default protocol ([R 3.2])."""
    rows = []
    for method, (solver, figures) in source.items():
        cells = [method, f"`{solver}`"]
        for robot in robots:
            cells += [source_cell(figures[robot]), our_cell(run(Protocol(robot, solver, targets), db, f"{tag} {robot} {solver}"))]
        rows.append(cells)
    return ["[R]", "bioik"] + [h for robot, theirs in robots.items() for h in (f"{theirs} [R]", robot)], rows


def publish(name: str, title: str, explanation: str, header: list[str], rows: list[list[str]], results: Path) -> str:
    """A script's section — "## title", the explanation, the table — written into
    `results` (`write_section`) and returned."""
    text = f"## {title}\n\n{explanation}\n\n{table(header, rows)}"
    write_section(name, text, results)
    return text


def write_section(name: str, text: str, results: Path = RESULTS) -> None:
    """Put `text` into `results` between the markers of section `name` (added at the end
    the first time; the sections stay in the order they were first written)."""
    begin, end = f"<!-- {name} begin -->", f"<!-- {name} end -->"
    old = results.read_text() if results.exists() else "# Reproductions: source vs bioik\n"
    block = f"{begin}\n{text.strip()}\n{end}"
    if begin in old:
        head, rest = old.split(begin, 1)
        new = head + block + rest.split(end, 1)[1]
    else:
        new = old.rstrip("\n") + "\n\n" + block + "\n"
    results.write_text(new)


def arguments(doc: str, targets: int) -> argparse.Namespace:
    """The options every script takes: --targets (per cell), --db, --results."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--targets", type=int, default=targets, help=f"FK targets per cell (default {targets})")
    ap.add_argument("--db", type=Path, default=DB, help="SQLite file of the rows (resumable)")
    ap.add_argument("--results", type=Path, default=RESULTS, help="the markdown file the table goes into")
    return ap.parse_args()

