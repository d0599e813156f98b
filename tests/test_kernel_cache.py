"""numba's on-disk cache serves kernels compiled in one process to the next: whatever order
processes first use them in, a loaded kernel must behave as a freshly compiled one."""

import os
import subprocess
import sys

FIRST = """
import bioik
r = bioik.load_robot("ur5")
T = r.link_pose(r.center(), r.tips[0])
assert bioik.solve(r, [bioik.PoseGoal(r.tips[0], T)], seed=r.center(), max_iterations=5, random_seed=0).success
"""

SECOND = """
import bioik
r = bioik.load_robot("ur5")
T = r.link_pose(r.center(), r.tips[0])
p = bioik.Problem(r, [bioik.PositionGoal(r.tips[0], T[:3, 3]), bioik.OrientationGoal(r.tips[0], T[:3, :3])])
for _ in range(50):
    assert p.accept(r.center())[0]
print("ok")
"""


def test_kernels_cached_by_a_one_call_solve_serve_the_general_path(tmp_path):
    """The one-call path compiles `unpack` inside a kernel without reference counting; a
    later process's acceptance test (with reference counting) must not load that build
    (it released the views twice: heap corruption, "malloc(): unaligned tcache chunk")."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    for code in (FIRST, SECOND):
        run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "ok"
