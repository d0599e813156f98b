"""Reachability studies (REACH-style [E 3.2.2]): how much of an object's surface a robot's
tool reaches, collision-free.

Tool poses are sampled area-uniformly on the surfaces of the object's obstacles
(`trimesh.sample`, seeded), the tool's z axis along the inward normal with a random roll
about it (`bioik.scenes.surfaces.tool_poses`), backed off `standoff` metres along the
normal so the tool faces the surface without touching it. Each pose is solved with the
object as obstacles (`bioik.solve(..., scene=)`: the collision goal for solvers that take
it, coal's exact check always; the link carrying the tool may touch the sampled obstacles
there, see `solving_scene`) from a seeded random start, and checked again here: within
limits, at the pose (1e-5 m, 1e-5 rad) and collision-free by coal against the object as
given, tool link included. A point is reachable when its answer passes.

Each process solving points first warms its solver up with one solve (`Reacher`), so no
point's time includes compiling. With `bioik reach --scheduler` the points go to a dask
cluster in chunks (`bioik.bench.distributed`); each worker warms up once and this process
stores each chunk's rows as it comes back.

A study lives in one SQLite file: its parameters, then one row per point, committed as it
is solved, so Ctrl-C keeps what is done and the same command resumes (a file made with
other parameters is refused, naming the difference). `report` gives the coverage and
`picture` draws the points coloured by reachability.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

import bioik
from bioik.bench.targets import DEFAULT_TOLERANCES, pose_errors
from bioik.errors import ReachError as ReachError
from bioik.kinematics.robot import Robot
from bioik.scene import Scene
from bioik.scenes.surfaces import tool_poses

if TYPE_CHECKING:
    from bioik.bench.runner import Pool

FORMAT = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS study (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS points (
    i INTEGER PRIMARY KEY, obstacle TEXT NOT NULL, x REAL, y REAL, z REAL, nx REAL, ny REAL, nz REAL,
    reached INTEGER NOT NULL, time_s REAL NOT NULL, position_error REAL, rotation_error REAL, q TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class Study:
    """What defines a study (stored in its file; a resumed run must match it)."""

    robot: str
    robot_hash: str
    tip: str
    object: str
    obstacles: tuple[str, ...]
    samples: int
    seed: int
    solver: str
    timeout: float
    standoff: float


@dataclass(frozen=True)
class Coverage:
    """A study's result: points solved so far, reached, and per obstacle (reached, solved)."""

    solved: int
    reached: int
    per_obstacle: dict[str, tuple[int, int]]
    median_ms: float

    @property
    def percent(self) -> float:
        return 100.0 * self.reached / self.solved if self.solved else float("nan")


def sample(scene: Scene, obstacles: tuple[str, ...], n: int, seed: int, standoff: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """(tool poses (n, 4, 4), surface points (n, 3), outward normals (n, 3), obstacle of each
    point): n area-uniform samples on the named obstacles' surfaces (world frame)."""
    import trimesh

    meshes, owners = [], []
    for name in obstacles:
        obstacle = scene.obstacles[name]
        mesh = obstacle.shape.trimesh().copy()
        mesh.apply_transform(obstacle.pose)
        meshes.append(mesh)
        owners += [name] * len(mesh.faces)
    mesh = trimesh.util.concatenate(meshes)
    if mesh.area <= 0.0:
        raise ReachError(f"the object ({', '.join(obstacles)}) has no surface to sample")
    points, faces = trimesh.sample.sample_surface(mesh, n, seed=seed)
    normals = mesh.face_normals[faces]
    poses = tool_poses(points + standoff * normals, normals, np.random.default_rng(seed))
    return poses, points, normals, [owners[f] for f in faces]


class ReachStore:
    """One study's SQLite file (created when missing)."""

    def __init__(self, path: str | Path, study: Study):
        self.path = Path(path)
        self.conn = sqlite3.connect(self.path)
        try:
            self.conn.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            self.conn.close()
            raise ReachError(f"{self.path}: not a reach study file ({e})") from None
        stored = dict(self.conn.execute("SELECT key, value FROM study").fetchall())
        wanted = {"format": str(FORMAT), "study": json.dumps(asdict(study), sort_keys=True)}
        if not stored:
            with self.conn:
                self.conn.executemany("INSERT INTO study VALUES (?, ?)", wanted.items())
        elif stored != wanted:
            self.conn.close()
            raise ReachError(f"{self.path} holds another study ({_difference(stored, wanted)}); use another --db")

    def done(self) -> set[int]:
        return {r[0] for r in self.conn.execute("SELECT i FROM points")}

    def add(self, rows: list[tuple[int, str, np.ndarray, np.ndarray, bool, float, tuple[float, float], np.ndarray]]) -> None:
        """Store solved points, each (i, obstacle, point, normal, reached, time_s, errors, q), in one transaction."""
        with self.conn:
            self.conn.executemany("INSERT INTO points VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                  [(i, obstacle, *map(float, point), *map(float, normal), int(reached), time_s, *errors,
                                    json.dumps([float(x) for x in q]))
                                   for i, obstacle, point, normal, reached, time_s, errors, q in rows])

    def rows(self) -> list[tuple]:
        """(i, obstacle, x, y, z, reached, time_s) of every solved point, by index."""
        return self.conn.execute("SELECT i, obstacle, x, y, z, reached, time_s FROM points ORDER BY i").fetchall()

    def close(self) -> None:
        self.conn.close()


