"""The four ATHLETE stories (README.md, "The four stories"): the hexapod plus the story's virtual
articulation, added with vart's own operators exactly as a user would (select links, put the
3D cursor at the joint, ``vart.add_joint``, ``vart.lock``, ``vart.operate_joint``...;
:class:`~.steps.Steps`), and the driving virtual joint keyed over frames 1..:data:`STORY_FRAMES`
(press Bake). Feet on the ground are pinned ("feet locked to the ground") as a real ATHLETE's
wheels can be: a virtual revolute joint from the world to the wheel about the vertical through
its contact point keeps the wheel upright there, free to steer about it, never to lean, slide
or lift (a wheel leaning about a spherical pin puts its rim into the ground); when the foot
pitches, the wheel joint turns the wheel back, so the tyre does not slip. (Locking the wheel
link's whole pose would over-constrain a six-joint limb whose wheel axis is parallel to its
pitch axes.) The hexapod stands with its ankle segments inclined
(:data:`~.robots.ANKLE_INCLINE`): straight down, no joint could lean a wheel back upright and a
deck that rolls could not start to move. Story 3's leg 0, which turns the camera about the
vertical with its ankle roll, stands with its ankle straight down.

1. ``camera_tilt``: a virtual revolute ``tilt`` between the world and the deck, its axis the
   side camera's horizontal axis through the camera; six wheels pinned. ``tilt`` keyed 0 -> 20
   degrees: the camera tilts down about its own axis, the legs follow.
2. ``trenching``: a virtual cartesian-3 ``deck_flat`` (world -> deck: the deck translates,
   never rotates); leg 0's foot is the scoop, held by a chain world -(prismatic ``trench``)->
   ``trench_slide`` -(prismatic ``trench_depth``)-> ``trench_depth_link`` -(revolute
   ``scoop_pitch``)-> ``scoop_carrier`` -(revolute ``scoop_roll``)-> scoop; depth and pitch
   locked; the other five feet pinned. ``trench`` keyed -0.9 -> +0.4 m over the ground, the
   scoop's edge :data:`TRENCH_CLEARANCE` above it (its wheel clear).
3. ``inspection``: a camera (a Blender camera made a link, on a real fixed joint) on leg 0's
   foot; a virtual link ``rock`` (a sphere) locked on the ground; a virtual spherical
   ``inspect`` joint from the rock to the camera, centred on the rock, so the camera keeps its
   distance and looks at it; deck flat (cartesian-3); five feet pinned, leg 0's lifted
   :data:`INSPECT_LIFT` clear of the ground first. The target of
   ``inspect`` is keyed from 0 to 40 degrees about the vertical: the camera orbits the rock.
4. ``pinch``: legs 0 and 1 pinch through a virtual link ``pinch_object`` between their feet: a
   virtual prismatic ``pinch_distance`` (foot 0 -> object, along the line between the feet) and
   a virtual revolute ``pinch_angle`` (object -> foot 1, about that line, a closure), locked;
   the deck level (``deck_flat``) and balanced (a *Balance* goal, :data:`PINCH_BALANCE`) over
   the four pinned feet; the object dragged 0.35 m up (the two limbs rise).
   ``pinch_distance`` keyed to close by 0.6 m.
"""
from __future__ import annotations

import math

import bpy
import numpy as np
from mathutils import Matrix

from ..bridge import schema as S
from .common import Built, _frames, _material, at, frame_z, key_value, pose
from .robots import contact, load_athlete
from .steps import Steps

STORY_FRAMES = 48           # frames 1..48 (2 s at 24 fps)


def _pins(steps: Steps, robot, legs) -> list:
    """Stand the wheels of ``legs`` upright on the ground: a virtual revolute joint from the
    world to each wheel about the vertical through its contact point."""
    out = []
    for k in legs:
        wheel = robot[f"leg{k}_wheel"]
        out.append(steps.add_joint("revolute", wheel, None, at=at(contact(wheel)),
                                   name=f"leg{k}_pin"))
    return out


def _deck_flat_on_five_legs(steps: Steps, robot, built) -> None:
    """Stories 2 and 3: the deck kept level (a virtual cartesian-3 ``deck_flat`` to the world)
    and the wheels of legs 1-5 pinned; leg 0 is the one that works."""
    deck = robot["deck"]
    built.joints.append(steps.add_joint("cartesian-3", deck, None,
                                        at=at(pose(deck)[:3, 3]), name="deck_flat"))
    built.joints += _pins(steps, robot, range(1, 6))


