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

import sys
import sysconfig
from pathlib import Path

import numpy as np

from ..bridge.animation import key_channels
from .common import Built, ExampleError, _frames, _origin, at, pose, set_interpolation
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
INSTALL = ("Go2 comes from the package example-robot-data (its description is Unitree's, "
           "MPL-2.0), not shipped with vart: install it into Blender's Python (<blender python> -m pip install "
           "example-robot-data), then add the example again")


def robots_folder() -> Path | None:
    """example-robot-data's ``robots`` folder in this Python's site-packages (cmeel's
    prefix), or None when the package is not installed."""
    roots = [sysconfig.get_paths()["purelib"]] + [p for p in sys.path if p]
    for root in roots:
        folder = Path(root) / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
        if folder.is_dir():
            return folder
    return None


def go2_path() -> Path:
    """The Go2 URDF; :class:`ExampleError` saying how to install it when it is missing."""
    folder = robots_folder()
    path = None if folder is None else folder.joinpath(*GO2_URDF)
    if path is None or not path.is_file():
        raise ExampleError(INSTALL)
    return path


def _key(ob, path: str, frames_values) -> None:
    """Key ``ob``'s property or channel ``path`` (a custom property's value is set first)
    at ``(frame, value)`` pairs, linearly."""
    for frame, value in frames_values:
        if path == "location":
            ob.location = tuple(value)
        else:
            ob.path_resolve(path.rsplit("[", 1)[0])[path.rsplit('"', 2)[1]] = list(value)
        key_channels(ob, path, float(frame), group="Vart")
    set_interpolation(ob, path, 'LINEAR')


def centre_of_mass(links: dict) -> np.ndarray:
    """The robot's centre of mass (world, m) from its link objects' stored masses."""
    from ..bridge import schema as S
    m, c = [], []
    for ob in links.values():
        rec = S.read_object(ob)[0]
        if rec is not None and rec.mass > 0:
            T = pose(ob)
            m.append(rec.mass)
            c.append(T[:3, :3] @ np.asarray(rec.com) + T[:3, 3])
    return np.asarray(m) @ np.array(c) / np.sum(m)


def example_go2_step(context) -> Built:
    """Go2: Lift a Leg (see the module doc)."""
    from ..io_urdf import import_urdf
    path = go2_path()
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
        _key(trunk, '["vart"]["link"]["com_target_point"]',
             [(1, lean), (12, low), (36, low), (FRAMES, lean)])
        _key(step, "location", [(1, p), (12, p), (24, p + (0.0, 0.0, LIFT)), (36, p),
                                (FRAMES, p)])
    finally:
        steps.close()
    built.frames = _frames(context.scene, FRAMES)
    steps.select(trunk)
    return built
