"""Shared helpers for the goal tests: one goal's residual and Jacobian through a `Problem`."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from urdf_samples import TREE_URDF

import bioik
from bioik.goals.kernels import MAX_LINK_ROWS, goal_residual
from bioik.problem.layout import unpack
from bioik.kinematics.jacobian import fk_jacobians


@cache
def tree() -> bioik.Robot:
    return bioik.load_robot(TREE_URDF)


def translation(x: float, y: float, z: float) -> np.ndarray:
    """The 4×4 pose of a pure translation (an obstacle's pose)."""
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def three_obstacles() -> bioik.Scene:
    """A table below the UR5's base, a ball of radius 0.15 and a post in its reach: some
    random configurations come near or into them, some not."""
    scene = bioik.Scene()
    scene.add_box("table", (1.0, 1.0, 0.05), translation(0.0, 0.0, -0.2))
    scene.add_sphere("ball", 0.15, translation(0.3, 0.1, 0.4))
    scene.add_cylinder("post", 0.05, 0.8, translation(-0.3, 0.2, 0.2))
    return scene


def residual(problem: bioik.Problem, q: np.ndarray, g: int = 0, with_jac: bool = False):
    """Goal g's unweighted residual at q (and ∂r/∂q if with_jac), from the compiled kernels."""
    prob = unpack(problem.ibuf, problem.fbuf)
    seg_i, seg_f, out_seg, out_tf = prob.seg_i, prob.seg_f, prob.out_seg, prob.out_tf
    gi, gf, vdata, aux = prob.gi, prob.gf, prob.vdata, prob.aux
    q = np.asarray(q, dtype=float)
    n = len(q)
    O = max(len(out_seg), 1)
    frames, J = np.zeros((O, 7)), np.zeros((6 * O, n))
    fk_jacobians(seg_i, seg_f, out_seg, out_tf, q, np.zeros((max(len(seg_i), 1), 7)), frames, J)
    rows = max(MAX_LINK_ROWS, n)
    r, Jr = np.zeros(rows), np.zeros((rows, n))
    d = goal_residual(gi, gf, g, frames, J, q, vdata, aux, r, Jr, with_jac, np.zeros((4 * MAX_LINK_ROWS, 3)))
    return (r[:d].copy(), Jr[:d].copy()) if with_jac else r[:d].copy()


def goal_residual_of(robot, goal, q) -> np.ndarray:
    return residual(bioik.Problem(robot, [goal]), q)


def assert_jacobian(robot, goal, q, h: float = 1e-6, atol: float = 1e-6) -> None:
    """The kernel's ∂r/∂q matches central finite differences of the residual."""
    problem = bioik.Problem(robot, [goal])
    _, Jr = residual(problem, q, with_jac=True)
    fd = np.empty_like(Jr)
    for v in range(len(q)):
        dq = np.zeros(len(q))
        dq[v] = h
        fd[:, v] = (residual(problem, q + dq) - residual(problem, q - dq)) / (2 * h)
    np.testing.assert_allclose(Jr, fd, atol=atol, rtol=0)


def assert_acceptance(robot, goal, q) -> None:
    """accept(q) is ok exactly when ‖r‖ ≤ tolerance, and reports ‖r‖ and the cost ‖r‖²·w²."""
    problem = bioik.Problem(robot, [goal])
    norm = float(np.linalg.norm(residual(problem, q)))
    ok, errors, primary, secondary = problem.accept(q)
    assert ok == (norm <= goal.tolerance)
    assert errors[0, 0] == pytest.approx(norm, rel=1e-12, abs=1e-15)
    assert primary == pytest.approx(norm**2 * goal.weight**2, rel=1e-12, abs=1e-30)
    assert secondary == 0.0
    if norm > 0.0:
        for factor, expected in ((1.01, True), (0.99, False)):
            assert bioik.Problem(robot, [replace(goal, tolerance=factor * norm)]).accept(q)[0] is expected


def cost(robot, goal, q) -> float:
    """Weighted cost of a single (primary) goal at q."""
    return bioik.Problem(robot, [goal]).cost(q)[0]


def random_unit(rng) -> np.ndarray:
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)
