"""Distributed runs on a dask cluster (`--scheduler ADDRESS` of `bioik bench run`, `bioik
bench tune` and `bioik reach`; needs the `[dist]` extra: dask.distributed).

ADDRESS is a running scheduler (`tcp://host:8786`, started with `dask scheduler` and
`dask worker tcp://host:8786 --nthreads 1` on the machines: one thread per process, as the
solves are timed) or `local`: a `LocalCluster` of `--workers` processes on this
machine (default: one per CPU), one thread each, started for the command and stopped after.
The workers import bioik themselves: on another machine it must be installed there (the same
version). The robot, targets and scene go to them as this process loaded them, but the
collision meshes a URDF names are read where they are needed (scene tests, reach): on
another machine they must be at the same path (the bundled robots' are in the package).

The work goes out as chunks of targets (`--chunk-size`, default: about four chunks per
worker thread, at most `MAX_CHUNK`). A task solves its chunk and returns the rows; only the client
writes them into the one SQLite file, a chunk in one transaction, as chunks finish. Each
worker makes a job ready once — loads or compiles the solver's kernels and warms it up
(`runner.Job.ready`) — and keeps it for the job's later chunks (`_run`), so the timed
solves of a worker are as warm as those of a local run. When a worker dies, the scheduler
runs its unfinished chunks again elsewhere: a chunk's rows reach the client once, whole or
not at all, so no target is lost or stored twice; Ctrl-C cancels what is still out, and
the same command resumes (the rows in the file are not solved again).

This module imports dask only in `DaskPool`, so building the parser costs nothing.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any

#: The most targets in one chunk (a killed worker's lost work, the client's wait for rows).
MAX_CHUNK = 500
#: Chunks per worker thread when --chunk-size is not given: two leave a worker that drew
#: the slower chunk one to balance with, while each chunk still carries enough solving to
#: pay for its round trip (2000 0.05 ms ur5 solves on 2 workers: 0.54-0.59x the one-process
#: time with 2 chunks each, 0.62-0.66x with 4; `benchmarks/dask_ratio.py`).
CHUNKS_PER_WORKER = 2
#: Jobs a worker keeps ready (a tune study makes one per trial).
KEEP_READY = 8
INSTALL_HINT = "pip install 'bioik[dist]'"

_READY: OrderedDict[tuple, Callable[[Any], Any]] = OrderedDict()
_READY_LOCK = threading.Lock()


def add_arguments(parser: argparse.ArgumentParser, chunks: bool = True) -> None:
    """Add --scheduler and --workers (and --chunk-size if `chunks`) to a command's parser."""
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on a dask cluster: a scheduler address (tcp://host:8786) or 'local' (a LocalCluster "
                             f"on this machine); needs {INSTALL_HINT}. Default: in this process")
    parser.add_argument("--workers", type=int, metavar="N", help="worker processes of --scheduler local (default: one per CPU)")
    if chunks:
        parser.add_argument("--chunk-size", type=int, metavar="N",
                            help=f"targets per task with --scheduler (default: about {CHUNKS_PER_WORKER} tasks per "
                                 f"worker thread, at most {MAX_CHUNK})")


def cluster_options(args: argparse.Namespace) -> dict[str, Any] | None:
    """The `DaskPool` arguments of --scheduler, --workers, --chunk-size (None without
    --scheduler); ValueError for an option given without it or out of range."""
    chunk_size = getattr(args, "chunk_size", None)
    if args.scheduler is None:
        given = [opt for opt, value in (("--workers", args.workers), ("--chunk-size", chunk_size)) if value is not None]
        if given:
            raise ValueError(f"{' and '.join(given)} need{'s' if len(given) == 1 else ''} --scheduler")
        return None
    if args.workers is not None and args.scheduler != "local":
        raise ValueError("--workers sets the size of --scheduler local; a running cluster has its own workers")
    for opt, value in (("--workers", args.workers), ("--chunk-size", chunk_size)):
        if value is not None and value < 1:
            raise ValueError(f"{opt} must be ≥ 1; got {value}")
    return {"address": args.scheduler, "workers": args.workers, "chunk_size": chunk_size}


class DaskPool:
    """A dask client: chunks run on its cluster's workers (a `runner.Pool`).

    A script that starts a LocalCluster needs the `if __name__ == "__main__":` guard: its
    workers are spawned processes, which import the script's main module.

    Args:
        address: a scheduler address, or "local" to start a LocalCluster here.
        workers: the LocalCluster's worker processes (default: one per CPU).
        chunk_size: targets per chunk (default: see `chunk_size`).
    """

    def __init__(self, address: str, workers: int | None = None, chunk_size: int | None = None):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ImportError(f"--scheduler runs on dask.distributed: {INSTALL_HINT}") from None
        self.cluster = None
        if address == "local":
            self.cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                                        dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(address, timeout="30s")
            except OSError as e:
                raise ValueError(f"--scheduler {address}: cannot reach the dask scheduler ({e})") from None
        self._chunk_size = chunk_size

    @property
    def slots(self) -> int:
        """How many tasks the cluster runs at once now: its worker threads (at least 1: a
        cluster may still be starting its workers)."""
        return max(1, sum(self.client.nthreads().values()))

    def chunk_size(self, n: int) -> int:
        """Targets per chunk for `n` targets: --chunk-size, else about CHUNKS_PER_WORKER per slot."""
        if self._chunk_size is not None:
            return self._chunk_size
        return max(1, min(MAX_CHUNK, math.ceil(n / (CHUNKS_PER_WORKER * self.slots))))

    def map(self, job: Any, chunks: list[Any]) -> Iterator[Any]:
        """`job.ready()(chunk)` of every chunk on the workers, yielded as they finish; what is
        still out when the caller stops (Ctrl-C, an error) is cancelled."""
        return (result for _, result in self.unordered(((job, chunk, None) for chunk in chunks), width=len(chunks)))

    def unordered(self, tasks: Iterable[tuple[Any, Any, Any]], width: int) -> Iterator[tuple[Any, Any]]:
        """(tag, `job.ready()(chunk)`) of each (job, chunk, tag) of `tasks`, in the order they
        finish, with at most `width` out at once: `tasks` is drawn from only when one is done
        (a tune study asks its next trial then)."""
        from distributed import as_completed

        tasks = iter(tasks)
        running = as_completed()
        out: dict[str, tuple[Any, Any]] = {}  # key: (future, tag)

        def submit(job: Any, chunk: Any, tag: Any) -> None:
            future = self.client.submit(_run, job, chunk, pure=False)
            out[future.key] = (future, tag)
            running.add(future)

        try:
            for task in islice(tasks, width):
                submit(*task)
            for future in running:
                _, tag = out.pop(future.key)
                yield tag, future.result()
                for task in islice(tasks, 1):  # refill the slot
                    submit(*task)
        finally:
            self.client.cancel([future for future, _ in out.values()])

    def close(self) -> None:
        """Disconnect (and stop the LocalCluster of `local`)."""
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self) -> DaskPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _run(job: Any, chunk: Any) -> Any:
    """A worker's task: `chunk` solved by `job`, made ready once per worker process."""
    with _READY_LOCK:
        ready = _READY.get(job.key)
        if ready is not None:
            _READY.move_to_end(job.key)
    if ready is None:
        ready = job.ready()  # outside the lock: a worker's other threads go on meanwhile
        with _READY_LOCK:
            _READY[job.key] = ready
            while len(_READY) > KEEP_READY:
                _READY.popitem(last=False)
    return ready(chunk)
