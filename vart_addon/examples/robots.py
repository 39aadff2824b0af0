"""The robots of ``assets/`` (made by ``tools/make_assets.py``), each loaded at the 3D cursor:

- ``athlete``: an ATHLETE-like hexapod, standing (:data:`STANDING`) with its wheels on the
  ground (z = 0 under the 3D cursor); the deck is a free link, nothing else is added;
- ``fourbar`` and ``slider_crank``: the URDF tree (fixed to the world) closed by a real
  revolute joint, the crank keyed through one turn (ready to Bake);
- ``stewart``: six UPS legs closed at the platform by real spherical joints, the platform's
  floating joint keyed up, tilted and back.

These closing joints are added through the bridge with float64 frames
(:func:`add_joint_exact`), not at the 3D cursor: the cursor holds its rotation in single
precision, and a planar loop whose closing axis is 4e-8 rad off its other (exact) axes no
longer moves.
"""
from __future__ import annotations

import math
import pathlib

import numpy as np

from ..bridge import schema as S
from .common import (
    _PLANAR,
    MECHANISM_FRAMES,
    Built,
    ExampleError,
    _frames,
    _origin,
    _scene_joint_names,
    at,
    key_value,
    pose,
)

ASSETS = pathlib.Path(__file__).resolve().parents[2] / "assets"

#: The reference stance per limb joint (rad): thigh up 20 degrees, the ankle segment straight
#: down; it fixes where each wheel stands (:func:`stance`).
STRAIGHT = {"hip_yaw": 0.0, "hip_pitch": -0.35, "knee_pitch": 1.45,
            "ankle_pitch": math.pi / 2 - 1.10, "ankle_roll": 0.0, "wheel": 0.0}
#: How far (rad) the standing hexapod inclines each ankle segment from the vertical (negative:
#: its wheel outward of the ankle, see :func:`stance`). With the segment straight down the
#: ankle roll axis is vertical, parallel to the hip yaw axis, and no joint can lean the wheel
#: about its heading: a wheel held upright then locks the deck's roll to first order (the
#: stories' solves stall at once). Inclined, the ankle roll axis has a component along the
#: heading, and the ankle roll leans the wheel back upright.
ANKLE_INCLINE = -0.3
WHEEL_RADIUS = 0.15         # m (tools/make_assets.py)
#: A limb's thigh, shin and ankle segment (ankle pitch joint to wheel centre: ANKLE + FOOT), m
#: (tools/make_assets.py).
LIMB = (0.8, 0.8, 0.35)


def stance(incline: float) -> dict:
    """A limb's joint values (rad) with its wheel centre where :data:`STRAIGHT` puts it and its
    ankle segment (ankle pitch -> wheel centre) inclined ``incline`` rad from straight down
    (positive: the wheel inward of the ankle pitch joint), the knee up; the wheel upright
    (ankle roll 0), for the limb lengths :data:`LIMB`."""
    thigh, shin, foot = LIMB
    # the pitch plane, from the hip pitch joint: x outward, z up; cumulative pitch a points a
    # segment along (cos a, -sin a)
    a1 = STRAIGHT["hip_pitch"]
    a2 = a1 + STRAIGHT["knee_pitch"]
    centre = thigh * np.array([math.cos(a1), -math.sin(a1)]) + \
        shin * np.array([math.cos(a2), -math.sin(a2)]) - (0.0, foot)
    ankle = centre + foot * np.array([math.sin(incline), math.cos(incline)])
    reach = float(np.linalg.norm(ankle))
    knee = math.acos((reach ** 2 - thigh ** 2 - shin ** 2) / (2 * thigh * shin))
    hip = math.atan2(-ankle[1], ankle[0]) - math.atan2(shin * math.sin(knee),
                                                       thigh + shin * math.cos(knee))
    return dict(STRAIGHT, hip_pitch=hip, knee_pitch=knee,
                ankle_pitch=math.pi / 2 + incline - hip - knee)


#: The hexapod's standing pose per limb joint (rad): :func:`stance` at :data:`ANKLE_INCLINE`.
STANDING = stance(ANKLE_INCLINE)


def asset(name: str) -> pathlib.Path:
    """The URDF file of robot ``name`` in ``assets/`` (ExampleError if it is missing)."""
    path = ASSETS / name / f"{name}.urdf"
    if not path.is_file():
        raise ExampleError(f"asset {path} is missing (a broken install?)")
    return path


def _import(context, name: str, **kw):
    from ..io_urdf import import_urdf
    return import_urdf(asset(name), context=context, scene=context.scene, use_env=False, **kw)


def standing_pose(straight=()) -> tuple[dict, float]:
    """(URDF joint values, deck height) of the standing hexapod: the wheels' lowest points on
    z = 0; the legs in ``straight`` stand with their ankle segment straight down
    (:data:`STRAIGHT`), the others as :data:`STANDING`."""
    from ..formats.urdf import files as urdf
    q = {f"leg{k}_{j}": v for k in range(6)
         for j, v in (STRAIGHT if k in straight else STANDING).items()}
    robot = urdf.read_urdf(asset("athlete"))
    T = urdf.link_poses(robot, q)
    return q, WHEEL_RADIUS - float(T["leg0_wheel"][2, 3])


