"""BioIK 2's neural-network solvers [R 3.6]: `neural` and `neural2` (`search`), their
networks (`network`: plain arrays, compiled inference) and their training (`train`,
which needs the optional extra `bioik[neural]`).

[R] Philipp Sebastian Ruppel. Performance optimization and implementation of evolutionary
inverse kinematics in ROS. Master's thesis, Universität Hamburg, 2017; section 3.6.
"""
