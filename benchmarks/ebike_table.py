"""[E]'s result tables, re-run on bioik's eight EBIKE scenarios, ours beside theirs.

Runs the seven solvers [E] compared or that bioik adds — kdl (KDL-style), trac (TRAC-IK-
style race), bio2 and bio2_memetic (BioIK 2), relaxed (RelaxedIK-style), lm and bio2_lm —
on the stored targets of every scenario (`bioik.scenes`, robot elise_ur10), each in two
modes: with the collision costs (the scene test `scene:NAME`; kdl and trac take only pose
goals, so they have the second mode alone) and with rejection sampling on the pose search
alone (`scene:NAME/rejection`: the exact check rejects, the search restarts, as in
MoveIt's plugins [E 8.1]). "Without rejection sampling" is the rate solved by the first
answer a solver offers, the "≤ 1 call" column ([E]'s iteration 1). On the two tanks it also
runs the approaches that use the opening: kinematic decoupling and `lm` with the RCM and
look-at goal sets [E 8.5, 8.9, 8.10]. And on every scenario `passage`, a generic solver that
finds each target's passage in the scene itself (`bioik.PassageFinder`) and lets decoupling
through it, `lm` with the collision costs and decoupling with no opening take turns (where
it finds none, `lm` and decoupling with no opening; `bioik.bench.scenes`).

Every answer is checked at the pose (1e-5 m, 1e-5 rad) and by coal's exact collision check.
Results go to a bench database (resumable: a re-run solves only what is missing;
`bioik bench report DB`, `bioik bench plot DB --out DIR` read it too). The script writes
the full comparison to docs/ebike-table.md and, with --readme, the summary table into the
README between its `ebike-table` markers.

    PYTHONPATH=src python benchmarks/ebike_table.py [--targets 100] [--timeout 1.0] [--db ebike_table.db]
        [--solvers lm decoupled passage …] [--peers] [--peer-targets 100] [--out docs/ebike-table.md] [--readme README.md]

With --peers it also runs Drake and mink (`peer:drake`, `peer:mink`, `bioik.bench.peers`;
pip install -e '.[peers-clutter]') on every scenario's first --peer-targets stored targets
(the same targets and seeds as bioik's first ones, the same check) and, with bioik's lm,
on the `table` test (ur5 3 cm above a table with three posts); the summary then gives the
best of bioik, Drake, mink and [E] per scenario, all measured in the same run.

[E]'s numbers are transcribed below from its Tables 6.1, 8.1, 8.14, A1–A18 and the RCM
table of [E 8.5]. They are on [E]'s own geometry and targets (1000 per scenario, MoveIt on
ELISE with a UR10, C++ solvers); ours are on bioik's rebuilt scenarios and stored targets
(see `bioik.scenes`): the comparison is of like problems, not of the same ones.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import NamedTuple

import bioik
from bioik import scenes
from bioik.bench import ResultStore, generate
from bioik.bench.report import Summary, summarize
from bioik.bench.runner import run_experiment
from bioik.bench.store import Experiment
from bioik.bench.targets import PASSAGE, SCENE_SOLVERS, TABLE, scene_test

BUDGETS_MS = (5, 10, 100, 1000)
PEERS = {"peer:drake": "Drake", "peer:mink": "mink"}
#: The ur5-on-a-table problem (`bioik.bench.table`): bioik's solver there, and the row name.
TABLE_ROBOT, TABLE_SOLVER, TABLE_ROW = "ur5", "lm", "ur5 table"
SOLVERS = ("kdl", "trac", "bio2", "bio2_memetic", "relaxed", "lm", "bio2_lm")
POSE_ONLY = ("kdl", "trac")  # no collision goal: their generic run is the rejection one
OPENING_RUNS = (("decoupled", "generic"), ("lm", "rcm"), ("lm", "lookat"))  # (solver, goal set) on the tanks
TANKS = ("HydrogenTank", "HydrogenTankSmall")
PASSAGE_LABEL = ("passage: decoupling through the passage found in the scene, lm + collision costs, decoupling with no opening, "
                 "in turns")
ROOT = Path(__file__).resolve().parent.parent
MARK_BEGIN, MARK_END = "<!-- ebike-table begin -->", "<!-- ebike-table end -->"


class Row(NamedTuple):
    """Solve rates in % within 5/10/100/1000 ms and within 1/10 solution-callback calls
    (None: not reported)."""

    ms5: float | None
    ms10: float | None
    ms100: float | None
    ms1000: float | None
    it1: float | None
    it10: float | None


_BASE = ("KDL", "TracIK", "PickIK", "BioIK", "RelaxedIK")


def _baseline(table: str, *rows: tuple[float, ...]) -> dict[str, tuple[str, Row]]:
    return {name: (table, Row(*r)) for name, r in zip(_BASE, rows, strict=True)}


#: [E]'s rows per scenario: name → (source table, rates). The generic ones (no opening used).
E_GENERIC: dict[str, dict[str, tuple[str, Row]]] = {
    "Random": {
        "KDL": ("6.1", Row(98.9, 99.9, 100.0, 100.0, 77.2, 100.0)),
        "TracIK": ("6.1", Row(79.6, 79.6, 79.6, 79.6, 79.6, 79.6)),
        "TracIK (rejection sampling)": ("8.1", Row(100.0, 100.0, 100.0, 100.0, None, None)),
        "PickIK": ("6.1", Row(20.1, 42.6, 79.0, 92.7, 78.4, 91.7)),
        "PickIK (rejection sampling)": ("8.1", Row(28.0, 45.9, 82.5, 95.8, None, None)),
        "BioIK": ("6.1", Row(74.1, 74.1, 74.1, 74.1, 74.1, 74.1)),
        "BioIK (rejection sampling)": ("8.1", Row(100.0, 100.0, 100.0, 100.0, None, None)),
        "RelaxedIK": ("A17", Row(100.0, 100.0, 100.0, 100.0, 86.0, 100.0)),
    },
    "Barrel": _baseline("A1", (31.1, 50.5, 97.8, 99.9, 11.6, 52.4), (12.1, 12.1, 12.1, 12.1, 12.1, 12.1),
                        (0.9, 5.7, 54.7, 63.3, 8.2, 50.5), (17.4, 17.4, 17.4, 17.4, 17.4, 17.4),
                        (35.3, 57.9, 98.4, 99.8, 9.6, 57.1)),
    "Shelf": _baseline("A2", (63.0, 78.0, 99.9, 100.0, 54.7, 92.6), (53.9, 53.9, 53.9, 53.9, 53.9, 53.9),
                       (0.7, 19.8, 83.9, 87.8, 26.3, 79.9), (61.8, 61.8, 61.8, 61.8, 61.8, 61.8),
                       (61.1, 76.9, 99.8, 100.0, 50.1, 92.6)),
    "Table": _baseline("A3", (6.6, 22.1, 87.4, 100.0, 0.2, 52.7), (0.7, 0.7, 0.7, 0.7, 0.7, 0.7),
                       (0.0, 3.8, 40.7, 53.9, 8.3, 47.7), (0.3, 0.3, 0.3, 0.3, 0.3, 0.3),
                       (10.9, 25.1, 91.3, 100.0, 6.0, 57.1)),
    "SmallTable": _baseline("A4", (81.9, 89.3, 100.0, 100.0, 76.6, 96.7), (80.5, 80.5, 80.5, 80.5, 80.5, 80.5),
                            (0.0, 26.3, 80.3, 95.6, 45.7, 95.3), (85.1, 85.1, 85.1, 85.1, 85.1, 85.1),
                            (92.0, 96.2, 100.0, 100.0, 89.1, 98.8)),
    "TableObjects": _baseline("A5", (80.4, 91.3, 100.0, 100.0, 72.7, 99.6), (74.4, 74.4, 74.4, 74.4, 74.4, 74.4),
                              (0.0, 29.0, 97.4, 99.2, 40.5, 97.0), (79.2, 79.2, 79.2, 79.2, 79.2, 79.2),
                              (69.5, 88.0, 100.0, 100.0, 53.0, 99.4)),
    "HydrogenTank": {**_baseline("A6", (0.1, 0.9, 18.9, 56.8, 0.0, 7.2), (0.0,) * 6, (0.0, 0.0, 0.4, 0.5, 0.0, 0.5),
                                 (0.0,) * 6, (0.6, 1.1, 14.1, 48.4, 0.6, 5.1)),
                     "BioIK (rejection sampling)": ("A8", Row(0.1, 1.3, 17.3, 68.9, 0.0, 6.4))},
    "HydrogenTankSmall": {**_baseline("A7", (0.0, 0.0, 1.6, 14.5, 0.0, 1.0), (0.0,) * 6, (0.0, 0.0, 0.1, 0.1, 0.0, 0.1),
                                      (0.0,) * 6, (0.0, 0.0, 0.8, 9.8, 0.0, 0.4)),
                          "BioIK (rejection sampling)": ("A9", Row(0.0, 0.0, 1.4, 13.8, 0.0, 0.4))},
}

#: [E]'s approaches that use the tank's opening (or a known solution: the target seed).
E_OPENING: dict[str, dict[str, tuple[str, Row]]] = {
    "HydrogenTank": {
        "RCM single link (BioIK)": ("8.5", Row(3.8, 33.8, 94.0, 95.2, None, None)),
        "RCM single link (RelaxedIK)": ("8.5, 8.14", Row(2.9, 43.1, 94.3, 96.1, 51.6, 95.7)),
        "RCM multiple links (RelaxedIK)": ("8.5, 8.14", Row(2.0, 16.6, 74.6, 99.7, 20.8, 74.5)),
        "collision point distance (RelaxedIK)": ("A10", Row(3.0, 34.7, 94.5, 97.5, 54.9, 97.3)),
        "LineGoal (BioIK)": ("A11", Row(6.7, 17.9, 96.1, 97.9, 27.0, 92.6)),
        "AlignmentGoal (BioIK)": ("A13", Row(3.1, 5.7, 92.4, 96.7, 10.9, 87.8)),
        "LookAtGoal (BioIK)": ("A15", Row(0.0, 6.2, 76.7, 93.8, 61.9, 93.6)),
        "kinematic decoupling": ("A16, 8.14", Row(18.1, 23.2, 100.0, 100.0, 100.0, 100.0)),
        "target seed (KDL; seeded with a solution)": ("8.14", Row(None, 48.4, 60.0, 81.2, 48.2, 53.0)),
    },
    "HydrogenTankSmall": {
        "RCM single link (BioIK)": ("A7 (RCM)", Row(0.0, 7.2, 95.0, 100.0, None, None)),
        "RCM single link (RelaxedIK)": ("A7 (RCM), A18", Row(0.0, 16.9, 91.1, 92.7, 49.5, 92.3)),
        "RCM multiple links (RelaxedIK)": ("A7 (RCM), A18", Row(0.0, 4.5, 43.8, 91.8, 9.3, 49.1)),
        "collision point distance (RelaxedIK)": ("A10", Row(0.0, 3.9, 68.3, 89.6, 15.3, 73.7)),
        "LineGoal (BioIK)": ("A12", Row(0.0, 5.3, 71.8, 79.1, 18.0, 70.9)),
        "AlignmentGoal (BioIK)": ("A14", Row(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
        "LookAtGoal (BioIK)": ("A15", Row(0.0, 0.9, 79.2, 96.5, 64.9, 96.3)),
        "kinematic decoupling": ("A16, A18", Row(0.0, 6.6, 54.0, 54.0, 54.0, 54.0)),
        "target seed (KDL; seeded with a solution)": ("A18", Row(None, 26.3, 27.6, 39.1, 26.4, 27.0)),
    },
}


def runs(scenario: str, solvers: tuple[str, ...] = (*SOLVERS, *SCENE_SOLVERS)) -> list[tuple[str, str, str]]:
    """(label, solver, test) of every run of `solvers` on `scenario`: the generic ones, then
    those that use the opening (the tanks)."""
    out = []
    for solver in (s for s in SOLVERS if s in solvers):
        if solver not in POSE_ONLY:
            out.append((f"{solver} + collision costs", solver, scene_test(scenario)))
        out.append((f"{solver}, rejection sampling", solver, scene_test(scenario, "rejection")))
    if PASSAGE in solvers:  # generic: the passage is found in the scene, nothing annotated
        out.append((PASSAGE_LABEL, PASSAGE, scene_test(scenario)))
    if scenario in TANKS:
        for solver, goal_set in (r for r in OPENING_RUNS if r[0] in solvers):
            label = "decoupled" if solver == "decoupled" else f"{solver} + {goal_set} goal"
            out.append((label, solver, scene_test(scenario, goal_set)))
    return out


def opening_run(label: str) -> bool:
    return label == "decoupled" or label.endswith(" goal")


def peer_label(solver: str, n: int) -> str:
    """A peer's row name: its library, solver and target count."""
    return f"{PEERS[solver]} ({solver}, {n} targets)"