def _outward(robot, point) -> np.ndarray:
    """Unit horizontal direction (world) from the deck's origin toward ``point``."""
    radial = np.asarray(point, dtype=float) - pose(robot["deck"])[:3, 3]
    radial[2] = 0.0
    return radial / np.linalg.norm(radial)


def _story(context, key, build, straight=()) -> Built:
    base = load_athlete(context, straight)
    steps = Steps(context)
    built = Built(key, base.collection, base.links)
    try:
        select = build(steps, base.links, built)
    finally:
        steps.close()
    built.frames = _frames(context.scene, STORY_FRAMES)
    context.scene.vart.active_joint = built.driven
    steps.select(*select)
    return built


def story_camera_tilt(context) -> Built:
    """Story 1 (see the module doc)."""
    def build(steps, robot, built):
        cam = pose(robot["camera"])
        # the camera looks along the deck's -y; the tilt axis is its horizontal axis (the
        # deck's x) through the camera: +20 degrees tilts it down
        W = frame_z(cam[:3, 0], cam[:3, 3])
        built.driven = steps.add_joint("revolute", robot["deck"], None, at=W, name="tilt")
        built.joints.append(built.driven)
        built.joints += _pins(steps, robot, range(6))
        deck = robot["deck"]
        key_value(deck, built.driven, "q", [(1, [0.0]), (STORY_FRAMES, [math.radians(20)])])
        return (deck,)
    return _story(context, "camera_tilt", build)


def story_trenching(context) -> Built:
    """Story 2 (see the module doc)."""
    def build(steps, robot, built):
        _deck_flat_on_five_legs(steps, robot, built)
        scoop = robot["leg0_foot"]
        # the scoop's edge skims the ground, its wheel clear of it (a wheel dragged along the
        # ground under load would slide: the static check finds 1.3 m): the foot dragged up
        steps.select(scoop)
        steps.op("drag", link=scoop.name, translation=(0.0, 0.0, TRENCH_CLEARANCE))
        tip = contact(robot["leg0_wheel"])
        radial = _outward(robot, pose(robot["leg0_hip"])[:3, 3])
        lateral = np.cross((0.0, 0.0, 1.0), radial)
        # the trench runs outward over the ground through the scoop's tip; q = 0 is 0.5 m
        # further in than where the scoop stands, so -0.9 .. +0.4 spans 1.4 .. 2.7 m out
        slide = steps.add_virtual_link("trench_slide", at(tip))
        trench = steps.add_joint("prismatic", slide, None, at=frame_z(radial, tip),
                                 name="trench")
        depth_link = steps.add_virtual_link("trench_depth_link", at(tip))
        depth = steps.add_joint("prismatic", depth_link, slide,
                                at=frame_z((0.0, 0.0, -1.0), tip), name="trench_depth")
        carrier = steps.add_virtual_link("scoop_carrier", at(tip))
        pitch = steps.add_joint("revolute", carrier, depth_link, at=frame_z(lateral, tip),
                                name="scoop_pitch")
        roll = steps.add_joint("revolute", scoop, carrier, at=frame_z(radial, tip),
                               name="scoop_roll")
        built.joints += [trench, depth, pitch, roll]
        steps.lock_joint(depth)
        steps.lock_joint(pitch)
        steps.operate(trench, [TRENCH[0]])
        built.driven = trench
        key_value(slide, trench, "q", [(1, [TRENCH[0]]), (STORY_FRAMES, [TRENCH[1]])])
        return (slide,)
    return _story(context, "trenching", build)


#: The trench's keyed range (m): -0.9 -> +0.4, as the original experiment keyed it.
TRENCH = (-0.9, 0.4)
#: How high above the ground the scoop's edge (and its wheel) travels (m).
TRENCH_CLEARANCE = 0.03


