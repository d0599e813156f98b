"""Robot models: URDF parsing, links, joints, variables and groups (pure data)."""

from bioik.model.group import Group, resolve_group
from bioik.model.names import UnknownNameError
from bioik.model.robot_model import Geometry, Joint, Link, RobotModel, Variable
from bioik.model.urdf import URDFError, parse_urdf

__all__ = ["Geometry", "Group", "Joint", "Link", "RobotModel", "URDFError", "UnknownNameError", "Variable", "parse_urdf", "resolve_group"]
