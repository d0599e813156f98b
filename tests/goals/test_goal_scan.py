"""ScanGoal [E 8.13]: the camera's distance, FOV angle and normal angle, each scored by the
swamp loss (a1 = 1, a2 = 0.1, n = 8, m = 2), met exactly inside the walls."""

import numpy as np
import pytest
from goal_helpers import assert_jacobian, residual, tree

import bioik
from bioik import ScanGoal
from bioik.goals.acceptance import acceptable_cost
from bioik.goals.swamp import swamp, swamp_b

#: [E 8.13]'s swamp parameters and our polynomial degree m.
A1, A2, NW, M = 1.0, 0.1, 8.0, 2.0


def angle(u: np.ndarray, v: np.ndarray) -> float:
    return float(np.arctan2(np.linalg.norm(np.cross(u, v)), np.dot(u, v)))


def criteria(T: np.ndarray, goal: ScanGoal) -> tuple[float, float, float]:
    """(distance, FOV angle, normal angle) of the camera at link pose T, computed here."""
    p, a = T[:3, 3], T[:3, :3] @ goal.axis
    return float(np.linalg.norm(goal.target - p)), angle(a, goal.target - p), angle(-a, goal.normal)


def walls(goal: ScanGoal) -> list[tuple[float, float]]:
    return [(goal.standoff - goal.distance_band, goal.standoff + goal.distance_band),
            (-goal.fov_angle, goal.fov_angle), (-goal.normal_angle, goal.normal_angle)]


def inside(T: np.ndarray, goal: ScanGoal) -> bool:
    return all(lo <= x <= hi for x, (lo, hi) in zip(criteria(T, goal), walls(goal)))


def staged(link: str, T: np.ndarray, xd: float, xf: float, xn: float, rng, **fields) -> ScanGoal:
    """A goal whose criteria at link pose T are xd, xf, xn in units of their walls (xd
    signed): the target is rotated xf·fov_angle off the camera axis at standoff +
    xd·distance_band, the normal xn·normal_angle off the reversed axis."""
    kw = dict(standoff=0.3, distance_band=0.05, fov_angle=0.2, normal_angle=0.2, axis=(0.0, 0.0, 1.0)) | fields
    a = T[:3, :3] @ (np.array(kw["axis"]) / np.linalg.norm(kw["axis"]))
    e1, e2 = (np.cross(a, rng.normal(size=3)) for _ in range(2))
    e1, e2 = e1 / np.linalg.norm(e1), e2 / np.linalg.norm(e2)
    phi, psi = xf * kw["fov_angle"], xn * kw["normal_angle"]
    target = T[:3, 3] + (kw["standoff"] + xd * kw["distance_band"]) * (np.cos(phi) * a + np.sin(phi) * e1)
    return ScanGoal(link, target, -(np.cos(psi) * a + np.sin(psi) * e2), **kw)


def test_parameters_are_those_of_E():
    b = swamp_b(NW)
    assert 1.0 - np.exp(-1.0 / b**NW) == pytest.approx(0.95, rel=1e-14)
    goal = ScanGoal("tip_a", (0, 0, 0), (0, 0, 2))
    assert [tuple(w) for w in walls(goal)] == [(0.0, 0.02), (-0.2, 0.2), (-0.2, 0.2)]
    assert goal.axis.tolist() == [0.0, 0.0, 1.0] and goal.normal.tolist() == [0.0, 0.0, 1.0]


def expected_rows(T: np.ndarray, goal: ScanGoal) -> np.ndarray:
    """Per criterion, scaled by its wall to x: the wall row √(a1·W) and the polynomial row
    √a2·x·√W, W = 1 − exp(−(x/b)⁸)."""
    d, fov, normal = criteria(T, goal)
    xs = np.array([(d - goal.standoff) / goal.distance_band, fov / goal.fov_angle, normal / goal.normal_angle])
    W = -np.expm1(-((xs / swamp_b(NW)) ** NW))
    return np.stack([np.sqrt(A1 * W), np.sqrt(A2 * W) * xs], axis=1).ravel()


