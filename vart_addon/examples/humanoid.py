"""A real humanoid that shifts its weight and lifts a foot: Unitree G1 with its maker's masses
and effort limits (``example-robot-data``'s ``g1_description``: Unitree's ``unitree_ros``
description, BSD-3-Clause; loaded from the installed package, not shipped with vart).

*Add Example > G1: Lift a Foot* (``g1_lift_foot``) imports the robot standing on the ground
(z = 0) under the 3D cursor, knees a little bent (:data:`STANCE`), and adds, with vart's
operators as a user would:

- ``pelvis_level``, a virtual *Cartesian-3* from the world to the pelvis: it translates,
  never rotates;
- pins under the left sole, ``left_sole_0`` .. ``left_sole_3``: virtual spherical joints from
  the world at the bottoms of the sole's four collision spheres (read from the URDF), so the
  sole stays where it stands;
- ``right_step``, a virtual link at the right foot, fixed to it by ``right_step_joint`` (a
  virtual fixed joint: the sole stays level); its location and rotation are keyed: on the
  ground, :data:`CLEAR` up (slowly: the foot gives its load over to the left one),
  :data:`LIFT` up, and down the same way;
- the waist and arm joints locked (the upper body stays as it stands);
- on the pelvis a *CoM Over*, keyed (:data:`COM_OVER`): from over the middle of the two
  soles to over the left sole's middle and back, and a *Balance* (margin :data:`MARGIN`)
  over the left sole's pins, keyed on while the centre of mass is over the left sole
  (:data:`BALANCE_ON`; off while both feet carry it from the middle).

The motion is slow for a reason: G1 sways on its ankles about once a second (a servo damps
what its joint moves with the base free, an ankle its foot: the whole robot swinging on it is
barely damped), and the right foot leaves and meets the ground over two seconds, so that its
load goes over to the left foot without a jolt (over one second, the MuJoCo replay falls
after the foot is down again). Frames 1 to :data:`FRAMES` (24 fps):
*Bake Range*, then *Will It Run?*: balanced on every frame, every joint well within its effort
limit, no loaded contact sliding; the MuJoCo replay stays up.
"""
from __future__ import annotations

import numpy as np

from ..bridge.animation import key_channels
from .common import (
    Built,
    ExampleError,
    _frames,
    _origin,
    at,
    centre_of_mass,
    key_path,
    pose,
    robot_urdf,
    set_interpolation,
)
from .steps import Steps

#: The robot's URDF inside example-robot-data's robots folder.
G1_URDF = ("g1_description", "urdf", "g1_29dof_rev_1_0.urdf")
#: The stance (rad): hips, knees and ankles bent so that the soles lie flat.
BEND = 0.2
STANCE = {f"{side}_{joint}_joint": value for side in ("left", "right")
          for joint, value in (("hip_pitch", -BEND), ("knee", 2 * BEND), ("ankle_pitch", -BEND))}
#: Joints held as they stand (locked): the waist and both arms.
LOCKED = ("waist_yaw_joint", "waist_roll_joint", "waist_pitch_joint") + tuple(
    f"{side}_{joint}_joint" for side in ("left", "right")
    for joint in ("shoulder_pitch", "shoulder_roll", "shoulder_yaw", "elbow", "wrist_roll",
                  "wrist_pitch", "wrist_yaw"))
LEFT_FOOT, RIGHT_FOOT = "left_ankle_roll_link", "right_ankle_roll_link"
#: The pelvis's balance margin (m), inside the left sole's pins.
MARGIN = 0.01
#: How high the right foot is lifted, and the height over which it gives and takes its load
#: slowly (m).
LIFT, CLEAR = 0.06, 0.015
#: Frames (24 fps): the centre of mass goes over the left sole (both feet down), the right
#: foot gives its load over (to CLEAR), goes up to LIFT, stays, comes down to CLEAR, takes its
#: load back, and the centre of mass goes back to the middle.
SHIFTED, UNLOADED, UP, HELD, DOWN, LOADED, FRAMES = 49, 97, 115, 127, 145, 193, 241
#: The CoM Over point as (frame, share of the way from over the middle of the soles to over
#: the left sole's middle): both feet carry it there until the right one lifts.
COM_OVER = ((1, 0.0), (SHIFTED, 0.875), (UNLOADED, 1.0), (DOWN, 1.0), (LOADED, 0.875),
            (FRAMES, 0.0))
#: The right foot's handle's height above where it stands, (frame, m).
STEP = ((1, 0.0), (SHIFTED, 0.0), (UNLOADED, CLEAR), (UP, LIFT), (HELD, LIFT), (DOWN, CLEAR),
        (LOADED, 0.0), (FRAMES, 0.0))
