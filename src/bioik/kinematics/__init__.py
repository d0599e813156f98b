"""Forward kinematics, Jacobians and FK extrapolation as compiled kernels, and `Robot`."""

from bioik.kinematics.program import KinematicProgram, build_program
from bioik.kinematics.robot import Robot

__all__ = ["KinematicProgram", "Robot", "build_program"]