def is_peer_row(label: str) -> bool:
    return any(label.startswith(f"{name} (") for name in PEERS.values())


def _complete(store: ResultStore, robot: str, test: str, solver: str, n: int, timeout: float) -> Experiment | None:
    """The stored experiment of this run if every target of it is done (no warm-up needed)."""
    for exp in store.experiments():
        if (exp.robot, exp.test, exp.solver, exp.params, exp.n_targets, exp.timeout, exp.seed) == (robot, test, solver, {}, n, timeout, 0):
            return exp if len(store.done(exp.id)) == n else None
    return None


def _rates(store: ResultStore, robot: bioik.Robot, name: str, test: str, solver: str, n: int, timeout: float) -> tuple[Row, Summary]:
    """Run (or resume) one experiment; its rates and summary."""
    exp = _complete(store, name, test, solver, n, timeout)
    if exp is None:  # not run yet, or interrupted: run (or resume) it
        t0 = time.monotonic()
        summary = run_experiment(store, robot, name, test, solver, n, timeout, 0, targets=generate(robot, test, n, 0))
        if summary.interrupted:
            raise KeyboardInterrupt
        print(f"{name} {test} {solver}: {summary.solved}/{summary.ran} in {time.monotonic() - t0:.0f} s", file=sys.stderr)
        exp = next(e for e in store.experiments() if e.id == summary.experiment)
    s = summarize(store, exp)
    return Row(*(s.within_ms[t] for t in BUDGETS_MS), s.within_calls[1], s.within_calls[10]), s


