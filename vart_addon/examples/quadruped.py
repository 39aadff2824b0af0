"""A real quadruped that stands while it steps: Unitree Go2 with its maker's masses and effort
limits (``example-robot-data``'s ``go2_description``: Unitree's ``unitree_ros`` description,
MPL-2.0, with an SRDF added; loaded from the installed package, not shipped with vart).

*Add Example > Go2: Lift a Leg* (``go2_step``) imports the robot in its SRDF ``standing`` pose
on the ground (z = 0) under the 3D cursor and adds, with vart's operators as a user would:

- ``base_level``, a virtual *Cartesian-3* from the world to the trunk (``base``): it
  translates, never rotates;
- pins on three feet, ``FL_pin``, ``RL_pin``, ``RR_pin``: virtual spherical joints from the
  world at each foot's contact point (the bottom of its sphere), so a foot may roll about it,
  never slide or lift;
- ``FR_step``, a virtual link at the front right foot's contact point, joined to the foot by a
  virtual spherical joint ``FR_step_joint``; its location is keyed: on the ground, 8 cm up,
  down again;
- a *Balance* goal on the trunk (margin :data:`MARGIN`): the centre of mass over the three
  pinned feet, and a *CoM Target* on it, keyed: over the middle of those feet at its
  standing height, 4 cm lower (a crouch) while the leg lifts and comes down, and up again.

Frames 1 to 48: *Bake Range*, then *Will It Run?*: balanced on every frame, the joints within
a fifth of their effort limits, no loaded contact sliding; the MuJoCo replay stays up.
"""
from __future__ import annotations

import numpy as np

from .common import Built, _frames, _origin, at, centre_of_mass, key_path, pose, robot_urdf
from .steps import Steps

#: The robot's URDF inside example-robot-data's robots folder.
GO2_URDF = ("go2_description", "urdf", "go2.urdf")
#: Frames of the motion (2 s at 24 fps).
FRAMES = 48
#: The trunk's balance margin (m).
MARGIN = 0.02
#: How high the front right foot lifts and how deep the crouch goes (m).
LIFT, CROUCH = 0.08, 0.04
FEET = ("FL_foot", "FR_foot", "RL_foot", "RR_foot")
STANDING = ("FL_foot", "RL_foot", "RR_foot")
def example_go2_step(context) -> Built:
    """Go2: Lift a Leg (see the module doc)."""
    from ..io_urdf import import_urdf
    path = robot_urdf(GO2_URDF, "Go2 (its description is Unitree's, MPL-2.0)")
    o = _origin(context) * (1.0, 1.0, 0.0)  # on the ground (z = 0) under the 3D cursor
    robot = import_urdf(path, context=context, scene=context.scene, use_env=False,
                        start="srdf", base_pose=at(o + (0.0, 0.0, 0.5)))
    links = dict(robot)
    built = Built("go2_step", robot.collection, links)
    steps = Steps(context)
    try:
        trunk = links["base"]
        ground = {f: pose(links[f])[:3, 3] * (1.0, 1.0, 0.0) for f in FEET}  # under each
        built.joints.append(steps.add_joint("cartesian-3", trunk, None,
                                            at=at(pose(trunk)[:3, 3]), name="base_level"))
        for f in STANDING:
            built.joints.append(steps.add_joint("spherical", links[f], None, at=at(ground[f]),
                                                name=f"{f[:2]}_pin"))
        p = ground["FR_foot"]
        step = steps.add_virtual_link("FR_step", at(p))
        step.empty_display_type = 'SPHERE'
        step.empty_display_size = 0.03
        built.joints.append(steps.add_joint("spherical", links["FR_foot"], step, at=at(p),
                                            name="FR_step_joint"))
        c = centre_of_mass(links)
        middle = np.mean([ground[f] for f in STANDING], axis=0)
        lean = np.array([middle[0], middle[1], c[2]])
        low = lean - (0.0, 0.0, CROUCH)
        steps.select(trunk)
        steps.op("set_balance", margin=MARGIN)
        steps.cursor(at(lean))
        steps.op("set_com_target")
        key_path(trunk, '["vart"]["link"]["com_target_point"]',
             [(1, lean), (12, low), (36, low), (FRAMES, lean)])
        key_path(step, "location", [(1, p), (12, p), (24, p + (0.0, 0.0, LIFT)), (36, p),
                                (FRAMES, p)])
    finally:
        steps.close()
    built.frames = _frames(context.scene, FRAMES)
    steps.select(trunk)
    return built
