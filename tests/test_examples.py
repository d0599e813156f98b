"""The scripts in examples/ run as a user runs them (a subprocess, small budgets via
BIOIK_QUICK=1), exit 0 and print answers that meet their goals."""

import os
import re
import subprocess
import sys
from pathlib import Path

import bioik

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name: str) -> str:
    """Run examples/<name> with this bioik and return its output; fail on a non-zero exit."""
    env = {**os.environ, "BIOIK_QUICK": "1", "PYTHONPATH": str(Path(bioik.__file__).resolve().parents[1])}
    proc = subprocess.run([sys.executable, str(EXAMPLES / name)], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def numbers(pattern: str, text: str) -> list[float]:
    """Every number the regex group of `pattern` matches in `text`."""
    return [float(m) for m in re.findall(pattern, text)]


def test_every_example_is_short_and_tested():
    scripts = sorted(p.name for p in EXAMPLES.glob("*.py"))
    tested = {"first_solve.py", "dual_arm.py", "hand_fingertips.py", "endoscope.py", "custom_goal.py", "track_path.py"}
    assert tested <= set(scripts)
    for name in scripts:
        assert len((EXAMPLES / name).read_text().splitlines()) <= 80, name


def test_first_solve():
    out = run_example("first_solve.py")
    assert "success: True" in out
    assert numbers(r"position error: (\S+) m", out)[0] <= 1e-5
    assert numbers(r"\|p_found - p_target\| = (\S+) m", out)[0] <= 1e-5


def test_dual_arm_meets_both_poses_and_moves_the_right_arm_most():
    out = run_example("dual_arm.py")
    assert out.count("success: True") == 2
    assert all(e <= 1e-5 for e in numbers(r"position error (\S+) m", out))
    left, right = numbers(r"largest \w+ arm joint step: (\S+) rad", out)
    assert right > left


def test_hand_fingertips_touch_the_ball():
    out = run_example("hand_fingertips.py")
    assert "success: True" in out
    errors = numbers(r"_tip\s+error (\S+) m", out)
    assert len(errors) == 3 and max(errors) <= 1e-5


def test_endoscope_looks_at_each_target_through_the_port():
    out = run_example("endoscope.py")
    assert out.count("success True") == 3
    assert max(numbers(r"off the target by (\S+) deg", out)) < 0.01
    assert max(numbers(r"port axis by (\S+) and", out) + numbers(r"and (\S+) m, at heights", out)) < 1e-5
    for upper, lower in re.findall(r"at heights (\S+) and (\S+) m", out):
        assert float(upper) > 0.4 > float(lower)  # the rod passes through the port's plate


def test_custom_goal_puts_the_tool_on_the_circle():
    out = run_example("custom_goal.py")
    assert out.count("solver lm:") == 2  # the default solver, for the Python and the @njit function
    assert all(n >= 18 for n in numbers(r"(\d+)/20 solved", out))
    assert all(x <= 1e-4 for x in numbers(r"at most (\S+) m off", out) + numbers(r", (\S+) m off the height", out))


def test_track_path_follows_the_circle_in_small_steps():
    out = run_example("track_path.py")
    assert "20 points: 20 solved" in out
    assert numbers(r"largest position error (\S+) m", out)[0] <= 1e-5
    assert numbers(r"largest joint step (\S+) rad", out)[0] <= 0.2


def test_first_solve_gives_the_same_answer_every_run():
    answers = [line for line in (run_example("first_solve.py") for _ in range(2)) for line in line.splitlines() if line.startswith("q:")]
    assert len(answers) == 2 and answers[0] == answers[1]
