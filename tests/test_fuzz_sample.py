"""A deterministic sample of `benchmarks/fuzz.py` in the unit suite: hostile input of every
small family (malformed URDFs; bad Robot-method, goal, solve and command-line arguments)
on iteration budgets; none may crash or hang. (The full run is the benchmark: thousands
of cases, the 50 MB URDFs and the 5,000-link chains, every solver, CLI processes.)"""

import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location("fuzz", Path(__file__).parents[1] / "benchmarks" / "fuzz.py")
fuzz = sys.modules["fuzz"] = importlib.util.module_from_spec(_spec)  # registered: its dataclasses look it up
_spec.loader.exec_module(fuzz)

FAMILIES = ["urdf", "robot", "goals", "solve", "cli"]


def test_hostile_input_is_refused_or_handled_never_crashes_or_hangs():
    counts, failures = fuzz.run(FAMILIES, 100, 0, ["lm", "bio2_memetic", "optlib_lbfgsb"], every=0)
    assert not failures
    for family in FAMILIES:
        assert counts[family]["ok"] > 0 and counts[family]["refused"] > 0, (family, counts[family])