def measure(store: ResultStore, robot: bioik.Robot, n: int, timeout: float, solvers: tuple[str, ...], peer_targets: int = 0,
            claims: dict[str, Summary] | None = None) -> dict[str, dict[str, Row]]:
    """Run (or resume) every run of `solvers` on every scenario, and with `peer_targets` the
    peers on the first that many targets of each and the table test; the rates of each, by
    scenario and label (the peers' summaries also go to `claims`, by scenario/label)."""
    out: dict[str, dict[str, Row]] = {}
    claims = {} if claims is None else claims
    for scenario in scenes.names():
        out[scenario] = {}
        for label, solver, test in runs(scenario, solvers):
            out[scenario][label] = _rates(store, robot, scenes.ROBOT, test, solver, n, timeout)[0]
        for peer in PEERS if peer_targets else ():
            label = peer_label(peer, peer_targets)
            out[scenario][label], claims[f"{scenario}/{label}"] = _rates(store, robot, scenes.ROBOT, scene_test(scenario), peer,
                                                                          peer_targets, timeout)
    if peer_targets:
        ur5 = bioik.load_robot(TABLE_ROBOT)
        out[TABLE_ROW] = {f"{TABLE_SOLVER} + collision costs": _rates(store, ur5, TABLE_ROBOT, TABLE, TABLE_SOLVER, n, timeout)[0]}
        for peer in PEERS:
            label = peer_label(peer, peer_targets)
            out[TABLE_ROW][label], claims[f"{TABLE_ROW}/{label}"] = _rates(store, ur5, TABLE_ROBOT, TABLE, peer, peer_targets, timeout)
    return out


