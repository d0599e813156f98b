"""The compiled clock, and Ctrl-C stopping a long compiled solve in the main thread."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import bioik
from bioik.solvers.core.clock import now


def test_now_is_time_monotonic():
    a = time.monotonic()
    t = now()
    b = time.monotonic()
    assert a - 1e-3 <= t <= b + 1e-3


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


def _far_goals(robot, secondary):
    T = robot.link_pose(robot.center(), "tool0")
    T[:3, 3] = [5.0, 0.0, 0.0]  # out of reach: the search runs to its deadline
    goals = [bioik.PoseGoal("tool0", T)]
    return goals + [bioik.CenterJointsGoal(weight=0.05, secondary=True)] if secondary else goals


def _signal_later(delay):
    sent = []

    def send():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)  # to the process, as a terminal does

    timer = threading.Timer(delay, send)
    timer.start()
    return timer, sent


# lm and kdl one-pose queries run as one compiled call; the secondary goal takes lm and
# bio2_lm through the general search
@pytest.mark.parametrize("solver, secondary", [("lm", False), ("lm", True), ("kdl", False), ("bio2_lm", True)])
def test_ctrl_c_stops_a_long_compiled_solve(ur5, solver, secondary):
    goals = _far_goals(ur5, secondary)
    reach = [bioik.PoseGoal("tool0", ur5.link_pose(np.full(6, 0.3), "tool0"))]
    before = bioik.solve(ur5, reach, seed=ur5.center(), solver=solver, random_seed=3, max_iterations=200, timeout=10.0)
    timer, sent = _signal_later(0.2)
    with pytest.raises(KeyboardInterrupt):
        bioik.solve(ur5, goals, solver=solver, timeout=60.0)
    stopped = time.monotonic()
    timer.join()
    assert sent and stopped - sent[0] < 2.0  # not the 60 s timeout (the note measures ~1 ms)
    after = bioik.solve(ur5, reach, seed=ur5.center(), solver=solver, random_seed=3, max_iterations=200, timeout=10.0)
    np.testing.assert_array_equal(after.q, before.q)  # nothing left behind by the interruption
    assert after.iterations == before.iterations


def test_ctrl_c_runs_the_users_own_handler(ur5):
    """A Python SIGINT handler of the user's own still runs; the solve ends early, unsolved."""
    calls = []
    previous = signal.signal(signal.SIGINT, lambda sig, frame: calls.append(sig))
    try:
        timer, sent = _signal_later(0.2)
        res = bioik.solve(ur5, _far_goals(ur5, False), solver="lm", timeout=60.0)
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert calls == [signal.SIGINT]
    assert not res.success and res.time < 2.0

