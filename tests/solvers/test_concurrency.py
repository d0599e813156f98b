"""Solving from many threads, processes and nested callbacks gives exactly the serial
answers, and never a false success."""

import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

import bioik
from concurrency_cases import false_success, queries, robot, solve, solve_many


def test_eight_threads_give_the_serial_answers_and_no_false_success():
    qs = queries(8 * 500)
    serial = [solve(q) for q in qs]
    with ThreadPoolExecutor(8) as pool:
        threaded = list(pool.map(solve, qs))
    changed = [k for k, (a, b) in enumerate(zip(serial, threaded)) if a[0] != b[0]]
    assert not changed, f"{len(changed)} of {len(qs)} threaded answers differ from the serial ones, e.g. queries {changed[:5]}"
    false = [k for k, (q, (_, ok, x)) in enumerate(zip(qs, threaded)) if false_success(q, ok, x)]
    assert not false, f"false successes at queries {false[:5]}"
    assert sum(ok for _, ok, _ in threaded) > 0.8 * len(qs)  # the checks above are not vacuous (89 % solve in 120 steps)


def test_processes_give_the_serial_answers():
    qs = queries(300, seed=1)
    serial = [solve(q) for q in qs]
    chunks = [qs[k::2] for k in range(2)]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = list(pool.map(solve_many, chunks))
    by_process = [None] * len(qs)
    for k in range(2):
        by_process[k::2] = parts[k]
    assert [d for d, _, _ in by_process] == [d for d, _, _ in serial]
    assert not any(false_success(q, ok, x) for q, (_, ok, x) in zip(qs, by_process))


def test_one_solver_object_shared_by_threads():
    r = robot("panda")
    solver = bioik.Solver(r, "bio2_lm")
    rng = np.random.default_rng(3)
    targets = [r.link_pose(r.random_configuration(rng), r.tips[0]) for _ in range(200)]
    seeds = r.random_configuration(rng, n=200)

    def one(k):
        # an iteration budget, not the default 5 ms: six threads on a busy machine may need longer
        res = solver.solve([bioik.PoseGoal(r.tips[0], targets[k])], seed=seeds[k], timeout=3600.0, max_iterations=80, random_seed=k)
        return res.q.tobytes(), res.success

    serial = [one(k) for k in range(200)]
    with ThreadPoolExecutor(6) as pool:
        assert list(pool.map(one, range(200))) == serial
    assert len(solver._idle) <= 6  # workspaces are reused, one per concurrent solve


def test_fk_and_jacobian_from_threads():
    r = robot("iiwa14")
    Q = r.random_configuration(5, n=400)
    expected = [(r.link_pose(q, r.tips[0]), r.jacobian(q, r.tips[0]), r.fk(q)) for q in Q]
    errors = []

    def work(offset):
        for k in range(offset, 400, 4):
            got = (r.link_pose(Q[k], r.tips[0]), r.jacobian(Q[k], r.tips[0]), r.fk(Q[k]))
            if not all(np.array_equal(a, b) for a, b in zip(got, expected[k])):
                errors.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_robot_limits_are_read_only():
    r = robot("ur5")
    for a in (r.lower, r.upper, r.frozen):
        assert not a.flags.writeable
    try:
        r.lower[0] = 0.0
    except ValueError:
        pass
    else:
        raise AssertionError("robot.lower accepted an in-place edit")


def test_scene_solves_and_checks_from_eight_threads_match_serial():
    """Collision-aware solves (the collision goal, the exact check as acceptance) and a shared
    CollisionChecker, 8 threads at once: the seeded answers of the serial run, bit for bit,
    and every success collision-free."""
    pytest.importorskip("coal")
    r = robot("ur5")
    scene = bioik.Scene()
    T = np.eye(4)
    T[:3, 3] = (0.0, 0.0, -0.05)
    scene.add_box("table", (1.4, 1.2, 0.04), T)
    for k, (x, y) in enumerate([(0.45, 0.3), (-0.3, 0.45), (0.2, -0.5)]):
        P = np.eye(4)
        P[:3, 3] = (x, y, 0.15)
        scene.add_box(f"post{k}", (0.08, 0.08, 0.3), P)
    checker = bioik.CollisionChecker(r, scene)
    rng = np.random.default_rng(11)
    targets, seeds = [], []
    while len(targets) < 64:
        q = r.random_configuration(rng)
        if checker.is_free(q):
            targets.append(r.link_pose(q, r.tips[0]))
            seeds.append(r.random_configuration(rng))

    def one(k: int):
        res = bioik.solve(r, [bioik.PoseGoal(r.tips[0], targets[k])], seeds[k], scene=scene, timeout=60.0,
                          max_iterations=3000, random_seed=k)
        return res.q.tobytes(), res.success, checker.is_free(res.q)

    serial = [one(k) for k in range(len(targets))]
    with ThreadPoolExecutor(8) as pool:
        threaded = list(pool.map(one, range(len(targets))))
    assert [a[:2] for a in threaded] == [a[:2] for a in serial]
    assert all(free for _, ok, free in threaded if ok)
    assert sum(ok for _, ok, _ in threaded) >= 60
