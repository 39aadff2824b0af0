"""A real arm that picks and places: Universal Robots UR5 with its maker's limits
(``example-robot-data``'s ``ur_description``: Universal Robots' description, BSD-3-Clause;
loaded from the installed package, not shipped with vart).

*Add Example > UR5: Pick and Place* (``ur5_pick_place``) imports the robot on a fixed base
at the 3D cursor and, with vart's operators as a user would:

- operates its six joints to :data:`HOME` (elbow up, the tool pointing down);
- adds a tool frame ``gripper_tcp`` :data:`TCP_OFFSET` beyond the flange's ``tool0``
  (*Add Tool Frame* at the 3D cursor; ``tool0``, which the import marked as a tool, is
  unmarked: the gripper's tip is the tool) and sets *Keep Configuration* on it: the arm
  stays on its home branch (shoulder, elbow up, wrist) whatever the moves ask;
- keys the tool's waypoints (:data:`PROGRAM`): from home a *Joint* move above the pick
  point, a *Linear* approach straight down, a pause, a *Linear* retreat straight up, a
  *Joint* transfer above the place point (turning the tool a quarter turn), the same
  approach, pause and retreat there, and a *Joint* move home; every move eased.

Bake Range gives the motion: on the Linear moves the tool's tip stays on its line.
"""
from __future__ import annotations

import numpy as np

from ..bridge import tools as TL
from ..solver import se3
from .common import Built, _frames, _origin, at, pose, robot_urdf
from .steps import Steps

#: The robot's URDF inside example-robot-data's robots folder.
UR5_URDF = ("ur_description", "urdf", "ur5_robot.urdf")
ARM = ("shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint",
       "wrist_2_joint", "wrist_3_joint")
#: The arm's start (degrees): elbow up, the tool pointing straight down.
HOME = (0.0, -90.0, 90.0, -90.0, -90.0, 0.0)
#: The gripper's tip beyond the flange's tool0, along its z (m).
TCP_OFFSET = 0.15
#: Where the part is picked and placed (m, from the robot's base) and how high above them
#: the tool approaches from (m).
PICK, PLACE, ABOVE = (0.45, -0.25, 0.10), (0.30, 0.45, 0.10), 0.15
#: The waypoints: (frame, where, tool turned about the vertical (degrees), move into it);
#: every move eased. ``home`` is the tool's pose at HOME.
PROGRAM = (
    (1, "home", 0.0, "JOINT"),
    (20, "pick_above", 0.0, "JOINT"),
    (32, "pick", 0.0, "LINEAR"),
    (38, "pick", 0.0, "LINEAR"),
    (50, "pick_above", 0.0, "LINEAR"),
    (74, "place_above", 90.0, "JOINT"),
    (86, "place", 90.0, "LINEAR"),
    (92, "place", 90.0, "LINEAR"),
    (104, "place_above", 90.0, "LINEAR"),
    (128, "home", 0.0, "JOINT"),
)
FRAMES = PROGRAM[-1][0]
def waypoint_poses(T_home: np.ndarray, base: np.ndarray) -> dict:
    """``(where, turn)`` -> ``T_world_tool`` of the program's waypoints: the home pose, and
    the pick and place points (and above them) in the base's frame, with the home pose's
    rotation turned by ``turn`` degrees about the vertical."""
    out = {}
    points = {"pick": PICK, "place": PLACE}
    for _f, where, turn, _m in PROGRAM:
        if where == "home":
            out[(where, turn)] = T_home.copy()
            continue
        p = np.asarray(points[where.split("_")[0]], float) + (
            (0.0, 0.0, ABOVE) if where.endswith("_above") else 0.0)
        R = se3.so3_exp(np.radians(turn) * np.array([0.0, 0.0, 1.0])) @ T_home[:3, :3]
        out[(where, turn)] = at(base[:3, :3] @ p + base[:3, 3], R)
    return out


def example_ur5_pick_place(context) -> Built:
    """UR5: Pick and Place (see the module doc)."""
    from ..io_urdf import import_urdf
    path = robot_urdf(UR5_URDF, "UR5 (its description is Universal Robots', BSD-3-Clause)")
    base = at(_origin(context))
    robot = import_urdf(path, context=context, scene=context.scene, use_env=False,
                        fixed_base=True, base_pose=base, place_on_ground=False)
    links = dict(robot)
    built = Built("ur5_pick_place", robot.collection, links)
    steps = Steps(context)
    try:
        for jn, v in zip(ARM, HOME):
            steps.operate(robot.joints[jn], [v])
        tool0 = links["tool0"]
        steps.select(tool0)
        steps.op("mark_tool", on=False)
        steps.cursor(pose(tool0) @ at((0.0, 0.0, TCP_OFFSET)))
        steps.op("add_tool", name="gripper_tcp")
        tcp = context.view_layer.objects.active
        links["gripper_tcp"] = tcp
        steps.select(tcp)
        steps.op("set_keep_configuration")  # elbow up, shoulder and wrist as at home
        poses = waypoint_poses(pose(tcp), base)
        for frame, where, turn, move in PROGRAM:
            TL.key_waypoint(tcp, frame, poses[(where, turn)], move, ease=True)
    finally:
        steps.close()
    built.frames = _frames(context.scene, FRAMES)
    steps.select(tcp)
    return built