def _cell(value: float | None, bold: bool = False) -> str:
    """A rate, bold if `bold` and above 0 (a column where nothing solves has no best)."""
    if value is None:
        return "—"
    text = f"{value:.1f}"
    return f"**{text}**" if bold and value > 0 else text


def _best(rows: dict[str, Row]) -> list[float | None]:
    """Per column, the best value among `rows` (None if no row reports that column)."""
    return [max((r[c] for r in rows.values() if r[c] is not None), default=None) for c in range(len(Row._fields))]


def _theirs(table: dict[str, tuple[str, Row]], with_source: bool = False) -> dict[str, Row]:
    return {(f"[E] {k}, Table {src}" if with_source else k): row for k, (src, row) in table.items()}


HEAD = "| | ≤ 5 ms | ≤ 10 ms | ≤ 100 ms | ≤ 1 s | 1st answer | ≤ 10 answers |\n|---|---|---|---|---|---|---|"


def _lines(rows: dict[str, Row | list[float | None]]) -> list[str]:
    """Table lines of `rows` (name → rates), the best of each column in bold."""
    best = _best(rows)  # type: ignore[arg-type]
    return [f"| {name} | " + " | ".join(_cell(v, v is not None and v == best[c]) for c, v in enumerate(row)) + " |"
            for name, row in rows.items()]