def _difference(stored: dict[str, str], wanted: dict[str, str]) -> str:
    if stored.get("format") != wanted["format"]:
        return f"format {stored.get('format')}, expected {wanted['format']}"
    old, new = json.loads(stored["study"]), json.loads(wanted["study"])
    return "; ".join(f"{k} {old.get(k)!r}, not {new[k]!r}" for k in new if old.get(k) != new[k])


def tool_link(robot: Robot, tip: str) -> str:
    """The link that carries the tool: `tip` or its nearest ancestor with collision geometry."""
    from bioik.collision.link_geometry import link_pieces

    model = robot.model
    link = model.link_index(tip)
    while not link_pieces(model.links[link]) and model.parent_joint[link] >= 0:
        link = model.joints[model.parent_joint[link]].parent
    return model.links[link].name


def solving_scene(robot: Robot, scene: Scene, study: Study) -> Scene:
    """The scene the solver sees: `scene` with the tool link allowed to touch the sampled
    obstacles. The pose goal fixes that link in front of the surface, but the collision
    goal's sphere cover reaches beyond the link's geometry and would forbid every pose at a
    small standoff; the answer is then checked against `scene` itself, tool link included."""
    out = Scene()
    for obstacle in scene:
        out.add(obstacle.name, obstacle.shape, obstacle.pose)
    for link, obstacle in scene.allowed_contacts:
        out.allow_contact(obstacle, link)
    tool = tool_link(robot, study.tip)
    for name in study.obstacles:
        out.allow_contact(name, tool)
    return out


@dataclass(frozen=True)
class ReachJob:
    """A study's solves, picklable: what a process needs to solve any of its points (a dask
    worker gets it with each chunk, see `bioik.bench.distributed`)."""

    robot: Robot
    study: Study
    scene: Scene

    @property
    def key(self) -> tuple:
        """What tells two jobs apart (a worker keeps one `Reacher` per key)."""
        return "reach", json.dumps(asdict(self.study), sort_keys=True)

    def ready(self) -> Reacher:
        """This job made ready in this process, warmed up."""
        return Reacher(self.robot, self.study, self.scene)


class Reacher:
    """One process's solver of a study's points: the solver, the scene it sees and the exact
    checker, warmed up by one solve (compiling or loading its kernels) before any is timed."""

    def __init__(self, robot: Robot, study: Study, scene: Scene):
        from bioik.collision import CollisionChecker

        self.robot, self.study = robot, study
        self.checker = CollisionChecker(robot, scene)
        self.solving = solving_scene(robot, scene, study)
        self.solver = bioik.Solver(robot, study.solver)
        q = robot.center()
        self.solver.solve([bioik.PoseGoal(study.tip, robot.link_pose(q, study.tip))], seed=q, timeout=study.timeout,
                          random_seed=0, max_iterations=1, scene=self.solving)

    def point(self, i: int, T: np.ndarray, start: np.ndarray) -> tuple[int, bool, float, tuple[float, float], np.ndarray]:
        """(i, reached?, solve time, (position, rotation) error, answer) of point i, tool pose T."""
        study, robot = self.study, self.robot
        t0 = time.perf_counter()
        res = self.solver.solve([bioik.PoseGoal(study.tip, T)], seed=start, timeout=study.timeout, random_seed=study.seed + i,
                                scene=self.solving)
        elapsed = time.perf_counter() - t0
        dp, angle = pose_errors(robot, study.tip, T, res.q)
        reached = (bool(robot.within_limits(res.q)) and dp <= DEFAULT_TOLERANCES[0] and angle <= DEFAULT_TOLERANCES[1]
                   and self.checker.is_free(res.q))
        return i, reached, elapsed, (dp, angle), res.q

    def __call__(self, chunk: list[tuple[int, np.ndarray, np.ndarray]]) -> list[tuple]:
        """The `point` of each (i, T, start) of `chunk` (a worker's task)."""
        return [self.point(*item) for item in chunk]


