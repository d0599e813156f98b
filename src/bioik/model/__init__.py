"""Robot models: URDF parsing, links, joints, variables and groups (pure data)."""

from bioik.model.group import Group, resolve_group
from bioik.model.meshes import mesh_candidates, resolve_mesh
from bioik.model.names import UnknownNameError
from bioik.model.robot_model import Geometry, Joint, Link, RobotModel, Variable
from bioik.model.urdf import URDFError, parse_urdf

__all__ = ["Geometry", "Group", "Joint", "Link", "RobotModel", "URDFError", "UnknownNameError", "Variable", "mesh_candidates",
           "parse_urdf", "resolve_group", "resolve_mesh"]
