"""The results database (SQLite, [E 5.2]): experiments, their targets and per-target results.

An experiment is identified by (robot, robot_hash, tip, test, solver, params, timeout,
n_targets, seed, seed_mode, seed_config, callback); re-opening the same experiment reuses its row, so
an interrupted run resumes. robot_hash is `Robot.fingerprint`, the content of the robot
model (what the URDF defines, the active joints, tips and frozen values), and tip the link
whose poses are the targets. One robot name stands for one robot content in a file: a run
whose robot content differs from that of the name's stored experiments (an edited URDF) is
refused, never mixed into them. seed_config is the JSON configuration of the `fixed` seed
mode, '' otherwise. callback is 1 if the runner's acceptance check was the solves' solution
callback (each row's callback_calls then counts its calls, [E 6]), 0 if the solves ran
without one (callback_calls 0).

Each result row is committed in its own transaction (a distributed run's chunk of rows in
one): a run stopped at any point leaves only whole rows, and (experiment, target_index) is
the primary key, so nothing is duplicated.
While a run writes, the file is in write-ahead-log mode. The log is checkpointed into the
`.db` every WAL_AUTOCHECKPOINT log pages (by SQLite), by the runner every
`runner.CHECKPOINT_INTERVAL_S`, at the end of each experiment and when a run is interrupted
(KeyboardInterrupt), and at close. So the `.db` alone holds every row of an ended run, and a
killed run (SIGKILL) loses nothing committed as long as its `-wal` file stays beside the
`.db` (the next open replays it); a copy of the `.db` alone lacks at most the rows of the
last second, and never more than some 480. (A power loss may also lose the last commits:
synchronous=NORMAL.)

Every open checks the file: SQLite's `quick_check` (a damaged page), the format marker and
the tables and columns of its version; a file that fails is refused (BenchError), never
half-read.

Each result row also keeps the solver's own claim (`claimed`: its `Result.success`, for a
peer what the peer reported), beside the benchmark's verdict (`solved`), so the report can
count false successes; NULL in rows stored before format version 5.

Format versions (meta 'version'): 1 had no seed mode (every experiment was `random`); 2 had
no robot hash or tip column (the tip was in the targets rows); 3 had no callback column (no
solve had a callback); 4 had no claimed column. An older file opened for writing is upgraded
in place to 5 (one transaction): version-1 experiments become `random`, experiments before
version 4 ran without a callback, experiments before version 3 get their tip from their
targets and an empty robot hash — their robot content is unknown, so runs on their robot
names are refused (use a new file) — and rows before version 5 have no claim. Opened
read-only, an older file is read as it is.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from bioik.bench.targets import Targets
from bioik.errors import BenchError as BenchError

if TYPE_CHECKING:
    from typing_extensions import Self

T = TypeVar("T")

FORMAT = "bioik-bench"
VERSION = 5
#: Log pages after which SQLite checkpoints the write-ahead log (its usual default, set so a
#: build with another default changes nothing): a result row takes about 2 pages, so some 480
#: rows. Every 100 pages cost fast fkik runs a third more wall time (0.35 → 0.47 ms a row).
WAL_AUTOCHECKPOINT = 1000

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE experiments (
    id INTEGER PRIMARY KEY,
    robot TEXT NOT NULL, test TEXT NOT NULL, solver TEXT NOT NULL, params TEXT NOT NULL,
    timeout REAL NOT NULL, n_targets INTEGER NOT NULL, seed INTEGER NOT NULL,
    created TEXT NOT NULL, environment TEXT NOT NULL,
    seed_mode TEXT NOT NULL DEFAULT 'random', seed_config TEXT NOT NULL DEFAULT '',
    robot_hash TEXT NOT NULL DEFAULT '', tip TEXT NOT NULL DEFAULT '', callback INTEGER NOT NULL DEFAULT 0,
    UNIQUE (robot, robot_hash, tip, test, solver, params, timeout, n_targets, seed, seed_mode, seed_config, callback)
);
-- end of experiments (an upgrade copies the table definition above from here)
CREATE TABLE targets (
    experiment INTEGER NOT NULL REFERENCES experiments(id), target_index INTEGER NOT NULL,
    tip TEXT NOT NULL, pose TEXT NOT NULL, seed_state TEXT NOT NULL, witness TEXT,
    PRIMARY KEY (experiment, target_index)
);
CREATE TABLE results (
    experiment INTEGER NOT NULL REFERENCES experiments(id), target_index INTEGER NOT NULL,
    solved INTEGER NOT NULL, time_s REAL NOT NULL, callback_calls INTEGER NOT NULL,
    iterations INTEGER NOT NULL, restarts INTEGER NOT NULL,
    position_error REAL NOT NULL, rotation_error REAL NOT NULL, solution TEXT NOT NULL, claimed INTEGER,
    PRIMARY KEY (experiment, target_index)
);
"""


