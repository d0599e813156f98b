"""Clipping into limits and wrapping multiturn joints to the turn nearest a reference."""

import numpy as np

from bioik.kinematics.limits import clip_into, wrap_near

LOWER = np.array([-2 * np.pi, -2 * np.pi, -1.0])
UPPER = np.array([2 * np.pi, 2 * np.pi, 1.0])
MULTITURN = np.array([1.0, 1.0, 0.0])


def test_wrap_near_moves_to_the_nearest_turn_within_limits():
    q = np.array([0.1 + 2 * np.pi, -3.0, 0.5])
    moved = wrap_near(q, np.zeros(3), LOWER, UPPER, MULTITURN)
    assert moved
    np.testing.assert_allclose(q, [0.1, -3.0, 0.5], atol=1e-12)
    q = np.array([5.0, 0.0, 0.0])  # nearest to 6.0 is 5.0 itself; nearest to -6.0 is 5 - 2π
    assert not wrap_near(q, np.array([6.0, 0.0, 0.0]), LOWER, UPPER, MULTITURN) and q[0] == 5.0
    assert wrap_near(q, np.array([-6.0, 0.0, 0.0]), LOWER, UPPER, MULTITURN)
    np.testing.assert_allclose(q[0], 5.0 - 2 * np.pi)


def test_wrap_near_keeps_a_joint_on_the_right_turn_bit_for_bit(rng):
    """A value already on the nearest turn is not rounded through the wrapping arithmetic,
    so the caller may reuse FK it computed at q."""
    for _ in range(200):
        ref = rng.uniform(LOWER, UPPER)
        q = ref + rng.uniform(-3.0, 3.0, size=3)
        clip_into(q, LOWER, UPPER)
        before = q.copy()
        assert not wrap_near(q, ref, LOWER, UPPER, MULTITURN)
        assert np.array_equal(q, before)


def test_wrap_near_never_leaves_the_limits(rng):
    for _ in range(200):
        q = rng.uniform(LOWER, UPPER)
        wrap_near(q, rng.uniform(-20, 20, size=3), LOWER, UPPER, MULTITURN)
        assert np.all(q >= LOWER) and np.all(q <= UPPER)