def run(store: ReachStore, robot: Robot, study: Study, scene: Scene, progress=None, pool: Pool | None = None) -> None:
    """Solve the study's points missing from `store` (in index order here; in chunks on a
    dask cluster with a `pool`, each chunk stored in one transaction as it comes back).
    KeyboardInterrupt leaves every finished row stored. `progress(done, total)` is called
    after each row or chunk."""
    poses, points, normals, owners = sample(scene, study.obstacles, study.samples, study.seed, study.standoff)
    starts = robot.random_configuration(np.random.default_rng(study.seed + 1), study.samples).reshape(study.samples, robot.dof)
    done = store.done()
    todo = [(i, poses[i], starts[i]) for i in range(study.samples) if i not in done]
    if pool is None:
        reacher = Reacher(robot, study, scene)
        batches: Iterator[list[tuple]] = ([reacher.point(*item)] for item in todo)
    else:
        size = pool.chunk_size(len(todo))
        batches = pool.map(ReachJob(robot, study, scene), [todo[k:k + size] for k in range(0, len(todo), size)])
    for rows in batches:
        store.add([(i, owners[i], points[i], normals[i], *row) for i, *row in rows])
        done.update(row[0] for row in rows)
        if progress is not None:
            progress(len(done), study.samples)


def coverage(store: ReachStore) -> Coverage:
    """The coverage of the points solved so far."""
    rows = store.rows()
    per: dict[str, tuple[int, int]] = {}
    for _, obstacle, *_, reached, _ in rows:
        r, n = per.get(obstacle, (0, 0))
        per[obstacle] = (r + reached, n + 1)
    times = [r[6] * 1e3 for r in rows]
    return Coverage(len(rows), sum(r[5] for r in rows), per, float(np.median(times)) if times else float("nan"))


def report(study: Study, cov: Coverage) -> str:
    """A few lines: the study, the share reached, per obstacle, the median solve time."""
    lines = [f"reach: {study.robot} ({study.tip}) on {study.object}, {study.solver}, timeout {study.timeout * 1e3:g} ms, "
             f"standoff {study.standoff * 1e3:g} mm, seed {study.seed}",
             f"reachable: {cov.reached}/{cov.solved} points ({cov.percent:.1f} %), median solve {cov.median_ms:.2f} ms"]
    if cov.solved < study.samples:
        lines.append(f"({study.samples - cov.solved} of {study.samples} points not solved yet: run the same command again)")
    lines += [f"  {name}: {r}/{n} ({100.0 * r / n:.1f} %)" for name, (r, n) in sorted(cov.per_obstacle.items())]
    return "\n".join(lines)


def picture(store: ReachStore, study: Study, path: str | Path) -> Path:
    """The solved points in 3D, green where reached, red where not, the robot's base at the
    origin; PNG at `path`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = store.rows()
    xyz = np.array([r[2:5] for r in rows]).reshape(-1, 3)
    ok = np.array([bool(r[5]) for r in rows], dtype=bool)
    fig = plt.figure(figsize=(6.4, 5.6), dpi=100)
    ax = fig.add_subplot(projection="3d")
    ax.scatter(*xyz[~ok].T, s=4, c="tab:red", label=f"not reached ({np.count_nonzero(~ok)})", depthshade=False)
    ax.scatter(*xyz[ok].T, s=4, c="tab:green", label=f"reached ({np.count_nonzero(ok)})", depthshade=False)
    ax.scatter([0.0], [0.0], [0.0], s=60, c="black", marker="^", label="robot base")
    span = np.vstack([xyz, np.zeros((1, 3))])
    centre, half = (span.max(0) + span.min(0)) / 2, max((span.max(0) - span.min(0)).max() / 2, 1e-3)
    ax.set(xlim=(centre[0] - half, centre[0] + half), ylim=(centre[1] - half, centre[1] + half),
           zlim=(centre[2] - half, centre[2] + half), xlabel="x (m)", ylabel="y (m)", zlabel="z (m)")
    pct = 100.0 * np.count_nonzero(ok) / max(len(ok), 1)
    ax.set_title(f"{study.robot} on {Path(study.object).name}: {pct:.1f} % reachable")
    ax.legend(loc="upper left", fontsize=8)
    path = Path(path)
    fig.savefig(path)
    plt.close(fig)
    return path