#: The experiment columns each format version added (an older file lacks them), and what
#: they read as in such a file: a version-1 experiment is `random`, an older one has its
#: tip in its targets rows and no robot hash.
ADDED_COLUMNS = {
    "seed_mode": (2, "'random'"), "seed_config": (2, "''"), "robot_hash": (3, "''"),
    "tip": (3, "COALESCE((SELECT t.tip FROM targets t WHERE t.experiment = experiments.id LIMIT 1), '')"),
    "callback": (4, "0"),
}
#: The results columns each format version added, and what they read as in an older file.
ADDED_RESULT_COLUMNS = {"claimed": (5, "NULL")}


@dataclass(frozen=True)
class Experiment:
    """One experiments row; params and environment decoded from JSON. robot_hash is '' for
    an experiment stored before format version 3 (its robot content is unknown); callback:
    the runner's acceptance check was the solution callback (see the module docstring)."""

    id: int
    robot: str
    test: str
    solver: str
    params: dict[str, Any]
    timeout: float
    n_targets: int
    seed: int
    created: str
    environment: dict[str, Any]
    seed_mode: str = "random"
    seed_config: list[float] | None = None
    robot_hash: str = ""
    tip: str = ""
    callback: bool = False


@dataclass(frozen=True)
class ResultRow:
    """One target's outcome, as checked by the benchmark (not as reported by the solver)."""

    target_index: int
    solved: bool
    time_s: float
    callback_calls: int
    iterations: int
    restarts: int
    position_error: float
    rotation_error: float
    solution: list[float]
    claimed: bool | None = None  # the solver's own claim of success (None: not stored)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], check=False, cwd=Path(__file__).parent, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def environment() -> dict[str, Any]:
    """Versions, CPU model and git commit (None outside a checkout) of this run."""
    import numba

    return {
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "numba": numba.__version__,
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "git_commit": _git_commit(),
    }