#: Balance is on from SHIFTED to LOADED (frame, on).
BALANCE_ON = ((1, False), (SHIFTED, True), (LOADED, False))
def sole_points(path, link: str = LEFT_FOOT) -> np.ndarray:
    """The bottoms of ``link``'s collision spheres in its frame (n x 3, m): where the sole
    touches the ground when it lies flat (G1's four corners)."""
    from ..formats.urdf.files import read_urdf
    from ..formats.urdf.geometry import Sphere
    bottoms = [np.asarray(c.origin.xyz, float) - np.array([0.0, 0.0, c.geometry.radius])
               for c in read_urdf(path).link_by_name(link).collisions
               if isinstance(c.geometry, Sphere)]
    if not bottoms:
        raise ExampleError(f"{path}: link {link!r} has no collision spheres under its sole")
    return np.array(bottoms)


def _under(T_world_foot: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``points`` (n x 3, the foot's frame) in the world (n x 3, m)."""
    return points @ T_world_foot[:3, :3].T + T_world_foot[:3, 3]


def _ease(ob, path: str) -> None:
    """``ob``'s keys on ``path`` eased in and out (Bezier, auto-clamped handles: at rest at
    every key where the value turns or stays)."""
    set_interpolation(ob, path, 'BEZIER', 'AUTO_CLAMPED')


def _key_switch(ob, key: str, frames_on) -> None:
    """Key ``ob["vart"]["link"][key]`` (a goal's switch) at ``(frame, on)`` pairs, held
    between keys (constant); the stored value is put back as it was."""
    link = ob["vart"]["link"]
    before, path = link[key], f'["vart"]["link"]["{key}"]'
    for frame, on in frames_on:
        link[key] = bool(on)
        key_channels(ob, path, float(frame), group="Vart")
    link[key] = before
    set_interpolation(ob, path, 'CONSTANT')


def example_g1_lift_foot(context) -> Built:
    """G1: Lift a Foot (see the module doc)."""
    from ..animation.keying import rotation_path
    from ..io_urdf import import_urdf
    path = robot_urdf(G1_URDF, "G1 (its description is Unitree's, BSD-3-Clause)")
    o = _origin(context) * (1.0, 1.0, 0.0)  # on the ground (z = 0) under the 3D cursor
    robot = import_urdf(path, context=context, scene=context.scene, use_env=False,
                        q=STANCE, base_pose=at(o + (0.0, 0.0, 0.8)))
    links = dict(robot)
    built = Built("g1_lift_foot", robot.collection, links)
    steps = Steps(context)
    try:
        pelvis, left, right = links["pelvis"], links[LEFT_FOOT], links[RIGHT_FOOT]
        T_left, T_right = pose(left), pose(right)
        under_left, under_right = _under(T_left, sole_points(path)), _under(
            T_right, sole_points(path, RIGHT_FOOT))
        built.joints.append(steps.add_joint("cartesian-3", pelvis, None,
                                            at=at(pose(pelvis)[:3, 3]), name="pelvis_level"))
        for k, p in enumerate(under_left):
            built.joints.append(steps.add_joint("spherical", left, None, at=at(p),
                                                name=f"left_sole_{k}"))
        step = steps.add_virtual_link("right_step", T_right)
        step.empty_display_type = 'CUBE'
        step.empty_display_size = 0.03
        built.joints.append(steps.add_joint("fixed", right, step, at=T_right,
                                            name="right_step_joint"))
        for joint in LOCKED:
            steps.lock_joint(joint)
        middle = np.mean(np.vstack([under_left, under_right]), axis=0)
        over_left = np.mean(under_left, axis=0)
        height = centre_of_mass(links)[2]

        def over(share):
            p = middle + share * (over_left - middle)
            return np.array([p[0], p[1], height])

        steps.select(pelvis)
        steps.op("set_balance", margin=MARGIN)
        steps.cursor(at(over(0.0)))
        steps.op("set_com_over")
        com_path = '["vart"]["link"]["com_over_point"]'
        key_path(pelvis, com_path, [(f, over(share)) for f, share in COM_OVER])
        _ease(pelvis, com_path)
        _key_switch(pelvis, "balance", BALANCE_ON)
        p = T_right[:3, 3]
        key_path(step, "location", [(f, p + (0.0, 0.0, h)) for f, h in STEP])
        _ease(step, "location")
        for f, _h in STEP:  # location keys alone would leave the handle free to turn
            key_channels(step, rotation_path(step), float(f), group="Vart")
    finally:
        steps.close()
    built.frames = _frames(context.scene, FRAMES)
    steps.select(pelvis)
    return built
