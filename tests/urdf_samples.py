"""Small URDFs the tests share (a module of its own: test folders have conftest.py files of
their own, so `from conftest import …` would find whichever was imported first)."""

#: A tree with every joint type: revolute about a skew axis, continuous, prismatic,
#: fixed, a mimic of the prismatic joint, and two branches (two tips).
TREE_URDF = """<?xml version="1.0"?>
<robot name="tree">
  <link name="base"><inertial><origin xyz="0 0 0.1"/><mass value="2.0"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision></link>
  <link name="l1"><collision><origin xyz="0 0 0.15"/><geometry><cylinder radius="0.05" length="0.3"/></geometry></collision></link>
  <link name="l2"><collision><geometry><sphere radius="0.04"/></geometry></collision></link>
  <link name="l3"/>
  <link name="slider"/>
  <link name="finger"/>
  <link name="tip_a"/>
  <link name="tip_b"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0.1 0 0.2" rpy="0.1 0.2 0.3"/><axis xyz="0.3 -0.5 0.8"/>
    <limit lower="-2.5" upper="2.0" velocity="2.0" effort="10"/></joint>
  <joint name="j2" type="continuous"><parent link="l1"/><child link="l2"/>
    <origin xyz="0 0.05 0.3" rpy="-0.4 0 0.7"/><axis xyz="0 1 0"/></joint>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/>
    <origin xyz="0.25 0 0" rpy="0 0 0"/><axis xyz="0 0 -1"/>
    <limit lower="-1.5" upper="1.5" velocity="1.0" effort="10"/></joint>
  <joint name="fix_a" type="fixed"><parent link="l3"/><child link="tip_a"/><origin xyz="0.1 0.02 -0.03" rpy="1.0 0.5 -0.2"/></joint>
  <joint name="slide" type="prismatic"><parent link="l1"/><child link="slider"/>
    <origin xyz="0 0 0.1" rpy="0 1.5707963 0"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.2" velocity="0.5" effort="10"/></joint>
  <joint name="finger_joint" type="revolute"><parent link="slider"/><child link="finger"/>
    <origin xyz="0.05 0 0" rpy="0 0 0"/><axis xyz="0 1 0"/><mimic joint="slide" multiplier="2.0" offset="0.1"/>
    <limit lower="-3" upper="3" velocity="1.0" effort="10"/></joint>
  <joint name="fix_b" type="fixed"><parent link="finger"/><child link="tip_b"/><origin xyz="0.07 0 0"/></joint>
</robot>
"""