@functools.cache
def schema_columns() -> dict[str, tuple[str, ...]]:
    """The columns of each table of the current format, in order (read from SCHEMA)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA)
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY rowid")]
        return {t: tuple(r[1] for r in conn.execute(f"PRAGMA table_info({t})")) for t in tables}
    finally:
        conn.close()


def _damage_is_bench_error(method: Callable[..., T]) -> Callable[..., T]:
    """A read that meets a damaged page or row (one `quick_check` cannot see) raises BenchError."""

    @functools.wraps(method)
    def read(self: ResultStore, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except (sqlite3.DatabaseError, json.JSONDecodeError) as e:
            raise self.damaged(str(e)) from None

    return read


class ResultStore:
    """A bioik results DB.

    Args:
        path: the .db file.
        create: make a new file if `path` does not exist; an existing file must be an
            undamaged bioik results DB (else BenchError, and the file is left untouched).
    """

    def __init__(self, path: str | os.PathLike, create: bool = False):
        self.path = Path(path)
        exists = self.path.exists()
        if not exists and not create:
            raise BenchError(f"{self.path}: no such results DB")
        if exists and self.path.is_dir():
            raise BenchError(f"{self.path}: is a directory, not a results DB")
        if exists and create and not os.access(self.path, os.W_OK):
            raise BenchError(f"{self.path}: cannot be written (permission denied)")
        try:
            if create:
                self.conn = sqlite3.connect(self.path, isolation_level=None)
            else:  # report and plot never write
                self.conn = sqlite3.connect(self.path.resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None)
        except sqlite3.Error as e:
            raise BenchError(f"{self.path}: cannot open{' for writing' if create else ''} ({e})") from None
        self.writable = create
        self.version = VERSION
        try:
            self._check_or_init(create and (not exists or self.path.stat().st_size == 0))
        except BaseException:
            self.conn.close()
            raise
        if create:
            # write-ahead log while running: a per-row commit then costs no fsync of the
            # whole file (those evicted the caches and doubled the next solve's time)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT}")

    @staticmethod
    def check_writable(path: str | os.PathLike) -> None:
        """BenchError unless `path` is a writable results DB or a new file can be made there (writes nothing)."""
        p = Path(path)
        if p.exists():
            ResultStore(p).close()
            if not os.access(p, os.W_OK):
                raise BenchError(f"{p}: cannot be written (permission denied)")
        elif not p.parent.is_dir() or not os.access(p.parent, os.W_OK | os.X_OK):
            raise BenchError(f"{p}: cannot be created (no writable directory {str(p.parent)!r})")

    @staticmethod
    def check_robots(path: str | os.PathLike, robots: Mapping[str, str]) -> None:
        """BenchError if the results DB at `path` (when there is one) stores a robot name of
        `robots` ({name: fingerprint}) with other content (see `check_robot`; writes nothing)."""
        if Path(path).exists():
            with ResultStore(path) as store:
                for name, robot_hash in robots.items():
                    store.check_robot(name, robot_hash)

    def _check_or_init(self, new: bool) -> None:
        """Create the schema in a new (or empty) file, else check the file: undamaged, the
        format marker, the tables and columns of its version; upgrade it if opened for writing."""
        try:
            if new:
                self.conn.executescript("BEGIN;" + SCHEMA + f"INSERT INTO meta VALUES ('format', '{FORMAT}'), ('version', '{VERSION}'); COMMIT;")
                return
            damage = [r[0] for r in self.conn.execute("PRAGMA quick_check(3)")]
            tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            fmt = self.conn.execute("SELECT value FROM meta WHERE key='format'").fetchone() if "meta" in tables else None
        except sqlite3.DatabaseError as e:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            if "readonly" in str(e) or "unable to open" in str(e):
                raise BenchError(f"{self.path}: cannot be written ({e})") from None
            if "malformed" in str(e):
                raise self.damaged(str(e)) from None
            raise BenchError(f"{self.path}: not a bioik results DB ({e})") from None
        if damage != ["ok"]:
            raise self.damaged(f"SQLite quick_check: {'; '.join(damage)}")
        if fmt is None or fmt[0] != FORMAT:
            raise BenchError(f"{self.path}: not a bioik results DB (no '{FORMAT}' format marker)")
        version = self.conn.execute("SELECT value FROM meta WHERE key='version'").fetchone()
        try:
            self.version = int(version[0]) if version is not None else 1
        except ValueError:
            raise BenchError(f"{self.path}: not a bioik results DB (format version {version[0]!r} is not a number)") from None
        if self.version > VERSION:
            raise BenchError(f"{self.path}: results DB format version {self.version} is newer than this bioik's ({VERSION}); upgrade bioik")
        self._check_columns()
        if self.version < VERSION and self.writable:
            self._upgrade()

    def damaged(self, detail: str) -> BenchError:
        """The error for a file whose pages or rows are damaged (`detail` says how)."""
        return BenchError(f"{self.path}: damaged results DB ({detail}); restore it from a copy, or use another --db")

    def _columns(self, table: str) -> set[str]:
        return {r[1] for r in self.conn.execute(f"PRAGMA table_info({table})")}

    def _check_columns(self) -> None:
        """BenchError naming what is missing unless every table and column of the file's version is there."""
        missing = []
        for table, columns in schema_columns().items():
            have = self._columns(table)
            if not have:
                missing.append(f"table {table}")
                continue
            added = ADDED_RESULT_COLUMNS if table == "results" else ADDED_COLUMNS
            missing += [f"{table}.{c}" for c in columns if c not in have and added.get(c, (0,))[0] <= self.version]
        if missing:
            raise BenchError(f"{self.path}: not a complete bioik results DB (format version {self.version} without {', '.join(missing)})")

    def _upgrade(self) -> None:
        """Version 1-4 → 5: rebuild `experiments` with the new columns in its identity (SQLite
        cannot change a UNIQUE constraint in place), add `results.claimed`; see the module docstring."""
        new_table = SCHEMA.split("CREATE TABLE experiments", 1)[1].split("-- end of experiments", 1)[0]
        have = self._columns("experiments")
        columns = schema_columns()["experiments"]
        values = ", ".join(c if c in have else ADDED_COLUMNS[c][1] for c in columns)
        try:
            with self.conn:
                self.conn.execute("BEGIN")
                if set(columns) - have:
                    self.conn.execute("CREATE TABLE experiments_new" + new_table.rstrip().rstrip(";"))
                    self.conn.execute(f"INSERT INTO experiments_new ({', '.join(columns)}) SELECT {values} FROM experiments")
                    self.conn.execute("DROP TABLE experiments")
                    self.conn.execute("ALTER TABLE experiments_new RENAME TO experiments")
                for column in set(ADDED_RESULT_COLUMNS) - self._columns("results"):
                    self.conn.execute(f"ALTER TABLE results ADD COLUMN {column} INTEGER")
                self.conn.execute("UPDATE meta SET value=? WHERE key='version'", (str(VERSION),))
        except sqlite3.Error as e:
            raise BenchError(f"{self.path}: cannot upgrade the results DB to format version {VERSION} ({e})") from None
        self.version = VERSION

    def _column(self, name: str) -> str:
        """The SQL that reads experiments column `name` in this file's version."""
        added, default = ADDED_COLUMNS.get(name, (0, name))
        return name if added <= self.version else default

    def checkpoint(self, wait: bool = True) -> None:
        """Copy the write-ahead log into the .db file: then the .db alone holds every committed
        row. wait=False copies what no reader holds back and never waits (for a running run)."""
        if self.writable:
            self.conn.execute(f"PRAGMA wal_checkpoint({'TRUNCATE' if wait else 'PASSIVE'})")

    def close(self) -> None:
        """Close the connection (every committed row stays); a written file goes back to a
        plain rollback journal (a checkpoint), so read-only readers need no WAL files."""
        if self.writable:
            self.conn.execute("PRAGMA journal_mode=DELETE")
        self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @_damage_is_bench_error
    def check_robot(self, robot: str, robot_hash: str) -> None:
        """BenchError unless every experiment of robot name `robot` was run on the robot content
        `robot_hash` (`Robot.fingerprint`): the same name never mixes two robots in one file."""
        hash_col = self._column("robot_hash")
        row = self.conn.execute(f"SELECT id, test, solver, {hash_col} FROM experiments WHERE robot=? AND {hash_col}!=?"
                                " ORDER BY id LIMIT 1", (robot, robot_hash)).fetchone()
        if row is None:
            return
        eid, test, solver, old = row
        where = f"{self.path}: robot {robot!r} (experiment {eid}, {test}/{solver})"
        if not old:
            raise BenchError(f"{where} was stored before robot content was recorded (format version < 3), so its "
                             "robot content is unknown and new results could mix two robots; use a new --db")
        raise BenchError(f"{where} was run on other robot content (hash {old[:12]}, now {robot_hash[:12]}: an edited "
                         "URDF, group or frozen value); use another --db for the changed robot, or the old URDF to resume")

    def experiment(self, robot: str, test: str, solver: str, params: dict[str, Any], timeout: float,
                   targets: Targets, seed: int, seed_mode: str = "random", seed_config: np.ndarray | None = None, *,
                   robot_hash: str, callback: bool = False, notes: Any = ()) -> int:
        """The id of this experiment, creating it (with its targets, in one transaction) if new.

        `robot_hash` is the robot's `fingerprint` (BenchError if `robot` was stored with other
        content, see `check_robot`), the tip is `targets.tip`; `seed_config` (the `fixed`
        mode's configuration) is part of the identity with `seed_mode`, and so is `callback`
        (the solves had the runner's acceptance check as their solution callback). `notes`
        (what a peer's model cannot represent) go into the environment as "notes".
        """
        self.check_robot(robot, robot_hash)
        config = "" if seed_config is None else json.dumps([float(x) for x in seed_config])
        key = (robot, robot_hash, targets.tip, test, solver, json.dumps(params, sort_keys=True), float(timeout), len(targets),
               int(seed), seed_mode, config, int(callback))
        where = ("robot=? AND robot_hash=? AND tip=? AND test=? AND solver=? AND params=? AND timeout=? AND n_targets=?"
                 " AND seed=? AND seed_mode=? AND seed_config=? AND callback=?")
        row = self.conn.execute(f"SELECT id FROM experiments WHERE {where}", key).fetchone()
        if row is not None:
            return int(row[0])
        try:
            with self.conn:
                self.conn.execute("BEGIN")
                cur = self.conn.execute(
                    "INSERT INTO experiments (robot, robot_hash, tip, test, solver, params, timeout, n_targets, seed, seed_mode,"
                    " seed_config, callback, created, environment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*key, time.strftime("%Y-%m-%dT%H:%M:%S%z"), json.dumps({**environment(), **({"notes": list(notes)} if notes else {})})),
                )
                eid = int(cur.lastrowid)
                witnesses = targets.witnesses
                self.conn.executemany(
                    "INSERT INTO targets VALUES (?, ?, ?, ?, ?, ?)",
                    [(eid, i, targets.tip, json.dumps(targets.poses[i].tolist()), json.dumps(targets.seeds[i].tolist()),
                      None if witnesses is None else json.dumps(witnesses[i].tolist())) for i in range(len(targets))],
                )
        except sqlite3.OperationalError as e:
            raise BenchError(f"{self.path}: cannot be written ({e})") from None
        return eid

    def add_result(self, experiment: int, row: ResultRow) -> None:
        """Store one target's result in its own transaction."""
        self.add_results(experiment, [row])

    def add_results(self, experiment: int, rows: list[ResultRow]) -> None:
        """Store targets' results in one transaction (all or none)."""
        with self.conn:
            self.conn.execute("BEGIN")
            self.conn.executemany(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(experiment, row.target_index, int(row.solved), row.time_s, row.callback_calls, row.iterations,
                  row.restarts, row.position_error, row.rotation_error, json.dumps(row.solution),
                  None if row.claimed is None else int(row.claimed)) for row in rows],
            )

    @_damage_is_bench_error
    def done(self, experiment: int) -> set[int]:
        """Target indices of `experiment` that already have a result."""
        return {r[0] for r in self.conn.execute("SELECT target_index FROM results WHERE experiment=?", (experiment,))}

    @_damage_is_bench_error
    def experiments(self) -> list[Experiment]:
        """Every experiment, in creation order (older files: see the module docstring).

        Returns:
            A list of `Experiment`.
        """
        added = ", ".join(self._column(c) for c in ADDED_COLUMNS)
        rows = self.conn.execute(
            f"SELECT id, robot, test, solver, params, timeout, n_targets, seed, created, environment, {added}"
            " FROM experiments ORDER BY id"
        ).fetchall()
        return [Experiment(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6], r[7], r[8], json.loads(r[9]), r[10],
                           json.loads(r[11]) if r[11] else None, r[12], r[13], bool(r[14])) for r in rows]

    @_damage_is_bench_error
    def results(self, experiment: int) -> list[ResultRow]:
        """The stored results of `experiment`, by target index.

        Args:
            experiment: an experiment id.

        Returns:
            A list of `ResultRow`.
        """
        claimed = "claimed" if ADDED_RESULT_COLUMNS["claimed"][0] <= self.version else ADDED_RESULT_COLUMNS["claimed"][1]
        rows = self.conn.execute(
            "SELECT target_index, solved, time_s, callback_calls, iterations, restarts, position_error, rotation_error, solution,"
            f" {claimed} FROM results WHERE experiment=? ORDER BY target_index", (experiment,),
        ).fetchall()
        return [ResultRow(r[0], bool(r[1]), r[2], r[3], r[4], r[5], r[6], r[7], json.loads(r[8]), None if r[9] is None else bool(r[9]))
                for r in rows]

    @_damage_is_bench_error
    def targets(self, experiment: int) -> Targets:
        """The stored targets of `experiment` (what every resumed run solves).

        Args:
            experiment: an experiment id.

        Returns:
            The `Targets`.
        """
        rows = self.conn.execute(
            "SELECT tip, pose, seed_state, witness FROM targets WHERE experiment=? ORDER BY target_index", (experiment,)
        ).fetchall()
        if not rows:
            raise self.damaged(f"experiment {experiment} has no targets")
        witnesses = None if rows[0][3] is None else np.array([json.loads(r[3]) for r in rows])
        return Targets(rows[0][0], np.array([json.loads(r[1]) for r in rows]), np.array([json.loads(r[2]) for r in rows]), witnesses)
