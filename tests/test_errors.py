"""Every error bioik defines derives from `bioik.BioikError` and keeps its builtin base."""

import numpy as np
import pytest

import bioik
from bioik.bench.peers import PeerSkipped
from bioik.bench.store import BenchError
from bioik.errors import BioikError
from bioik.model.names import UnknownNameError
from bioik.model.urdf import URDFError
from bioik.solvers.core.family import UnsupportedGoalsError


def test_bioik_error_is_exported():
    assert bioik.BioikError is BioikError
    assert "BioikError" in bioik.__all__
    assert issubclass(BioikError, Exception)


@pytest.mark.parametrize(
    ("error", "builtins"),
    [(UnknownNameError, (KeyError, ValueError)), (URDFError, (ValueError,)), (UnsupportedGoalsError, (ValueError,)), (BenchError, (ValueError,)), (PeerSkipped, ())],
)
def test_errors_derive_from_bioik_error_and_keep_their_builtin_base(error, builtins):
    assert issubclass(error, BioikError)
    for base in builtins:
        assert issubclass(error, base)


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
