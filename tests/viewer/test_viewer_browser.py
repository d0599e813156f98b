"""The viewer in a real browser: headless Chromium (software WebGL) opens the page, the
robot is drawn, and a handle moved through the viewer's API moves the robot and the joint
values the page shows. Skipped without Chromium or viser."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest

import bioik
from headless_chromium import Page, find

pytestmark = pytest.mark.viewer

#: Inputs of the page (their values, in page order).
INPUTS = "Array.from(document.querySelectorAll('input')).map(i => i.value)"
#: Longest wait for the page to show what the server sent (s); the test polls, it asserts no time.
PATIENCE = 60.0


@pytest.fixture(scope="module")
def page_and_viewer():
    pytest.importorskip("viser", reason="the viewer needs viser (pip install 'bioik[viz]')")
    executable = find()
    if executable is None:
        pytest.skip("no Chromium on PATH (Debian: apt-get install chromium)")
    from bioik.viewer import Viewer

    with Viewer(bioik.load_robot("panda"), port=0) as viewer:
        page = Page(executable)
        try:
            page.open(viewer.url)
            yield page, viewer
        finally:
            page.close()


def _shown_joints(page: Page, dof: int) -> np.ndarray | None:
    """The joint values in the panel (each slider and its number box: the last 2·dof inputs)."""
    values = page.evaluate(INPUTS) or []
    try:
        return np.array([float(v) for v in values[-2 * dof::2]]) if len(values) >= 2 * dof else None
    except ValueError:
        return None


def _wait_for(condition, what: str):
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        out = condition()
        if out is not None and out is not False:
            return out
        time.sleep(0.25)
    pytest.fail(f"the page did not show {what} within {PATIENCE:.0f} s")


def _robot_pixels(png: bytes) -> int:
    """Pixels of the 3D view (left of the panel, below the notice) unlike its background."""
    from PIL import Image

    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    h, w, _ = img.shape
    view = img[int(0.3 * h):int(0.85 * h), int(0.05 * w):int(0.6 * w)]
    background = img[h - 5, w // 2]  # bottom edge, below the panel: empty scene
    return int((np.abs(view - background).max(axis=2) > 40).sum())


def test_the_page_shows_the_robot(page_and_viewer):
    page, viewer = page_and_viewer
    _wait_for(lambda: _shown_joints(page, viewer.robot.dof) is not None, "the joint sliders")
    pixels = _wait_for(lambda: _robot_pixels(page.screenshot()) > 2000 or None, "the robot in the 3D view")
    assert pixels


def test_a_moved_handle_moves_the_robot_and_the_shown_joints(page_and_viewer):
    page, viewer = page_and_viewer
    robot = viewer.robot
    before = _wait_for(lambda: _shown_joints(page, robot.dof), "the joint sliders")
    assert np.allclose(before, viewer.q, atol=1e-3)
    shot = page.screenshot()
    T = robot.link_pose(viewer.q, "panda_link8")
    T[:3, 3] += (0.0, 0.15, -0.1)
    res = viewer.set_goal_pose("pose panda_link8", T)
    assert res.success
    assert np.allclose(robot.link_pose(viewer.q, "panda_link8"), T, atol=1e-4)  # the tip sits on the handle
    after = _wait_for(lambda: (v := _shown_joints(page, robot.dof)) is not None and np.allclose(v, viewer.q, atol=1e-3)
                      and v, "the solved joint values")
    assert np.abs(after - before).max() > 0.01
    _wait_for(lambda: page.screenshot() != shot, "the robot moved")
