"""numba's on-disk cache serves kernels compiled in one process to the next: whatever order
processes first use them in, a loaded kernel must behave as a freshly compiled one."""

import os
import subprocess
import sys

import pytest

from bioik._kernel_cache import KERNEL_PACKAGES, ROOT, ensure_fresh, kernel_sources, process_lock

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


@pytest.mark.slow
def test_kernels_cached_by_a_one_call_solve_serve_the_general_path(tmp_path):
    """The one-call path compiles `unpack` inside a kernel without reference counting; a
    later process's acceptance test (with reference counting) must not load that build
    (it released the views twice: heap corruption, "malloc(): unaligned tcache chunk")."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    for code in (FIRST, SECOND):
        run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "ok"


def _tree(root):
    """A package tree with one kernel source and one cache file."""
    src = root / KERNEL_PACKAGES[0] / "k.py"
    src.parent.mkdir(parents=True)
    src.write_text("import numba\nx = 1\n")
    cache = src.parent / "__pycache__" / "k.f-1.py311.nbi"
    cache.parent.mkdir()
    cache.write_bytes(b"index")
    return src, cache


def test_an_edit_that_keeps_size_and_mtime_still_drops_the_cache(tmp_path):
    """The stamp hashes contents: an edit with the same size and mtime (a checkout, a
    copy that keeps times) must not leave kernels compiled from the old source."""
    src, cache = _tree(tmp_path)
    assert ensure_fresh(tmp_path)  # no stamp yet: dropped, stamp written
    cache.write_bytes(b"index")
    assert not ensure_fresh(tmp_path) and cache.exists()  # unchanged sources keep the cache
    st = src.stat()
    src.write_text("import numba\nx = 2\n")
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert ensure_fresh(tmp_path) and not cache.exists()


def test_a_cache_outside_the_package_follows_the_packages_sources(tmp_path):
    """A script's kernels that inline bioik's go stale with bioik's sources, not the script's."""
    src, _ = _tree(tmp_path / "pkg")
    script_cache = tmp_path / "bench" / "__pycache__" / "bench.loop-3.py311.nbi"
    script_cache.parent.mkdir(parents=True)
    script_cache.write_bytes(b"index")
    assert ensure_fresh(tmp_path / "pkg", cached=tmp_path / "bench") and not script_cache.exists()
    script_cache.write_bytes(b"index")
    assert not ensure_fresh(tmp_path / "pkg", cached=tmp_path / "bench") and script_cache.exists()
    src.write_text("import numba\nx = 2\n")
    assert ensure_fresh(tmp_path / "pkg", cached=tmp_path / "bench") and not script_cache.exists()


def test_a_touch_without_an_edit_keeps_the_cache(tmp_path):
    src, cache = _tree(tmp_path)
    ensure_fresh(tmp_path)
    cache.write_bytes(b"index")
    os.utime(src, ns=(1, 1))
    assert not ensure_fresh(tmp_path) and cache.exists()
    assert not list(tmp_path.rglob("*.stamp.*"))  # no partial stamp left behind


_TRY_LOCK = """
import fcntl, sys
with open(sys.argv[1], "a+b") as f:
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit(3)
"""


def test_a_process_lock_makes_another_process_wait(tmp_path):
    """While one process prepares a solver (holds its lock), another cannot take the lock:
    it waits, then loads the kernels written meanwhile instead of compiling them too."""
    lock_file = tmp_path / "__pycache__" / "bioik-prepare-lm.lock"

    def other_takes_it() -> bool:
        return subprocess.run([sys.executable, "-c", _TRY_LOCK, str(lock_file)]).returncode == 0

    with process_lock("prepare-lm", tmp_path):
        assert lock_file.exists()
        assert not other_takes_it()
    assert other_takes_it()


def test_only_what_compiled_code_can_read_is_stamped(tmp_path):
    """A kernel module and the modules it takes constants from are stamped; a pure-Python
    module (a loader) is not, so editing it keeps every compiled kernel."""
    src, cache = _tree(tmp_path)
    pkg = src.parent
    (pkg / "consts.py").write_text("LIMIT = 3\n")
    (pkg / "loader.py").write_text("def load():\n    return 1\n")
    src.write_text(f"import numba\nfrom bioik.{pkg.name}.consts import LIMIT\nfrom bioik.{pkg.name}.loader import load\n")
    assert {p.name for p in kernel_sources(tmp_path)} == {"k.py", "consts.py"}
    ensure_fresh(tmp_path)
    cache.write_bytes(b"index")
    (pkg / "loader.py").write_text("def load():\n    return 2\n")
    assert not ensure_fresh(tmp_path) and cache.exists()
    (pkg / "consts.py").write_text("LIMIT = 4\n")
    assert ensure_fresh(tmp_path) and not cache.exists()


def test_the_packages_stamp_covers_the_constants_kernels_compile_in():
    names = {p.relative_to(ROOT).as_posix() for p in kernel_sources()}
    assert {"model/robot_model.py", "kinematics/fk.py", "goals/pose.py", "solvers/local/lm_pose.py"} <= names
    assert not names & {"model/srdf.py", "model/urdf.py", "model/meshes.py", "robots/__init__.py"}
