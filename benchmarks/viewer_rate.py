"""How fast the viewer follows a dragged handle, and how soon `bioik view` first paints.

    python benchmarks/viewer_rate.py                       # panda and dual_ur5, 300 updates each
    python benchmarks/viewer_rate.py --first-paint         # also: command → robot in headless Chromium,
                                                           # and the same for a bare viser page (the floor)

An update is what a drag event costs the server: `Viewer.set_goal_pose` (solve with the
viewer's solver, warm-started, then the link poses, sliders and panel sent to the page).
The handle moves along a 10 cm circle in steps of about 3 mm, as a quick drag at 30 Hz
would; with several tips the handles move in turn. Run it on a warm numba cache (`bioik
warmup --solver lm` first), else the first update includes the compilation.

First paint is timed from starting the command to a screenshot of an already open headless
Chromium showing the robot. The same is timed for a bare viser server drawing one box
(viser's own start-up and page boot in this browser: the floor under any viser viewer).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import bioik
from bioik.viewer import Viewer


def update_times(robot_name: str, updates: int, solver: str) -> np.ndarray:
    """Seconds per handle update along the circle."""
    robot = bioik.load_robot(robot_name)
    with Viewer(robot, port=0, solver=solver) as viewer:
        names = list(viewer.goals)
        start = {n: viewer.goals[n].pose for n in names}
        viewer.solve()  # the first solve prepares the problem (not a drag's cost)
        times = []
        for k in range(updates):
            name = names[k % len(names)]
            a = 2 * np.pi * k / 200
            T = start[name].copy()
            T[:3, 3] += 0.05 * np.array([np.cos(a) - 1.0, np.sin(a), 0.0])
            t0 = time.perf_counter()
            viewer.set_goal_pose(name, T)
            times.append(time.perf_counter() - t0)
    return np.array(times)


#: A bare viser server drawing one box, set up as the viewer sets up its scene.
BARE_VISER = """
import time, viser
server = viser.ViserServer(port=0, verbose=False)
server.scene.configure_environment_map(hdri=None)
server.scene.configure_default_lights(True, cast_shadow=False)
server.scene.add_box("/box", color=(200, 200, 205), dimensions=(0.4, 0.4, 0.8), position=(0.0, 0.0, 0.4))
server.initial_camera.look_at, server.initial_camera.position = (0.0, 0.0, 0.4), (1.0, 0.8, 0.9)
print(f"bare viser: http://127.0.0.1:{server.get_port()}", flush=True)
while True:
    time.sleep(1.0)
"""


def first_paint(command: list[str]) -> tuple[float, float]:
    """Seconds from starting `command` (a server that prints its URL) to the URL printed, and
    to something drawn in an open headless Chromium (software WebGL: slower than a desktop
    browser's)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "viewer"))
    from headless_chromium import Page, find

    executable = find()
    if executable is None:
        raise SystemExit("--first-paint needs Chromium on PATH")
    page = Page(executable)  # the browser is already open, as a user's is
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        line = ""
        while not line.startswith(("bioik viewer:", "bare viser:")):
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"{' '.join(command)} printed no URL")
        served = time.perf_counter() - t0
        page.open(line.split()[-1])
        while not _painted(page):
            time.sleep(0.05)
        return served, time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        page.close()


def _painted(page) -> bool:
    from test_viewer_browser import _robot_pixels

    try:
        return _robot_pixels(page.screenshot()) >= 2000
    except RuntimeError:  # still navigating: no page to capture yet
        return False


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--robot", action="append", help="robot (repeatable; default panda and dual_ur5)")
    p.add_argument("--updates", type=int, default=300)
    p.add_argument("--solver", default="lm")
    p.add_argument("--first-paint", action="store_true", help="also time the command's first paint (needs Chromium)")
    args = p.parse_args()
    for name in args.robot or ["panda", "dual_ur5"]:
        t = update_times(name, args.updates, args.solver) * 1e3
        print(f"{name:<10} {args.solver}: update median {np.median(t):.2f} ms, p90 {np.percentile(t, 90):.2f} ms, "
              f"max {t.max():.2f} ms → {1e3 / np.median(t):.0f} updates/s")
        if args.first_paint:
            served, painted = first_paint([sys.executable, "-m", "bioik.cli", "view", name, "--port", "0"])
            print(f"{name:<10} URL printed {served:.2f} s, robot drawn in headless Chromium {painted:.2f} s after the command")
    if args.first_paint:
        served, painted = first_paint([sys.executable, "-c", BARE_VISER])
        print(f"{'bare viser':<10} URL printed {served:.2f} s, box drawn in headless Chromium {painted:.2f} s after the command")


if __name__ == "__main__":
    main()
