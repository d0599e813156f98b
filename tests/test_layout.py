"""The problem buffers: `unpack` (compiled) and `views` (Python) give the same views."""

import numpy as np

import bioik
from bioik.goals.layout import unpack, views


def test_compiled_and_python_views_agree_and_share_the_buffers():
    robot = bioik.load_robot("panda")
    goals = [
        bioik.PoseGoal(robot.tips[0], np.eye(4)),
        bioik.PositionGoal(robot.tips[0], [0.1, 0.2, 0.3]),
        bioik.CenterJointsGoal(weight=0.1, secondary=True),
    ]
    problem = bioik.Solver(robot, "bio2_memetic").problem(goals)
    compiled, python = unpack(problem.ibuf, problem.fbuf), views(problem.ibuf, problem.fbuf)
    assert len(compiled) == len(python) == 10
    for a, b in zip(compiled, python):
        assert a.shape == b.shape and a.dtype == b.dtype and a.flags.c_contiguous
        np.testing.assert_array_equal(a, b)
        assert np.shares_memory(a, b)  # views, not copies: kernels write through them
    gf = compiled[5]
    gf[1, 2] = 42.0
    assert python[5][1, 2] == 42.0