def test_residual_rows_square_to_each_criterions_swamp(rng):
    robot = tree()
    for link in ("tip_a", "tip_b", "l2"):
        for k in range(4):
            q = robot.random_configuration(rng)
            T = robot.link_pose(q, link)
            goal = ScanGoal(link, T[:3, 3] + 0.2 * rng.normal(size=3), rng.normal(size=3), standoff=0.2, distance_band=0.1,
                            fov_angle=rng.uniform(0.2, 2.0), normal_angle=rng.uniform(0.2, 2.0), axis=rng.normal(size=3))
            r = residual(bioik.Problem(robot, [goal]), q)
            np.testing.assert_allclose(r, expected_rows(T, goal), rtol=1e-10, atol=1e-14)
            swamps = [swamp(x, lo, hi, a1=A1, a2=A2, m=M, nw=NW) for x, (lo, hi) in zip(criteria(T, goal), walls(goal))]
            np.testing.assert_allclose(r[0::2] ** 2 + r[1::2] ** 2, np.array(swamps) + 1.0, rtol=1e-12, atol=1e-14)


def test_zero_at_the_centre_and_about_one_at_a_wall(rng):
    robot = tree()
    q = robot.random_configuration(rng)
    T = robot.link_pose(q, "tip_b")
    assert np.all(np.abs(residual(bioik.Problem(robot, [staged("tip_b", T, 0.0, 0.0, 0.0, rng)]), q)) < 1e-12)
    for k, x in enumerate(np.eye(3)):
        goal = staged("tip_b", T, *x, rng)
        r = residual(bioik.Problem(robot, [goal]), q)
        expect = np.zeros(6)
        expect[2 * k: 2 * k + 2] = np.sqrt(0.95 * A1), np.sqrt(0.95 * A2)  # W = 0.95 at the wall
        np.testing.assert_allclose(r, expect, atol=1e-9)
        assert float(r @ r) == pytest.approx((A1 + A2) * 0.95)  # the swamp + 1 there


def test_jacobian_matches_finite_differences(rng):
    """Inside, on and beyond the walls (where the swamp is steepest), and far off."""
    robot = tree()
    for link in ("tip_a", "tip_b", "l2"):
        for xs in ((0.5, 0.6, 0.7), (-0.9, 1.0, 0.85), (1.3, 2.0, 3.0), (-0.2, 0.1, 1.1)):
            q = robot.random_configuration(rng)
            assert_jacobian(robot, staged(link, robot.link_pose(q, link), *xs, rng), q, atol=2e-6)
        q = robot.random_configuration(rng)
        assert_jacobian(robot, ScanGoal(link, rng.normal(size=3), rng.normal(size=3), axis=rng.normal(size=3)), q, atol=2e-6)


@pytest.mark.parametrize("which, side", [(0, 1.0), (0, -1.0), (1, 1.0), (2, 1.0)])
def test_met_exactly_inside_the_walls(which, side, rng):
    """One criterion just inside, on, or just outside its wall (the others inside): met
    exactly when it is not outside; the error is the largest criterion over its wall."""
    robot = tree()
    q = robot.random_configuration(rng)
    T = robot.link_pose(q, "tip_a")
    for factor in (0.5, 1 - 1e-9, 1.0, 1 + 1e-9, 1.5):
        xs = [0.3, 0.4, 0.5]
        xs[which] = side * factor
        goal = staged("tip_a", T, *xs, rng)
        problem = bioik.Problem(robot, [goal])
        ok, errors, primary, _ = problem.accept(q)
        assert primary == pytest.approx(float(np.sum(residual(problem, q) ** 2)), rel=1e-12)
        d, fov, normal = criteria(T, goal)
        reach = max(abs(d - goal.standoff) / goal.distance_band, fov / goal.fov_angle, normal / goal.normal_angle)
        assert errors[0].tolist() == [pytest.approx(reach, rel=1e-12), 0.0]
        assert reach == pytest.approx(max(factor, 0.5), rel=1e-12)
        if factor != 1.0:  # exactly on the wall, rounding decides
            assert ok == (factor < 1.0) == inside(T, goal)


