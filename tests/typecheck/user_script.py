"""A user's script that uses every name of `bioik.__all__` as documented: mypy must find no
error in it (tests/test_typecheck.py). It is only type-checked, never run (pytest does
not collect it: its name does not start with test_)."""

from __future__ import annotations

import numpy as np

import bioik

robot: bioik.Robot = bioik.load_robot("ur5")
names: list[str] = bioik.robots.names()
tip = robot.tips[0]
q = robot.random_configuration(0)
T: np.ndarray = robot.link_pose(q, tip)
p = T[:3, 3]
z = np.array([0.0, 0.0, 1.0])

scene = bioik.Scene()
scene.add_box("table", (1.2, 0.8, 0.05), np.eye(4))
scenario = bioik.scenes.load(bioik.scenes.names()[0])

goals: list[bioik.Goal] = [
    bioik.PoseGoal(tip, T),
    bioik.PositionGoal(tip, p, weight=2.0),
    bioik.OrientationGoal(tip, T[:3, :3]),
    bioik.LookAtGoal(tip, p),
    bioik.DirectionGoal(tip, z),
    bioik.AlignmentGoal(tip, z),
    bioik.LineGoal(tip, p, z),
    bioik.ConeGoal(tip, z, 0.3),
    bioik.SideGoal(tip, z),
    bioik.MinDistanceGoal(tip, p, 0.1),
    bioik.MaxDistanceGoal(tip, p, 0.5),
    bioik.RCMGoal([tip], p),
    bioik.BalanceGoal(),
    bioik.CollisionAvoidanceGoal(scene),
    bioik.ClearanceGoal(scene),
    bioik.ObstacleDistanceGoal(tip, scene, "table"),
    bioik.TouchGoal(tip, p, z),
    bioik.ScanGoal(tip, p, z),
    bioik.JointVariableGoal("shoulder_pan_joint", 0.5),
    bioik.CenterJointsGoal(),
    bioik.AvoidJointLimitsGoal(),
    bioik.MinimalDisplacementGoal(secondary=True),
    bioik.LinkFunctionGoal(tip, lambda pose: float(pose[2, 3])),
    bioik.JointFunctionGoal(lambda q: q * 0.0),
]
goal_module_names: list[str] = bioik.goals.__all__

result: bioik.Result = bioik.solve(robot, goals, seed=q, timeout=0.01, scene=scene)
solver = bioik.Solver(robot, "bio2_memetic", timeout=0.01)
again: bioik.Result = solver.solve(goals, seed=result.q)
problem = bioik.Problem(robot, goals)
cost, secondary_cost = problem.cost(result.q)

batch = bioik.GoalBatch([bioik.PoseGoal(tip, T)], [T, T])
batch_result: bioik.BatchResult = bioik.solve_batch(robot, batch)
success: np.ndarray = batch_result.success

tracked: bioik.TrackResult = bioik.track(robot, [[bioik.PoseGoal(tip, T)]], q)
rolled: bioik.Rollout = bioik.rollout(robot, goals, q, iterations=10)

passage: bioik.Passage | None = bioik.PassageFinder(scene, reach=0.5).find(p, z)
through: bioik.Result = bioik.PassageSolver(robot, tip, "wrist_1_link", scene).solve(T)
decoupled: bioik.Result = bioik.Decoupler(robot, tip, "wrist_1_link", scene, None).solve(T)
split: bioik.Result = bioik.decoupled_solve(robot, goals, split_link="wrist_1_link", opening="tank", scene=scene)

checker = bioik.CollisionChecker(robot, scene)
free: bool = checker.is_free(q)
contacts: list[bioik.Contact] = checker.contacts(q)

config = bioik.KinematicsConfig(solver="lm", timeout=0.01)
q_ik, code = bioik.get_position_ik(robot, {tip: T}, q, options=config)
q_search, code = bioik.search_position_ik(robot, [T], q, timeout=0.01, options=config)
solved: bool = code == bioik.IKErrorCode.SUCCESS
moveit: bioik.MoveItConfig = bioik.load_moveit_config("panda_moveit_config")
arm: bioik.Robot = moveit.robot("panda_arm")
home: np.ndarray = arm.named_configuration("ready")

errors: list[type[bioik.BioikError]] = [
    bioik.BenchError, bioik.GoalError, bioik.GoalRegistryError, bioik.GoalSetRefused, bioik.GoalTypeError,
    bioik.KinematicsConfigError, bioik.MeshNotFoundError, bioik.MoveItConfigError, bioik.MissingNetworkError, bioik.NetworkMismatchError,
    bioik.ParameterError, bioik.ParameterTypeError, bioik.PeerSkipped, bioik.ReachError, bioik.SceneError, bioik.SelfCollisionError,
    bioik.SRDFError, bioik.UnknownNameError, bioik.UnsupportedGoalsError, bioik.URDFError,
]
try:
    bioik.PoseGoal(tip, T, weight=-1.0)
except bioik.GoalError as e:
    message: str = str(e)