def story_inspection(context) -> Built:
    """Story 3 (see the module doc)."""
    def build(steps, robot, built):
        _deck_flat_on_five_legs(steps, robot, built)
        foot = robot["leg0_foot"]
        # leg 0's wheel lifted clear of the ground (turning on it under load, it would scrub
        # 449 mm): the foot dragged up
        steps.select(foot)
        steps.op("drag", link=foot.name, translation=(0.0, 0.0, INSPECT_LIFT))
        F = pose(foot)
        radial = _outward(robot, F[:3, 3])
        # the camera: on the outer side of the foot, looking outward and 30 degrees down
        eye = F[:3, 3] + 0.12 * radial + (0.0, 0.0, 0.05)
        look = radial * math.cos(math.radians(30)) - np.array([0.0, 0.0, 1.0]) * \
            math.sin(math.radians(30))
        distance = 0.6
        rock_at = eye + distance * look
        cam_data = bpy.data.cameras.new("inspection_camera")
        cam_data.lens = 24.0
        cam_data.display_size = 0.15
        cam = bpy.data.objects.new("inspection_camera", cam_data)
        built.collection.objects.link(cam)
        z = -look                                   # a camera looks along its -z
        x = np.cross((0.0, 0.0, 1.0), z)
        x /= np.linalg.norm(x)
        cam.matrix_world = Matrix(at(eye, np.column_stack([x, np.cross(z, x), z])).tolist())
        steps.make_links(cam)
        built.joints.append(steps.add_joint("fixed", cam, foot, at=at(eye),
                                            name="camera_on_foot", virtual=False))
        rock = steps.add_virtual_link("rock", at(rock_at))
        rock.empty_display_type = 'SPHERE'
        rock.empty_display_size = ROCK_RADIUS
        _rock_mesh(rock, built.collection)
        steps.lock_link(rock)
        inspect = steps.add_joint("spherical", cam, rock, at=at(rock_at), name="inspect")
        built.joints.append(inspect)
        steps.set_target(inspect)
        built.driven = inspect
        key_value(cam, inspect, "target_q",
                  [(1, [0.0, 0.0, 0.0]), (STORY_FRAMES, [0.0, 0.0, math.radians(40)])])
        return (rock,)
    # leg 0 turns the camera about the vertical with its ankle roll: its ankle straight down
    return _story(context, "inspection", build, straight=(0,))


ROCK_RADIUS = 0.18
#: How far leg 0's foot is lifted before the camera is set up (m).
INSPECT_LIFT = 0.05


def _rock_mesh(rock, collection):
    """A lumpy sphere mesh (a plain object, Blender-parented to the rock link)."""
    import bmesh
    bm = bmesh.new()
    try:
        bmesh.ops.create_icosphere(bm, subdivisions=2, radius=ROCK_RADIUS)
        for v in bm.verts:
            x, y, z = v.co
            v.co *= 1.0 + 0.12 * math.sin(5 * x + 2) * math.cos(4 * y - 1) + 0.06 * math.sin(7 * z)
        mesh = bpy.data.meshes.new("rock")
        bm.to_mesh(mesh)
    finally:
        bm.free()
    mesh.materials.append(_material("rock", (0.45, 0.33, 0.25, 1.0)))
    ob = bpy.data.objects.new("rock_mesh", mesh)
    ob.color = (0.45, 0.33, 0.25, 1.0)
    collection.objects.link(ob)
    ob.parent = rock
    ob.matrix_parent_inverse = Matrix.Identity(4)
    return ob


def story_pinch(context) -> Built:
    """Story 4 (see the module doc)."""
    def build(steps, robot, built):
        deck = robot["deck"]
        built.joints.append(steps.add_joint("cartesian-3", deck, None,
                                            at=at(pose(deck)[:3, 3]), name="deck_flat"))
        built.joints += _pins(steps, robot, range(2, 6))
        steps.select(deck)
        steps.op("set_balance", margin=PINCH_BALANCE)
        fa, fb = robot["leg0_foot"], robot["leg1_foot"]
        # the feet pinch at wheel-centre height: points on the inner sides of the wheels
        ca = pose(robot["leg0_wheel"])[:3, 3]
        cb = pose(robot["leg1_wheel"])[:3, 3]
        line = (cb - ca) / np.linalg.norm(cb - ca)
        mid = (ca + cb) / 2
        obj = steps.add_virtual_link("pinch_object", at(mid))
        obj.empty_display_type = 'CUBE'
        obj.empty_display_size = 0.2
        dist = steps.add_joint("prismatic", obj, fa, at=frame_z(line, mid),
                               name="pinch_distance")
        angle = steps.add_joint("revolute", fb, obj, at=frame_z(line, mid),
                                name="pinch_angle")
        built.joints += [dist, angle]
        steps.lock_joint(angle)
        # raise the two limbs: drag the object up (the feet follow through the joints)
        steps.select(obj)
        steps.op("drag", link=obj.name, translation=(0.0, 0.0, PINCH_LIFT))
        built.driven = dist
        q0 = float(obj[S.KEY]["joints"][dist]["q"][0])  # where the lift left it
        key_value(obj, dist, "q", [(1, [q0]), (STORY_FRAMES, [q0 + PINCH])])
        return (obj,)
    return _story(context, "pinch", build)


#: How much the pinch closes (m): the feet come 0.6 m closer; how high the object is lifted
#: before (m).
PINCH = -0.6
PINCH_LIFT = 0.35
#: Story 4's balance margin (m): the centre of mass stays this far inside wheels 2-5.
PINCH_BALANCE = 0.05