def claims_table(claims: dict[str, Summary], timeout: float) -> list[str]:
    """The peers' own claims beside the check: claimed %, false successes, longest call, notes."""
    if not claims:
        return []
    lines = ["## The peers' own claims", "",
             "Every answer of a peer goes through bioik's check (pose at 1e-5 m / 1e-5 rad, joint limits, coal) "
             "before it counts. Claimed: the rate the peer reported success on; false successes: claims the check "
             f"rejected; longest call: against the timeout of {timeout * 1e3:g} ms (an overrun shows here).", "",
             "| problem | peer | solved % | claimed % | false successes | longest call ms |", "|---|---|---|---|---|---|"]
    notes = []
    for key, s in claims.items():
        problem, label = key.split("/", 1)
        lines.append(f"| {problem} | {label} | {s.success:.1f} | {'—' if s.claimed is None else f'{s.claimed:.1f}'} | "
                     f"{'—' if s.false_successes is None else s.false_successes} | {s.max_ms:.0f} |")
        notes += [f"- {problem}, {label}: {note}" for note in s.experiment.environment.get("notes", [])]
    return lines + [""] + (["What a peer's model leaves out:", "", *sorted(set(notes)), ""] if notes else [])


def full_table(ours: dict[str, dict[str, Row]], n: int, timeout: float, claims: dict[str, Summary] | None = None) -> str:
    """Every row, ours, the peers' and [E]'s, per scenario (the best of each column in bold)."""
    lines = ["# The EBIKE scenarios: bioik beside [E]'s tables", "",
             f"Generated by `benchmarks/ebike_table.py` ({n} stored targets per scenario, timeout {timeout:g} s, "
             "robot elise_ur10; every answer checked at the pose and by coal's exact collision check). "
             "Rates in % of the targets: solved within a time budget, by the first answer a solver offers "
             "(without rejection sampling) and within ten answers (the solution callback's calls, [E]'s iterations). "
             "[E]'s rows are transcribed from the tables named (its own geometry and 1000 targets per scenario); "
             "a peer's row is over its own (first) targets, named in it; "
             "bold: the best in the column among ours and theirs.", ""]
    for scenario in scenes.names():
        lines += [f"## {scenario}", "", HEAD]
        mine = {k: v for k, v in ours[scenario].items() if not opening_run(k)}
        mine_open = {k: v for k, v in ours[scenario].items() if opening_run(k)}
        lines += _lines({**mine, **_theirs(E_GENERIC[scenario], True)})
        if scenario in E_OPENING:
            lines += ["| *using the opening* | | | | | | |", *_lines({**mine_open, **_theirs(E_OPENING[scenario], True)})]
        lines.append("")
    if TABLE_ROW in ours:
        lines += [f"## {TABLE_ROW}", "", "ur5 3 cm above a table with three posts (the `table` test, `bioik.bench.table`; "
                  "[E] has no such problem).", "", HEAD, *_lines(ours[TABLE_ROW]), ""]
    lines += claims_table(claims or {}, timeout)
    return "\n".join(lines)


def _peer_rows(rows: dict[str, Row]) -> dict[str, Row]:
    """The peers' rows among `rows`, named by library."""
    return {name: row for label, row in rows.items() for name in PEERS.values() if label.startswith(f"{name} (")}