def load_athlete(context, straight=()) -> Built:
    """The hexapod standing at the 3D cursor (:func:`standing_pose`)."""
    q, height = standing_pose(straight)
    o = _origin(context)
    robot = _import(context, "athlete", q=q, base_pose=at(o + (0.0, 0.0, height)),
                    place_on_ground=False)  # its wheels on the 3D cursor's height
    return Built("athlete", robot.collection, dict(robot), [])


def contact(wheel_ob) -> np.ndarray:
    """The lowest point of an upright wheel (world): under its centre by the radius."""
    return pose(wheel_ob)[:3, 3] - (0.0, 0.0, WHEEL_RADIUS)


def _add_mechanism(context, name, closures, crank, turn=2 * math.pi) -> Built:
    """Import ``name`` (fixed to the world), close it with real joints ``closures`` =
    [(joint name, type, parent link, child link, point in the parent's frame, axis-frame
    rotation)], key ``crank`` through ``turn`` over MECHANISM_FRAMES."""
    o = _origin(context)
    robot = _import(context, name, base_pose=at(o), fixed_base=True)
    built = Built(name, robot.collection, dict(robot))
    for jn, jtype, parent, child, point, R, on in closures:
        built.joints.append(add_joint_exact(context, jn, jtype, robot[parent], robot[child],
                                            point, R, on=on))
    if crank:
        jn = robot.joints[crank]
        ob = _child_of(context.scene, jn)
        q0 = float(ob[S.KEY]["joints"][jn]["q"][0])
        key_value(ob, jn, "q", [(1, [q0]), (MECHANISM_FRAMES, [q0 + turn])])
        built.driven = jn
        built.frames = _frames(context.scene, MECHANISM_FRAMES)
    return built


def add_joint_exact(context, name, jtype, parent_ob, child_ob, point, R, *,
                    on: str = "parent") -> str:
    """Add a real joint through the bridge (what ``vart.add_joint`` does) with its frame at
    ``point`` in the frame of the parent link (``on="parent"``) or of the child, and world
    rotation ``R``, in float64: the 3D cursor keeps
    rotations in float32, ~4e-8 rad off an exact axis, enough to lock a planar loop whose other
    axes come exact from a URDF. Returns the joint's name (made unique)."""
    from ..bridge import BridgeError, edits
    from ..shared.bridge_cache import bridge_for, solve_kw
    from ..solver import VartError
    scene = context.scene

    def mutate(lk):
        jn = edits.unique_joint_name(name, lk.joints)
        T = lk.pose((parent_ob if on == "parent" else child_ob).name)
        W = at((T @ np.append(point, 1.0))[:3], R)
        lk.add_joint(jn, jtype, parent_ob.name, child_ob.name, world_frame=W)
        return jn

    try:
        res = edits.edit(mutate, scene, bridge=bridge_for(scene), **solve_kw(scene))
    except (BridgeError, VartError) as e:
        raise ExampleError(f"joint {name!r}: {e}") from None
    return res.value


def _child_of(scene, joint: str):
    from ..shared.selection import joint_names
    return joint_names(scene)[joint]


def load_fourbar(context) -> Built:
    b = _coupler_length()
    return _add_mechanism(context, "fourbar",
                          [("C", "revolute", "coupler", "rocker", (b, 0.0, 0.0), _PLANAR,
                            "parent")],
                          "A")


def _coupler_length() -> float:
    """Where the coupler meets the rocker, along the coupler's x: the pin drawn there."""
    from ..formats.urdf import files as urdf
    robot = urdf.read_urdf(asset("fourbar"))
    return float(next(v for v in robot.link_by_name("coupler").visuals
                      if v.name == "coupler_end").origin.xyz[0])


def load_slider_crank(context) -> Built:
    # the rod meets the slider at the slider's origin (its pin)
    return _add_mechanism(context, "slider_crank",
                          [("rod_slider", "revolute", "rod", "slider", (0.0, 0.0, 0.0),
                            _PLANAR, "child")], "crank_joint")


def load_stewart(context) -> Built:
    # the ball at the tip of leg i's upper rod (its link origin) meets the platform there
    built = _add_mechanism(context, "stewart", [
        (f"leg{i}_ball", "spherical", "platform", f"leg{i}_upper", (0.0, 0.0, 0.0),
         np.eye(3), "child") for i in range(6)], None)
    # the platform's floating joint (x, y, z, rotation vector) keyed: up and tilted, back
    jn = next(n for n in _scene_joint_names(context.scene)
              if n == "platform_float" or n.startswith("platform_float."))
    ob = _child_of(context.scene, jn)
    tilt = [0.05, 0.0, 0.08, math.radians(12), 0.0, 0.0]
    key_value(ob, jn, "q", [(1, [0.0] * 6), (MECHANISM_FRAMES // 2, tilt),
                            (MECHANISM_FRAMES, [0.0] * 6)])
    built.driven = jn
    built.frames = _frames(context.scene, MECHANISM_FRAMES)
    return built
