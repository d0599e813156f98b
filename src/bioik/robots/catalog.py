"""The bundled robots: URDF file, named joint groups (like SRDF groups) and default group.

``ROBOTS[name]`` is ``{"urdf": file in robots/urdf/, "description": one line,
"groups": {group name: group}, "default_group": group name}``.
A group is {"chains": [[base, tip], ...]} (the joints between each base and tip; the tips
are the chain ends) and/or {"joints": [...], "tips": [...]}. Joints outside the active
group stay fixed (e.g. the Panda fingers in "panda_arm"); mimic joints (Panda finger 2,
the hand's distal finger joints) follow their leader joint. In dual_ur5 the torso yaw joint
`torso_joint` belongs only to "torso_both_arms" (chains from `world`); the default
"both_arms" keeps the torso fixed. The humanoid's floating base joint `pelvis_free` (6
variables) moves only in "floating_whole_body" (chains from `world`); the default
"whole_body" holds the pelvis still. mobile_ur5's planar base joint (3 variables) moves in
"base_lift_arm". Plain data: no imports.
"""

ROBOTS: dict[str, dict] = {
    "ur5": {
        "urdf": "ur5.urdf",
        "description": "Universal Robots UR5 (CB3), 6 DoF",
        "groups": {"manipulator": {"chains": [["base_link", "tool0"]]}},
        "default_group": "manipulator",
    },
    "ur10": {
        "urdf": "ur10.urdf",
        "description": "Universal Robots UR10 (CB3), 6 DoF",
        "groups": {"manipulator": {"chains": [["base_link", "tool0"]]}},
        "default_group": "manipulator",
    },
    "panda": {
        "urdf": "panda.urdf",
        "description": "Franka Emika Panda, 7 DoF arm with a two-finger hand (fingers frozen by default)",
        "groups": {
            "panda_arm": {"chains": [["panda_link0", "panda_link8"]]},
            "panda_arm_hand": {"chains": [["panda_link0", "panda_hand_tcp"]]},
            "hand": {"joints": ["panda_finger_joint1"], "tips": ["panda_leftfinger", "panda_rightfinger"]},
        },
        "default_group": "panda_arm",
    },
    "iiwa14": {
        "urdf": "iiwa14.urdf",
        "description": "KUKA LBR iiwa 14 R820, 7 DoF",
        "groups": {"manipulator": {"chains": [["iiwa_link_0", "iiwa_link_7"]]}},
        "default_group": "manipulator",
    },
    "elise_ur10": {
        "urdf": "elise_ur10.urdf",
        "description": "UR10 carrying a 3-joint endoscope (roll + two bends), tool frame at the tip",
        "groups": {
            "arm": {"chains": [["base_link", "tool0"]]},
            "endoscope": {"chains": [["tool0", "endoscope_tip"]]},
            "arm_endoscope": {"chains": [["base_link", "endoscope_tip"]]},
        },
        "default_group": "arm_endoscope",
    },
    "dual_ur5": {
        "urdf": "dual_ur5.urdf",
        "description": "Torso with a yaw joint carrying two UR5 arms (two tips)",
        "groups": {
            "left_arm": {"chains": [["left_base_link", "left_tool0"]]},
            "right_arm": {"chains": [["right_base_link", "right_tool0"]]},
            "both_arms": {"chains": [["left_base_link", "left_tool0"], ["right_base_link", "right_tool0"]]},
            "torso_both_arms": {"chains": [["world", "left_tool0"], ["world", "right_tool0"]]},
        },
        "default_group": "both_arms",
    },
    "iiwa14_hand": {
        "urdf": "iiwa14_hand.urdf",
        "description": "KUKA iiwa 14 with a five-finger hand (distal finger joints coupled by mimic)",
        "groups": {
            "arm": {"chains": [["iiwa_link_0", "iiwa_link_7"]]},
            "hand": {"chains": [["iiwa_link_7", t] for t in ("thumb_tip", "index_tip", "middle_tip", "ring_tip", "little_tip")]},
            "arm_hand": {"chains": [["iiwa_link_0", t] for t in ("thumb_tip", "index_tip", "middle_tip", "ring_tip", "little_tip")]},
        },
        "default_group": "arm_hand",
    },
    "humanoid": {
        "urdf": "humanoid.urdf",
        "description": "Generic adult humanoid (1.70 m, 65 kg) on a floating base: 6-joint legs, 3-joint waist, 7-joint arms, 2-joint head",
        "groups": {
            "left_leg": {"chains": [["pelvis", "left_foot"]]},
            "right_leg": {"chains": [["pelvis", "right_foot"]]},
            "legs": {"chains": [["pelvis", "left_foot"], ["pelvis", "right_foot"]]},
            "left_arm": {"chains": [["torso", "left_hand"]]},
            "right_arm": {"chains": [["torso", "right_hand"]]},
            "arms": {"chains": [["torso", "left_hand"], ["torso", "right_hand"]]},
            "waist_arms": {"chains": [["pelvis", "left_hand"], ["pelvis", "right_hand"]]},
            "whole_body": {"chains": [["pelvis", t] for t in ("left_foot", "right_foot", "left_hand", "right_hand")]},
            "floating_whole_body": {"chains": [["world", t] for t in ("left_foot", "right_foot", "left_hand", "right_hand")]},
        },
        "default_group": "whole_body",
    },
    "mobile_ur5": {
        "urdf": "mobile_ur5.urdf",
        "description": "UR5 on a lifting column on a mobile base (planar base joint, prismatic lift, continuous last wrist joint)",
        "groups": {
            "arm": {"chains": [["arm_base_link", "tool0"]]},
            "lift_arm": {"chains": [["base_link", "tool0"]]},
            "base_lift_arm": {"chains": [["world", "tool0"]]},
        },
        "default_group": "base_lift_arm",
    },
}