def summary_table(ours: dict[str, dict[str, Row]], n: int, timeout: float, full: str = "docs/ebike-table.md",
                  peer_targets: int = 0) -> str:
    """Per scenario, the best of ours, each peer's and the best of [E]'s at every budget,
    generic, and on the tanks also with the opening; the ur5 table problem when run."""
    peers = (f" Drake and mink (collision-aware peers, `bioik bench run --solver peer:drake --solver peer:mink`) on the "
             f"first {peer_targets} of those targets, measured in the same run;" if peer_targets else "")
    lines = [f"Best solve rate in % per column ({n} stored targets per scenario, timeout {timeout:g} s; "
             "every answer checked at the pose and by coal's exact collision check): bioik's best run,"
             f"{peers} against [E]'s best result. Generic: no use of the opening; *opening*: decoupling, RCM, "
             f"look-at and the like on the tanks. Which run is best in each column, and every run: [{full}]({full}).", "",
             "| scenario | | ≤ 5 ms | ≤ 10 ms | ≤ 100 ms | ≤ 1 s | 1st answer | ≤ 10 answers |",
             "|---|---|---|---|---|---|---|---|"]
    problems = [*scenes.names(), *([TABLE_ROW] if TABLE_ROW in ours else [])]
    for scenario in problems:
        generic = {k: v for k, v in ours[scenario].items() if not opening_run(k) and not is_peer_row(k)}
        groups = [("generic", generic, _peer_rows(ours[scenario]), E_GENERIC.get(scenario))]
        if scenario in E_OPENING:
            groups.append(("*opening*", {k: v for k, v in ours[scenario].items() if opening_run(k)}, {}, E_OPENING[scenario]))
        for kind, mine, peer_rows, theirs in groups:
            rows = {f"bioik {kind}": _best(mine), **peer_rows, **({f"[E] {kind}": _best(_theirs(theirs))} if theirs else {})}
            for k, line in enumerate(_lines(rows)):
                lines.append((f"| {scenario} | " if k == 0 and kind == "generic" else "| | ") + line[2:])
    lines.append("")
    lines.append("Bold: the best in that column for that scenario.")
    return "\n".join(lines)


def write_readme(path: Path, table: str) -> None:
    """Replace the text between the README's ebike-table markers with `table`."""
    text = path.read_text()
    pattern = re.compile(re.escape(MARK_BEGIN) + ".*?" + re.escape(MARK_END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path}: no {MARK_BEGIN} … {MARK_END} block to replace")
    path.write_text(pattern.sub(lambda _: f"{MARK_BEGIN}\n{table}\n{MARK_END}", text))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--targets", type=int, default=100, help="stored targets per scenario (of 1000; default 100)")
    p.add_argument("--timeout", type=float, default=1.0, help="seconds per solve (default 1, as [E])")
    p.add_argument("--db", default="ebike_table.db", help="bench database (resumable)")
    p.add_argument("--out", default=str(ROOT / "docs" / "ebike-table.md"), help="the full table (markdown)")
    p.add_argument("--readme", help="README whose ebike-table block gets the summary table")
    p.add_argument("--solvers", nargs="+", choices=(*SOLVERS, *SCENE_SOLVERS), default=(*SOLVERS, *SCENE_SOLVERS),
                   help="run only these (default all; lm also runs the RCM and look-at goal sets on the tanks)")
    p.add_argument("--peers", action="store_true", help="also run peer:drake and peer:mink, and the ur5 table problem")
    p.add_argument("--peer-targets", type=int, default=100, help="targets per scenario for the peers (default 100)")
    args = p.parse_args(argv)
    if args.peers and not 1 <= args.peer_targets <= args.targets:
        p.error(f"--peer-targets must be between 1 and --targets ({args.targets}); got {args.peer_targets}")
    peer_targets = args.peer_targets if args.peers else 0
    robot = bioik.load_robot(scenes.ROBOT)
    claims: dict[str, Summary] = {}
    with ResultStore(args.db, create=True) as store:
        ours = measure(store, robot, args.targets, args.timeout, tuple(args.solvers), peer_targets, claims)
    Path(args.out).write_text(full_table(ours, args.targets, args.timeout, claims) + "\n")
    out = Path(args.out).resolve()
    full = str(out.relative_to(Path(args.readme).resolve().parent)) if args.readme else out.name
    summary = summary_table(ours, args.targets, args.timeout, full, peer_targets)
    print(summary)
    if args.readme:
        write_readme(Path(args.readme), summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
