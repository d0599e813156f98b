"""The interactive viewer: a viser server showing a robot that follows draggable goal handles.

Every handle change (a drag in the browser, or `Viewer.set_goal_pose` from Python) solves
the goals again with the chosen solver, warm-started from the shown configuration with a
secondary minimal-displacement goal, and shows the answer. viser runs callbacks on its
own threads, so the solver state (configuration, goals, solver, last result) is guarded by
one lock; a drag that queued several updates solves once, for the newest handle poses.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bioik.collision.spheres import sphere_model
from bioik.kinematics import Robot
from bioik.kinematics.frames import matrix_from_quat, quat_from_matrix
from bioik.scene import Scene
from bioik.solvers import Result, Solver, names
from bioik.viewer.geometry import OBSTACLE_COLOR, obstacle_meshes, robot_parts, sphere_parts
from bioik.viewer.goals import GOAL_TYPES, ViewerGoal, check_pose, new_goal

#: Default solve timeout (s): a failing solve still leaves time for 30 updates per second.
TIMEOUT = 0.01


def _viser() -> Any:
    """The viser module, or ImportError saying how to install it."""
    try:
        import viser
    except ImportError:
        raise ImportError("the viewer needs viser: pip install 'bioik[viz]' (or pip install viser)") from None
    return viser


class Viewer:
    """A web viewer of `robot`, one pose handle per tip; each handle update solves again.

    The server listens on host:port until `close()`; `url` says where. Usable from scripts
    and notebooks; also a context manager.

    Args:
        robot: the robot.
        q: the configuration shown first (None: the joint centres).
        solver: the solver of each handle update (a name from `bioik.solvers.names()`).
        timeout: seconds per solve.
        scene: obstacles to draw (None: none).
        host: the address to listen on (127.0.0.1: this machine only).
        port: the port (0: any free port).
        announce: print the URL as soon as the server listens, so a browser loads the page
            while the robot is prepared.
    """

    def __init__(self, robot: Robot, q: Any = None, *, solver: str = "lm", timeout: float = TIMEOUT,
                 scene: Scene | None = None, host: str = "127.0.0.1", port: int = 8080, announce: bool = False) -> None:
        viser = _viser()
        self.robot = robot
        self.scene = scene
        self._lock = threading.RLock()
        self._q = robot.center() if q is None else robot.check(q, "q")
        self._solver = Solver(robot, solver)
        self._solver_name = solver
        self._timeout = _check_timeout(timeout)
        self._goals: dict[str, ViewerGoal] = {}
        self._handles: dict[str, Any] = {}
        self._result: Result | None = None
        self._requested = self._solved = 0  # handle updates asked for / solved (drops stale queued ones)
        self.server = viser.ViserServer(host=host, port=port, verbose=False)
        self._host = host
        self._camera: tuple[np.ndarray, np.ndarray] | None = None
        self.server.on_client_connect(self._aim_client)
        # Lights, not viser's default HDR environment map: decoding that map held back a
        # browser's first picture by about 6 s (headless Chromium, software WebGL).
        self.server.scene.configure_environment_map(hdri=None)
        self.server.scene.configure_default_lights(True, cast_shadow=False)
        if announce:  # the page loads in the browser while the robot is prepared here
            print(f"bioik viewer: {self.url}", flush=True)
        with self._lock:  # a page that connects now waits for the camera aim
            self._draw_robot()
            if scene is not None:
                self._draw_scene(scene)
            self._aim_camera()
            self._build_panel()
            for tip in robot.tips:
                self.add_goal("pose", tip)
            self._show()

    # ---- the Python API ---------------------------------------------------------------

    @property
    def url(self) -> str:
        """The page's address."""
        return f"http://{self._host}:{self.server.get_port()}"

    @property
    def q(self) -> np.ndarray:
        """A copy of the shown configuration (the robot's active variables)."""
        with self._lock:
            return self._q.copy()

    @property
    def result(self) -> Result | None:
        """The last solve's result (None before the first)."""
        with self._lock:
            return self._result

    @property
    def goals(self) -> dict[str, ViewerGoal]:
        """The goals by name (copies: change them with `set_goal_pose`)."""
        with self._lock:
            return {n: ViewerGoal(g.name, g.kind, g.link, g.pose.copy()) for n, g in self._goals.items()}

    def slider_values(self) -> np.ndarray:
        """The joint values the panel's sliders show, in variable order.

        Returns:
            An array (dof,).
        """
        return np.array([s.value for s in self._sliders])

    def add_goal(self, kind: str, link: str) -> str:
        """Add a goal on `link`, met where the robot is now.

        Args:
            kind: a goal type of GOAL_TYPES: "pose", "position", "look-at" or "line".
            link: the link the goal is on.

        Returns:
            The goal's name (used by `set_goal_pose` and `remove_goal`).
        """
        with self._lock:
            name = f"{kind} {link}"
            n = 2
            while name in self._goals:
                name, n = f"{kind} {link} #{n}", n + 1
            goal = new_goal(self.robot, self._q, kind, link, name)
            self._goals[name] = goal
            self._handles[name] = self._add_handle(goal, len(self._handles))
            self._goal_list.value = ", ".join(self._goals)
            return name

    def remove_goal(self, name: str) -> None:
        """Remove the goal called `name`.

        Args:
            name: a name from `add_goal` or `goals`.
        """
        with self._lock:
            self._goal(name)
            del self._goals[name]
            self._handles.pop(name).remove()
            self._goal_list.value = ", ".join(self._goals)

    def set_goal_pose(self, name: str, T: Any) -> Result:
        """Move goal `name`'s handle, solve and show the answer, as a drag in the browser does.

        Args:
            name: the goal's name.
            T: the handle's new 4×4 pose (base frame).

        Returns:
            The solve's `Result`.
        """
        T = check_pose(T, f"pose of goal {name!r}")
        with self._lock:
            self._goal(name).pose = T
            handle = self._handles[name]
            handle.position, handle.wxyz = T[:3, 3], quat_from_matrix(T[:3, :3])
            self._requested += 1
            return self._solve_and_show()

    def set_q(self, q: Any) -> None:
        """Show configuration q; pose and position handles move with their links.

        Args:
            q: a configuration of the robot's active variables.
        """
        with self._lock:
            self._q = self.robot.check(q, "q")
            self._follow_links()
            self._show()

    def set_solver(self, solver: str, timeout: float | None = None) -> None:
        """Solve with `solver` from now on.

        Args:
            solver: a name from `bioik.solvers.names()`.
            timeout: seconds per solve (None: keep the current one).
        """
        with self._lock:
            self._solver = Solver(self.robot, solver)
            self._solver_name = solver
            if timeout is not None:
                self._timeout = _check_timeout(timeout)
            self._solver_menu.value, self._timeout_box.value = solver, self._timeout * 1e3

    def solve(self) -> Result:
        """Solve the current goals from the shown configuration and show the answer.

        Returns:
            The solve's `Result`.
        """
        with self._lock:
            self._requested += 1
            return self._solve_and_show()

    def wait(self) -> None:
        """Block until Ctrl-C, then close the server."""
        try:
            while True:
                time.sleep(1.0)
        except KeyboardInterrupt:
            pass
        finally:
            self.close()

    def close(self) -> None:
        """Stop the server."""
        self.server.stop()

    def __enter__(self) -> Viewer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- solving ------------------------------------------------------------------------

    def _solve_and_show(self) -> Result:
        """Solve for the goals (lock held) and show the answer; also the goal errors and time."""
        from bioik.goals import MinimalDisplacementGoal

        goals = [g.goal() for g in self._goals.values()] + [MinimalDisplacementGoal()]
        avoid = self.scene if self.scene is not None and self._avoid.value else None
        try:
            res = self._solver.solve(goals, seed=self._q, timeout=self._timeout, scene=avoid)
        except (ValueError, ImportError) as e:  # goals this solver refuses, coal missing: say so in the panel
            self._status.content = f"**error**: {e}"
            raise
        self._solved = self._requested
        self._result = res
        self._q = res.q.copy()
        self._show()
        return res

    def _on_drag(self, name: str, handle: Any) -> None:
        """A handle moved in the browser: record its pose, then solve unless a newer update did."""
        with self._lock:
            goal = self._goals.get(name)
            if goal is None:
                return
            T = np.eye(4)
            T[:3, :3], T[:3, 3] = matrix_from_quat(np.asarray(handle.wxyz)), handle.position
            goal.pose = T
            self._requested += 1
            ticket = self._requested
        with self._lock:
            if self._solved < ticket:
                self._solve_and_show()

    def _follow_links(self) -> None:
        for name, goal in self._goals.items():
            goal.link_moved(self.robot.link_pose(self._q, goal.link))
            T = goal.pose
            self._handles[name].position, self._handles[name].wxyz = T[:3, 3], quat_from_matrix(T[:3, :3])

    # ---- drawing ------------------------------------------------------------------------

    def _draw_robot(self) -> None:
        """A frame per drawn link and its meshes under it (collision spheres come on first show)."""
        parts, self._drawn_from = robot_parts(self.robot)
        with_spheres = [link.name for link in self.robot.model.links if link.collision]
        links = list(dict.fromkeys([p.link for p in parts] + with_spheres))
        self._drawn_links = links
        poses = self.robot.fk(self._q, links)
        self._frames = [self.server.scene.add_frame(f"/robot/{i}", show_axes=False, position=T[:3, 3],
                                                    wxyz=quat_from_matrix(T[:3, :3])) for i, T in enumerate(poses)]
        for k, p in enumerate(parts):
            self.server.scene.add_mesh_simple(f"/robot/{links.index(p.link)}/part{k}", p.vertices, p.faces, color=p.color)
        self._sphere_nodes: list[Any] | None = None

    def _show_spheres(self, visible: bool) -> None:
        """Show or hide the collision spheres; the first show builds them (a second or so)."""
        with self._lock:
            if self._sphere_nodes is None:
                if not visible:
                    return
                try:
                    spheres = sphere_parts(sphere_model(self.robot))
                except (OSError, ValueError):  # a mesh the sphere cover cannot read: no spheres to show
                    spheres = []
                self._sphere_nodes = [
                    self.server.scene.add_mesh_simple(f"/robot/{self._drawn_links.index(p.link)}/spheres", p.vertices,
                                                      p.faces, color=p.color, opacity=0.45)
                    for p in spheres]
            for node in self._sphere_nodes:
                node.visible = visible

    def _draw_scene(self, scene: Scene) -> None:
        for i, (name, mesh) in enumerate(obstacle_meshes(scene).items()):
            self.server.scene.add_mesh_simple(f"/scene/{i}", mesh.vertices, mesh.faces, color=OBSTACLE_COLOR, opacity=0.8)

    def _aim_camera(self) -> None:
        """Start the browser's camera looking at the robot from the front right, above."""
        points = np.concatenate([self.robot.fk(self._q, self._drawn_links)[:, :3, 3], np.zeros((1, 3))])
        centre = 0.5 * (points.min(axis=0) + points.max(axis=0))
        size = max(float(np.ptp(points, axis=0).max()), 0.5)
        self._camera = (centre, centre + size * np.array([1.2, 0.9, 0.6]))
        self.server.initial_camera.look_at, self.server.initial_camera.position = self._camera

    def _aim_client(self, client: Any) -> None:
        """Aim a newly connected page's camera (one that connected before the initial camera
        was set would keep viser's default). Position first: setting it shifts the look-at."""
        with self._lock:
            if self._camera is not None:
                centre, eye = self._camera
                client.camera.position = eye
                client.camera.look_at = centre

    def _add_handle(self, goal: ViewerGoal, i: int) -> Any:
        T = goal.pose
        handle = self.server.scene.add_transform_controls(
            f"/goals/{i}", scale=0.15, disable_rotations=goal.kind in ("position", "look-at"),
            position=T[:3, 3], wxyz=quat_from_matrix(T[:3, :3]))
        if goal.kind == "line":
            ends = np.array([[[0.0, 0.0, -1.0], [0.0, 0.0, 1.0]]])
            self.server.scene.add_line_segments(f"/goals/{i}/line", ends, colors=(40, 160, 90), thickness=0.004)
        self.server.scene.add_label(f"/goals/{i}/label", goal.name)
        handle.on_update(lambda event, name=goal.name: self._on_drag(name, event.target))
        return handle

    def _show(self) -> None:
        """Send the link poses, sliders and status for the current state (lock held)."""
        poses = self.robot.fk(self._q, self._drawn_links)
        with self.server.atomic():
            for frame, T in zip(self._frames, poses):
                frame.position, frame.wxyz = T[:3, 3], quat_from_matrix(T[:3, :3])
            for slider, value, lo, hi in zip(self._sliders, self._q, self.robot.sample_lower, self.robot.sample_upper):
                slider.value = float(np.clip(value, lo, hi))
        self._status.content = self._status_text()

    def _status_text(self) -> str:
        res = self._result
        head = f"solver **{self._solver_name}**, timeout {self._timeout * 1e3:g} ms · robot drawn from its {self._drawn_from} geometry"
        if res is None:
            return head + "\n\nno solve yet: drag a handle"
        rows = "\n".join(f"| {name} | {e[0]:.2e} | {e[1]:.2e} |" for name, e in zip(self._goals, res.goal_errors))
        return (f"{head}\n\n**{'success' if res.success else 'not solved'}** in {res.time * 1e3:.3f} ms\n\n"
                f"| goal | error | rotation |\n|---|---|---|\n{rows}")

    # ---- the panel ----------------------------------------------------------------------

    def _build_panel(self) -> None:
        gui = self.server.gui
        self._status = gui.add_markdown("")
        self._solver_menu = gui.add_dropdown("solver", tuple(names()), initial_value=self._solver_name)
        self._timeout_box = gui.add_number("timeout (ms)", self._timeout * 1e3, min=0.01, max=10_000.0, step=0.5)
        self._solver_menu.on_update(lambda e: e.client is not None and self._panel_solver())
        self._timeout_box.on_update(lambda e: e.client is not None and self._panel_solver())
        spheres = gui.add_checkbox("collision spheres", False)
        spheres.on_update(lambda e: self._show_spheres(spheres.value))
        self._avoid = gui.add_checkbox("avoid obstacles", False, disabled=self.scene is None)
        with gui.add_folder("goals"):
            self._goal_list = gui.add_text("goals", "", disabled=True)
            kind = gui.add_dropdown("type", GOAL_TYPES)
            tips = list(self.robot.tips) + [l for l in self.robot.link_names if l not in self.robot.tips]
            link = gui.add_dropdown("link", tuple(tips))
            gui.add_button("add goal").on_click(lambda e: self.add_goal(kind.value, link.value))
            gui.add_button("remove last goal").on_click(lambda e: self._remove_last_goal())
        with gui.add_folder("joints"):
            self._sliders = [gui.add_slider(name, float(lo), float(hi), step=1e-3, initial_value=float(np.clip(v, lo, hi)))
                             for name, lo, hi, v in zip(self.robot.variable_names, self.robot.sample_lower,
                                                        self.robot.sample_upper, self._q)]
        for i, s in enumerate(self._sliders):
            s.on_update(lambda e, i=i: e.client is not None and self._panel_joint(i, e.target.value))

    def _remove_last_goal(self) -> None:
        with self._lock:
            if self._goals:
                self.remove_goal(list(self._goals)[-1])

    def _panel_solver(self) -> None:
        try:
            self.set_solver(self._solver_menu.value, self._timeout_box.value * 1e-3)
        except ValueError as e:
            self._status.content = f"**error**: {e}"

    def _panel_joint(self, i: int, value: float) -> None:
        with self._lock:
            q = self._q.copy()
            q[i] = value
            self.set_q(q)

    def _goal(self, name: str) -> ViewerGoal:
        if name not in self._goals:
            raise KeyError(f"no goal {name!r} in the viewer; expected one of {', '.join(self._goals) or '(none)'}")
        return self._goals[name]


def _check_timeout(timeout: Any) -> float:
    if not isinstance(timeout, (int, float)) or not 0 < timeout <= 60:
        raise ValueError(f"timeout must be seconds in (0, 60]; got {timeout!r}")
    return float(timeout)


def show(robot: Robot, q: Sequence[float] | np.ndarray | None = None, *, block: bool | None = None, **options: Any) -> Viewer:
    """Open a viewer of `robot` at q, print its URL and return it.

    Args:
        robot: the robot.
        q: the configuration shown first (None: the joint centres).
        block: wait until Ctrl-C before returning; the default blocks in a script and
            returns at once in an interactive session (a notebook, `python -i`), where the
            viewer lives on.
        **options: passed to `Viewer`.

    Returns:
        The `Viewer`.
    """
    viewer = Viewer(robot, q, announce=True, **options)
    if block if block is not None else not _interactive():
        viewer.wait()
    return viewer


def _interactive() -> bool:
    return bool(sys.flags.interactive) or hasattr(sys, "ps1") or "IPython" in sys.modules
