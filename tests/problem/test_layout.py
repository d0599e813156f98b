"""The problem buffers: `unpack` (compiled) and `views` (Python) give the same named
sections, cut as `SECTIONS` declares them."""

import numpy as np

import bioik
from bioik.problem.layout import HEADER, SECTIONS, ProblemViews, unpack, views


def problem():
    robot = bioik.load_robot("panda")
    goals = [
        bioik.PoseGoal(robot.tips[0], np.eye(4)),
        bioik.PositionGoal(robot.tips[0], [0.1, 0.2, 0.3]),
        bioik.CenterJointsGoal(weight=0.1, secondary=True),
    ]
    return bioik.Solver(robot, "bio2_memetic").problem(goals)


def test_compiled_and_python_views_agree_and_share_the_buffers():
    p = problem()
    compiled, python = unpack(p.ibuf, p.fbuf), views(p.ibuf, p.fbuf)
    assert type(python) is ProblemViews and compiled._fields == ProblemViews._fields
    for name in ProblemViews._fields:
        a, b = getattr(compiled, name), getattr(python, name)
        assert a.shape == b.shape and a.dtype == b.dtype and a.flags.c_contiguous, name
        np.testing.assert_array_equal(a, b)
        assert a.size == 0 or np.shares_memory(a, b)  # views, not copies: kernels write through them
    compiled.gf[1, 2] = 42.0
    assert python.gf[1, 2] == 42.0


def test_sections_are_declared_once_and_tile_the_buffers():
    assert sorted(name for name, _, _ in SECTIONS) == sorted(ProblemViews._fields)
    p = problem()
    v = views(p.ibuf, p.fbuf)
    ends = {"i": HEADER, "f": 0}
    for name, buf, _ in SECTIONS:
        a = getattr(v, name)
        base = p.ibuf if buf == "i" else p.fbuf
        start = (a.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
        assert a.size == 0 or start == ends[buf], name  # each section starts where the one before ends
        ends[buf] += a.size
    assert (ends["i"], ends["f"]) == (p.ibuf.size, p.fbuf.size)