def test_acceptance_skip_bound_holds_at_the_walls(rng):
    """lm and gd skip the acceptance test above `acceptable_cost`: that bound must hold for
    any configuration that passes, here one with all three criteria on the walls."""
    robot = tree()
    q = robot.random_configuration(rng)
    T = robot.link_pose(q, "tip_a")
    for scale in (0.5, 1.0, 2.0):
        for sign in (1.0, -1.0):
            goal = staged("tip_a", T, sign * scale, scale, scale, rng, weight=3.0)
            problem = bioik.Problem(robot, [goal])
            E = 0.5 * problem.gw[0] ** 2 * float(np.sum(residual(problem, q) ** 2))
            assert E <= acceptable_cost(problem.gi, problem.gf, problem.gw, problem.gt * scale)


def _solve_and_check(robot: bioik.Robot, goal: ScanGoal, random_seed: int) -> None:
    """lm solves the goal, and the camera is inside the three walls, checked here."""
    res = bioik.solve(robot, [goal], solver="lm", max_iterations=2000, timeout=3600.0, random_seed=random_seed)
    assert res.success
    T = robot.link_pose(res.q, goal.link)
    d, fov, normal = criteria(T, goal)
    assert abs(d - goal.standoff) <= goal.distance_band
    assert fov <= goal.fov_angle
    assert normal <= goal.normal_angle
    assert res.goal_errors[0, 0] <= 1.0


@pytest.mark.parametrize("random_seed", [0, 1, 2])
def test_ur5_camera_inspects_a_table_point(random_seed):
    """tool0's z axis looks at a point on a table from 0.25 ± 0.02 m."""
    robot = bioik.load_robot("ur5")
    goal = ScanGoal("tool0", (0.45, 0.2, 0.05), (0.0, 0.0, 1.0), standoff=0.25, distance_band=0.02)
    _solve_and_check(robot, goal, random_seed)


@pytest.mark.parametrize("random_seed", [0, 1])
def test_elise_endoscope_inspects_a_table_point_with_E_walls(random_seed):
    """ELISE's endoscope tip within [0, 0.02] m of a point on a table, looking down at it."""
    robot = bioik.load_robot("elise_ur10")
    goal = ScanGoal("endoscope_tip", (0.7, 0.3, 0.1), (0.0, 0.0, 1.0))
    _solve_and_check(robot, goal, random_seed)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        (dict(target=(np.nan, 0, 0)), "target"),
        (dict(target=(1, 2)), "target"),
        (dict(normal=(0, 0, 0)), "normal"),
        (dict(normal=(0, np.inf, 1)), "normal"),
        (dict(axis=(0, 0, 0)), "axis"),
        (dict(standoff=-0.1), "standoff"),
        (dict(standoff=np.nan), "standoff"),
        (dict(distance_band=0.0), "distance_band"),
        (dict(distance_band=-0.01), "distance_band"),
        (dict(distance_band=np.inf), "distance_band"),
        (dict(fov_angle=0.0), "fov_angle"),
        (dict(fov_angle=11.0), "fov_angle"),
        (dict(normal_angle=-0.2), "normal_angle"),
        (dict(normal_angle="wide"), "normal_angle"),
        (dict(weight=np.nan), "weight"),
    ],
)
def test_bad_input(kwargs, field):
    args = dict(target=(1, 2, 3), normal=(0, 0, 1)) | kwargs
    with pytest.raises(ValueError, match=f"ScanGoal: {field}"):
        ScanGoal("tip_a", **args)
