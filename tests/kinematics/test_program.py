"""FK programs of long chains: built without recursion, one frame per joint."""

import numpy as np
import pytest

import bioik

N = 3000


def chain_urdf(n: int) -> str:
    """n revolute joints about z, 1 mm apart along x, then a fixed tip 1 mm further."""
    joints = "".join(
        f'<link name="l{i + 1}"/><joint name="j{i}" type="revolute"><parent link="l{i}"/><child link="l{i + 1}"/>'
        f'<origin xyz="0.001 0 0"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" velocity="1"/></joint>'
        for i in range(n)
    )
    tip = f'<link name="tip"/><joint name="t" type="fixed"><parent link="l{n}"/><child link="tip"/><origin xyz="0.001 0 0"/></joint>'
    return f'<robot name="chain{n}"><link name="l0"/>{joints}{tip}</robot>'


@pytest.fixture(scope="module")
def long_chain():
    return bioik.load_robot(chain_urdf(N))


def test_long_chain_loads_and_runs_fk(long_chain):
    robot = long_chain
    assert robot.dof == N and robot.tips == ["tip"]
    q = np.full(N, 2 * np.pi / (N + 1))  # N + 1 equal edges turning by a full turn in all: a closed polygon
    poses = robot.fk(q)
    assert poses.shape == (N + 2, 4, 4)
    np.testing.assert_allclose(poses[-1][:3, 3], [0.0, 0.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(robot.fk(np.zeros(N), ["tip"])[0][:3, 3], [0.001 * (N + 1), 0, 0], atol=1e-9)


def test_program_for_the_tip_alone_walks_the_whole_chain(long_chain):
    """The program for one deep link used to recurse once per joint (RecursionError at ~1000)."""
    program = long_chain.program_for(["tip"])
    assert program.n_segments == N and program.seg_i[-1, 0] == N - 2
    np.testing.assert_array_equal(program.seg_i[1:, 0], np.arange(N - 1))
