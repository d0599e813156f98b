"""Every error bioik defines derives from `bioik.BioikError` and keeps its builtin base."""

import ast
import builtins
import inspect
from pathlib import Path

import numpy as np
import pytest

import bioik
import bioik.errors
from bioik.bench.peers import PeerSkipped
from bioik.bench.store import BenchError
from bioik.errors import BioikError, GoalError, GoalTypeError
from bioik.model.names import UnknownNameError
from bioik.model.urdf import URDFError
from bioik.solvers.core.family import UnsupportedGoalsError

ROOT = Path(bioik.__file__).parent

#: Exception classes defined outside bioik.errors: the scipy solvers' control flow (never
#: raised to a caller).
NOT_ERRORS = {"solvers/scipy/objective.py": {"DeadlineReached"}, "solvers/scipy/trac.py": {"_Stop", "_Valid"}}


def _errors() -> dict[str, type]:
    return {name: value for name, value in vars(bioik.errors).items() if inspect.isclass(value) and issubclass(value, BioikError)}


def test_bioik_error_is_exported():
    assert bioik.BioikError is BioikError
    assert "BioikError" in bioik.__all__
    assert issubclass(BioikError, Exception)


@pytest.mark.parametrize(
    ("error", "builtins"),
    [(UnknownNameError, (KeyError, ValueError)), (URDFError, (ValueError,)), (UnsupportedGoalsError, (ValueError,)), (BenchError, (ValueError,)), (PeerSkipped, ()),
     (GoalError, (ValueError,)), (GoalTypeError, (TypeError, ValueError)), (bioik.ReachError, (ValueError,)),
     (bioik.GoalSetRefused, (ValueError,)), (bioik.MeshNotFoundError, (FileNotFoundError,))],
)
def test_errors_derive_from_bioik_error_and_keep_their_builtin_base(error, builtins):
    assert issubclass(error, BioikError)
    for base in builtins:
        assert issubclass(error, base)


def test_every_error_is_exported_from_bioik():
    errors = _errors()
    assert len(errors) > 15
    for name, cls in errors.items():
        assert getattr(bioik, name) is cls and name in bioik.__all__, name


def test_the_old_modules_give_the_same_classes():
    from bioik.bench.reach import ReachError
    from bioik.goals.registry import GoalRegistryError
    from bioik.scene import SceneError
    from bioik.solvers.core.params import ParameterTypeError

    for cls in (ReachError, GoalRegistryError, SceneError, ParameterTypeError, URDFError, UnknownNameError, PeerSkipped):
        assert getattr(bioik.errors, cls.__name__) is cls


def test_error_classes_are_defined_in_bioik_errors_only():
    """A module that defines its own exception class fails here: errors go in bioik.errors."""
    exception_names = {name for name, value in vars(builtins).items()  # warnings are no errors
                       if inspect.isclass(value) and issubclass(value, BaseException) and not issubclass(value, Warning)}
    exception_names |= set(_errors())
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), rel)):
            if isinstance(node, ast.ClassDef) and any(ast.unparse(b).rpartition(".")[2] in exception_names for b in node.bases):
                found.setdefault(rel, set()).add(node.name)
    assert found == NOT_ERRORS


def test_a_bad_goal_input_is_a_goal_error():
    with pytest.raises(GoalError, match="PositionGoal: position contains NaN or inf"):
        bioik.PositionGoal("tool0", np.array([0.0, np.nan, 0.0]))
    with pytest.raises(GoalTypeError, match="CenterJointsGoal: weight must be a number") as e:
        bioik.CenterJointsGoal(weight="heavy")
    assert isinstance(e.value, TypeError) and isinstance(e.value, ValueError)


def test_unknown_name_message_has_no_key_error_quotes():
    assert str(UnknownNameError("unknown link 'x'")) == "unknown link 'x'"


def test_unknown_link_name_is_a_bioik_error():
    robot = bioik.load_robot("ur5")
    with pytest.raises(bioik.BioikError, match="unknown link 'no_such_link'") as e:
        robot.link_index("no_such_link")
    assert isinstance(e.value, KeyError) and isinstance(e.value, ValueError)


def test_malformed_urdf_is_a_bioik_error():
    with pytest.raises(bioik.BioikError) as e:
        bioik.load_robot('<robot name="broken"><link name="a"></robot>')
    assert isinstance(e.value, URDFError) and isinstance(e.value, ValueError)


def test_unknown_robot_name_is_a_bioik_error():
    with pytest.raises(bioik.BioikError, match="closest: ur5"):
        bioik.load_robot("ur55")


def test_unknown_solver_name_is_a_bioik_error():
    robot = bioik.load_robot("ur5")
    goal = bioik.PoseGoal(robot.tips[0], np.eye(4))
    with pytest.raises(bioik.BioikError, match="unknown solver 'no_such_solver'"):
        bioik.solve(robot, [goal], solver="no_such_solver")
