"""Batches of independent queries of one goal structure: what a batch is (`GoalBatch`, or
a list of goal lists), its checked inputs, its result (`BatchResult`), and the threads
that run it chunk by chunk. `Solver.solve_batch` (`bioik.solvers.api`) solves the chunks.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np

from bioik.goals.base import Goal
from bioik.kinematics.robot import Robot

#: Queries per chunk at most: a chunk is the unit a free thread takes, so chunks this
#: small keep the threads equally busy while Python's cost per chunk (≈ 2 µs) stays
#: negligible beside 64 solves.
CHUNK = 64


class GoalBatch:
    """N queries made from one goal list by varying the targets of some of its goals.

    goals: the template; targets: goal 0's targets, one per query (N 4×4 poses for a
    `PoseGoal`, N points for a `PositionGoal`, N rotations — 3×3 or w, x, y, z — for an
    `OrientationGoal`; a goal's `target_field`), or {goal index: targets} to vary several.
    Query i is the template with target i in each varied goal; weights, tolerances and
    the other goals stay the template's. The fastest input to `solve_batch`: a single
    pose goal's N targets become N parameter rows in one compiled loop, no goal objects.
    """

    def __init__(self, goals: Sequence[Goal], targets: Any):
        if isinstance(goals, Goal) or not isinstance(goals, Sequence) or not goals:
            raise TypeError("GoalBatch: goals must be a non-empty list of goals (the template), e.g. [bioik.PoseGoal(tip, pose)]")
        self.goals = list(goals)
        varied = targets if isinstance(targets, Mapping) else {0: targets}
        if not varied:
            raise ValueError("GoalBatch: targets is empty: vary at least one goal")
        self.targets: dict[int, Any] = {}
        for k, t in varied.items():
            if type(k) is not int or not 0 <= k < len(self.goals):
                raise ValueError(f"GoalBatch: targets key {k!r} is not the index of a goal (0 … {len(self.goals) - 1})")
            g = self.goals[k]
            if not isinstance(g, Goal) or g.target_field is None:
                raise TypeError(f"GoalBatch: goal {k} ({type(g).__name__}) has no target to vary; "
                                "give the batch as a list of goal lists instead")
            if not hasattr(t, "__len__"):
                raise TypeError(f"GoalBatch: the targets of goal {k} must be a sequence or array, one target per query")
            self.targets[k] = t
        lengths = {k: len(t) for k, t in self.targets.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"GoalBatch: the goals' targets differ in number (goal: count {lengths}); give one per query each")
        self.n = next(iter(lengths.values()))

    def __len__(self) -> int:
        return self.n

    def query(self, i: int) -> list[Goal]:
        """The goals of query i."""
        return [g.with_target(self.targets[k][i]) if k in self.targets else g for k, g in enumerate(self.goals)]


@dataclass(slots=True)
class BatchResult:
    """Outcome of N queries, as arrays: row i is query i's `Result`.

    q (N, dof); success, seed_clipped (N,) bool; cost, time (N,) float (time: seconds of
    that query's solve); goal_errors (N, goals, 2) as `Result.goal_errors`; iterations,
    restarts, callback_calls (N,) int; solver: the solver that ran.
    """

    q: np.ndarray
    success: np.ndarray
    cost: np.ndarray
    goal_errors: np.ndarray
    time: np.ndarray
    iterations: np.ndarray
    restarts: np.ndarray
    callback_calls: np.ndarray
    seed_clipped: np.ndarray
    solver: str

    def __len__(self) -> int:
        return len(self.q)

    @classmethod
    def of(cls, results: Sequence[Any]) -> BatchResult:
        """The arrays of a list of `Result`s."""
        return cls(
            q=np.array([r.q for r in results]),
            success=np.array([r.success for r in results]),
            cost=np.array([r.cost for r in results]),
            goal_errors=np.array([r.goal_errors for r in results]),
            time=np.array([r.time for r in results]),
            iterations=np.array([r.iterations for r in results], dtype=np.int64),
            restarts=np.array([r.restarts for r in results], dtype=np.int64),
            callback_calls=np.array([r.callback_calls for r in results], dtype=np.int64),
            seed_clipped=np.array([r.seed_clipped for r in results]),
            solver=results[0].solver,
        )


def as_batch(goals_batch: Any) -> GoalBatch | list[list[Goal]]:
    """goals_batch checked: a `GoalBatch`, or a non-empty list of goal lists with the same
    number of goals each (one goal structure; `Solver` checks the goals themselves)."""
    if isinstance(goals_batch, GoalBatch):
        if goals_batch.n == 0:
            raise ValueError("goals_batch has no queries (its targets are empty)")
        return goals_batch
    if isinstance(goals_batch, Goal) or not isinstance(goals_batch, Sequence) or isinstance(goals_batch, (str, bytes)):
        raise TypeError("goals_batch must be a bioik.GoalBatch or a list of goal lists, one per query; "
                        f"got {type(goals_batch).__name__}")
    if not goals_batch:
        raise ValueError("goals_batch has no queries")
    out = []
    for i, goals in enumerate(goals_batch):
        if isinstance(goals, Goal) or not isinstance(goals, Sequence):
            raise TypeError(f"goals_batch[{i}] must be a list of goals (one query); got {type(goals).__name__}")
        if len(goals) != len(goals_batch[0]):
            raise ValueError(f"goals_batch[{i}] has {len(goals)} goals and goals_batch[0] {len(goals_batch[0])}: "
                             "a batch is one goal structure")
        out.append(goals if type(goals) is list else list(goals))
    return out


def batch_seeds(robot: Robot, seeds: Any, n: int) -> np.ndarray | None:
    """The seeds as a fresh C-ordered (n, dof) array: None (random starts), one
    configuration for every query, or one per query; NaN, inf and shapes refused."""
    if seeds is None:
        return None
    try:
        Q = np.array(seeds, dtype=np.float64, order="C")
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"seeds must be numbers: an array ({n}, {robot.dof}), one configuration, or None") from None
    if Q.shape == (robot.dof,):
        Q = np.repeat(Q[None], n, axis=0)
    if Q.shape != (n, robot.dof):
        raise ValueError(f"seeds must have shape ({n}, {robot.dof}) — one configuration of {robot.dof} values per query — "
                         f"or ({robot.dof},); got {Q.shape}")
    bad = np.flatnonzero(~np.isfinite(Q).all(axis=1))
    if len(bad):
        raise ValueError(f"seeds[{bad[0]}] contains NaN or inf")
    return Q


def thread_count(threads: Any) -> int:
    """threads checked (None: every core this process may run on)."""
    if threads is None:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if type(threads) is bool or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads must be an int >= 1 or None (every core); got {threads!r}")
    return int(threads)


#: The worker threads every batch shares (grown to the most workers a batch has asked
#: for): a pool made per call cost a thread start and join per worker, ≈ 0.1 ms each, which
#: a batch of small rounds (`solve_batch(..., scene=)`) pays many times.
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_lock = threading.Lock()


def _shared_pool(k: int) -> ThreadPoolExecutor:
    """The shared pool, with at least k threads."""
    global _pool, _pool_size
    with _pool_lock:
        if _pool is None or _pool_size < k:
            old, _pool, _pool_size = _pool, ThreadPoolExecutor(k, thread_name_prefix="bioik-batch"), k
            if old is not None:
                old.shutdown(wait=False)  # its threads end once their current loops do
        return _pool


def run_chunks(n: int, workers: Sequence[Callable[[int, int], None]], size: int | None = None) -> None:
    """Run queries 0 … n−1 in chunks (of `size` queries; None: `chunk_size`), `worker(first, last)` each: the first
    worker on the calling thread, the others on the shared pool's threads; a thread takes
    the next chunk when it finishes one, so a slow chunk delays no other thread. A worker
    the pool has not started by the time the chunks are gone is dropped (so a batch run
    from inside a pool thread never waits on a busy pool). The first error (or Ctrl-C)
    stops the other threads before their next chunk and is raised here once they have
    stopped."""
    if size is None:
        size = chunk_size(n, len(workers))
    starts = iter(range(0, n, size))
    lock = threading.Lock()
    stop = threading.Event()

    def loop(work: Callable[[int, int], None]) -> None:
        while not stop.is_set():
            with lock:
                first = next(starts, None)
            if first is None:
                return
            try:
                work(first, min(first + size, n))
            except BaseException:
                stop.set()
                raise

    if len(workers) == 1:
        loop(workers[0])
        return
    pool = _shared_pool(len(workers) - 1)
    futures = [pool.submit(loop, w) for w in workers[1:]]
    try:
        loop(workers[0])
    except BaseException:  # Ctrl-C between chunks too
        stop.set()
        raise
    finally:
        running = [f for f in futures if not f.cancel()]
        wait(running)
    for f in running:
        f.result()  # raises a worker's error


def chunk_size(n: int, threads: int) -> int:
    """Queries per chunk: `CHUNK`, or fewer so that each thread gets several chunks."""
    return max(1, min(CHUNK, n // (4 * threads)))
