"""Examples that ship: the robots of ``assets/`` and the four ATHLETE stories (DESIGN.md, "Four
stories"), each built into the current scene by :func:`add_example` (operator
``vart.add_example``, sidebar panel "Examples").

Robots (``assets/``, made by ``tools/make_assets.py``):

- ``athlete``: an ATHLETE-like hexapod, standing (:data:`STANDING`) with its wheels on the
  ground (z = 0 under the 3D cursor); the deck is a free link, nothing else is added;
- ``fourbar`` and ``slider_crank``: the URDF tree (fixed to the world) closed by a real
  revolute joint, the crank keyed through one turn (ready to Bake);
- ``stewart``: six UPS legs closed at the platform by real spherical joints, the platform's
  floating joint keyed up, tilted and back;
- ``tower``: the modular tower, generated here: 90 stacked four-bar cells, 270 revolute tree
  joints and 90 revolute closures (90 cycles), on a real fixed joint to the ground, its top
  rung's location keyed (pulled sideways and down).

These closing joints are added through the bridge with float64 frames
(:func:`add_joint_exact`), not at the 3D cursor: the cursor holds its rotation in single
precision, and a planar loop whose closing axis is 4e-8 rad off its other (exact) axes no
longer moves.

Stories: the hexapod plus the story's virtual articulation, added with vart's own operators
exactly as a user would (select links, put the 3D cursor at the joint, ``vart.add_joint``,
``vart.lock``, ``vart.operate_joint``...; :class:`Steps`), and the driving virtual joint keyed
over frames 1..:data:`STORY_FRAMES` (press Bake). Feet on the ground are pinned by a virtual
spherical joint to the world at the wheel's contact point ("feet locked to the ground"): the
wheel may pivot about that point but not slide or lift. (Locking the wheel link's whole pose
would over-constrain a six-joint limb whose wheel axis is parallel to its pitch axes.)

1. ``camera_tilt``: a virtual revolute ``tilt`` between the world and the deck, its axis the
   side camera's horizontal axis through the camera; six feet pinned. ``tilt`` keyed 0 -> 20
   degrees: the camera tilts down about its own axis, the legs follow.
2. ``trenching``: a virtual cartesian-3 ``deck_flat`` (world -> deck: the deck translates,
   never rotates); leg 0's foot is the scoop, held by a chain world -(prismatic ``trench``)->
   ``trench_slide`` -(prismatic ``trench_depth``)-> ``trench_depth_link`` -(revolute
   ``scoop_pitch``)-> ``scoop_carrier`` -(revolute ``scoop_roll``)-> scoop; depth and pitch
   locked; the other five feet pinned. ``trench`` keyed -0.9 -> +0.4 m along the ground.
3. ``inspection``: a camera (a Blender camera made a link, on a real fixed joint) on leg 0's
   foot; a virtual link ``rock`` (a sphere) locked on the ground; a virtual spherical
   ``inspect`` joint from the rock to the camera, centred on the rock, so the camera keeps its
   distance and looks at it; deck flat (cartesian-3); five feet pinned. The target of
   ``inspect`` is keyed from 0 to 40 degrees about the vertical: the camera orbits the rock.
4. ``pinch``: legs 0 and 1 pinch through a virtual link ``pinch_object`` between their feet: a
   virtual prismatic ``pinch_distance`` (foot 0 -> object, along the line between the feet) and
   a virtual revolute ``pinch_angle`` (object -> foot 1, about that line, a closure); the deck
   and the pinch angle locked; four feet pinned; the object dragged 0.35 m up (the two limbs
   rise). ``pinch_distance`` keyed to close by 0.6 m.

:func:`check_baked` checks a bake from the baked values, frame by frame (the stories' tests
and ``make demo`` use it).
"""
from __future__ import annotations

import math
import pathlib
from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Matrix

from .bridge import schema as S
from .bridge.animation import key_channels
from .solver import se3

ASSETS = pathlib.Path(__file__).resolve().parent.parent / "assets"

#: The hexapod's standing pose per limb joint (rad): thigh up 20 degrees, the ankle segment
#: straight down, so each wheel touches the ground directly under its centre.
STANDING = {"hip_yaw": 0.0, "hip_pitch": -0.35, "knee_pitch": 1.45,
            "ankle_pitch": math.pi / 2 - 1.10, "ankle_roll": 0.0, "wheel": 0.0}
WHEEL_RADIUS = 0.15         # m (tools/make_assets.py)
STORY_FRAMES = 48           # frames 1..48 (2 s at 24 fps)
MECHANISM_FRAMES = 96


class ExampleError(RuntimeError):
    """An example could not be built (an operator refused a step); the message says which."""


@dataclass
class Built:
    """What an example added: its collection, link objects by (URDF) name, the names of the
    joints the example added (virtual ones for a story), the joint whose value (or target) is
    keyed, and the frame range to bake."""

    key: str
    collection: object = None
    links: dict = field(default_factory=dict)
    joints: list = field(default_factory=list)
    driven: str = ""
    frames: tuple = (1, 1)


# ---- operators, as a user would call them -----------------------------------------------------
class Steps:
    """vart's operators called with the selection, active object and 3D cursor a user would
    set up. A refused step raises :class:`ExampleError` naming it. The 3D cursor, selection
    and active object are put back by :meth:`close`."""

    def __init__(self, context):
        self.context = context
        self.scene = context.scene
        self.vl = context.view_layer
        self.cursor0 = self.scene.cursor.matrix.copy()
        # building is not interactive: solves may take what they need (restored by close)
        self.budget0 = self.scene.vart.time_budget_ms
        self.scene.vart.time_budget_ms = 0.0

    def close(self, select=(), active=None):
        self.scene.cursor.matrix = self.cursor0
        self.scene.vart.time_budget_ms = self.budget0
        self.select(*select, active=active)

    def select(self, *obs, active=None):
        for ob in self.vl.objects:
            if ob.select_get():
                ob.select_set(False)
        for ob in obs:
            ob.select_set(True)
        self.vl.objects.active = active if active is not None else (obs[-1] if obs else None)

    def cursor(self, T):
        self.scene.cursor.matrix = Matrix(np.asarray(T, float).tolist())

    def op(self, idname: str, **kw):
        fn = getattr(bpy.ops.vart, idname)
        try:
            result = fn(**kw)
        except RuntimeError as e:
            raise ExampleError(f"vart.{idname}: {str(e).strip()}") from None
        if 'FINISHED' not in result:
            raise ExampleError(f"vart.{idname} did not finish ({', '.join(result)})")

    def joint_name(self, base: str) -> str:
        from .bridge.edits import unique_joint_name
        from .operators._common import joint_names
        return unique_joint_name(base, joint_names(self.scene))

    def add_joint(self, jtype: str, child, parent=None, *, at, name: str,
                  virtual: bool = True) -> str:
        """Add a joint with its frame at world pose ``at`` (the 3D cursor): ``child`` active,
        ``parent`` selected too (None: the world)."""
        name = self.joint_name(name)
        self.cursor(at)
        self.select(*([parent] if parent is not None else []), child, active=child)
        self.op("add_joint", joint_type=jtype, virtual=virtual, name=name)
        return name

    def add_virtual_link(self, name: str, at):
        from .bridge.edits import unique_object_name
        name = unique_object_name(name)
        self.cursor(at)
        self.op("add_virtual_link", name=name)
        return self.vl.objects.active

    def make_links(self, *obs):
        self.select(*obs)
        self.op("make_links")

    def use_joint(self, name: str):
        self.scene.vart.active_joint = name

    def lock_joint(self, name: str):
        self.use_joint(name)
        self.op("lock", target='JOINT')

    def lock_link(self, ob):
        self.select(ob)
        self.op("lock", target='LINK')

    def operate(self, name: str, values):
        """Operate joint ``name`` to ``values`` (display units: degrees, scene lengths)."""
        self.use_joint(name)
        v = list(values)[:6]
        self.op("operate_joint", value=v + [0.0] * (6 - len(v)))

    def set_target(self, name: str):
        self.use_joint(name)
        self.op("set_target")


def pose(ob) -> np.ndarray:
    """An object's world pose without scale (4x4)."""
    M = np.array(ob.matrix_world, dtype=float)
    M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
    return M


def at(p, R=None) -> np.ndarray:
    return se3.make_pose(np.eye(3) if R is None else R, np.asarray(p, float))


def frame_z(z, origin) -> np.ndarray:
    """A pose at ``origin`` whose z axis is ``z`` (the joint axis)."""
    z = np.asarray(z, float) / np.linalg.norm(z)
    helper = np.array([0.0, 0.0, 1.0]) if abs(z[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return at(origin, np.column_stack([x, np.cross(z, x), z]))


def key_value(ob, joint: str, key: str, frames_values) -> None:
    """Key a stored joint field (``q`` or ``target_q``) at ``(frame, values)`` pairs (all
    DoF; linear interpolation), then put the stored value back as it was: the scene stays
    in its built pose, and frame 1 of the animation is that pose."""
    group = ob[S.KEY]["joints"][joint]
    old = list(group[key])
    path = S.q_data_path(joint)[:-len('["q"]')] + f'["{key}"]'
    for frame, values in frames_values:
        group[key] = [float(v) for v in values]
        key_channels(ob, path, float(frame), group="Vart")
    group[key] = old
    from .bridge.animation import fcurves_of
    for fc in fcurves_of(ob):
        if fc.data_path == path:
            for kp in fc.keyframe_points:
                kp.interpolation = 'LINEAR'


def _frames(scene, end: int) -> tuple:
    scene.frame_start, scene.frame_end = 1, end
    scene.frame_set(1)
    return 1, end


# ---- robots -----------------------------------------------------------------------------------
def _origin(context) -> np.ndarray:
    """Where an example goes: the 3D cursor's location (not its rotation)."""
    return np.array(context.scene.cursor.location, float)


def asset(name: str) -> pathlib.Path:
    """The URDF file of robot ``name`` in ``assets/`` (ExampleError if it is missing)."""
    path = ASSETS / name / f"{name}.urdf"
    if not path.is_file():
        raise ExampleError(f"asset {path} is missing (a broken install?)")
    return path


def _import(context, name: str, **kw):
    from .io_urdf import import_urdf
    return import_urdf(asset(name), context=context, scene=context.scene, use_env=False, **kw)


def standing_pose() -> tuple[dict, float]:
    """(URDF joint values, deck height) of the standing hexapod: the wheels' lowest points on
    z = 0."""
    from .solver import urdf
    q = {f"leg{k}_{j}": v for k in range(6) for j, v in STANDING.items()}
    robot = urdf.read_urdf(asset("athlete"))
    T = urdf.link_poses(robot, q)
    return q, WHEEL_RADIUS - float(T["leg0_wheel"][2, 3])


def load_athlete(context) -> Built:
    q, height = standing_pose()
    o = _origin(context)
    robot = _import(context, "athlete", q=q, base_pose=at(o + (0.0, 0.0, height)))
    return Built("athlete", robot.collection, dict(robot), [])


def contact(wheel_ob) -> np.ndarray:
    """The lowest point of a standing wheel (world): under its centre by the radius."""
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
    from .bridge import edits
    from .operators import _common as OC
    scene = context.scene

    def mutate(lk):
        jn = edits.unique_joint_name(name, lk.joints)
        T = lk.pose((parent_ob if on == "parent" else child_ob).name)
        W = at((T @ np.append(point, 1.0))[:3], R)
        lk.add_joint(jn, jtype, parent_ob.name, child_ob.name, world_frame=W)
        return jn

    try:
        res = edits.edit(mutate, scene, bridge=OC.bridge_for(scene), **OC.solve_kw(scene))
    except OC.ERRORS as e:
        raise ExampleError(f"joint {name!r}: {e}") from None
    return res.value


def _child_of(scene, joint: str):
    from .operators._common import joint_names
    return joint_names(scene)[joint]


#: Joint frames of the planar mechanisms: z along -y (their URDF axes), exactly: a planar
#: loop moves only while its axes are parallel to the last bit (a rotation made with
#: cos(pi/2) = 6e-17, or read back from the float32 3D cursor, would lock it).
_PLANAR = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def load_fourbar(context) -> Built:
    b = _coupler_length()
    return _add_mechanism(context, "fourbar",
                          [("C", "revolute", "coupler", "rocker", (b, 0.0, 0.0), _PLANAR,
                            "parent")],
                          "A")


def _coupler_length() -> float:
    """Where the coupler meets the rocker, along the coupler's x: the pin drawn there."""
    from .solver import urdf
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


# ---- the tower --------------------------------------------------------------------------------
TOWER = dict(cells=90, width=0.30, height=0.10, jitter=0.05)


def tower_nodes(cells: int = 90, width: float = 0.30, height: float = 0.10,
                jitter: float = 0.05):
    """Node positions (x, z) of the tower's rungs: A_i (left) and B_i (right), i = 0..cells.
    A fixed, smooth irregularity (no two cells alike) keeps the cells generic."""
    A = [np.array([0.0, 0.0])]
    B = [np.array([width, 0.0])]
    for i in range(1, cells + 1):
        jA = jitter * math.sin(1.7 * i)
        jB = jitter * math.cos(2.3 * i + 0.5)
        A.append(A[-1] + (width * jitter * math.sin(0.9 * i), height * (1 + jA)))
        B.append(B[-1] + (width * jitter * math.cos(1.3 * i), height * (1 + jB)))
    return A, B


def _bar_mesh(name, p0, p1, thickness):
    """A box mesh from point p0 to p1 (link frame, x-z plane) of square section."""
    d = np.asarray(p1, float) - np.asarray(p0, float)
    L = float(np.hypot(*d))
    ang = math.atan2(d[1], d[0])
    t = thickness / 2
    v = []
    for x in (-t, L + t):
        for y in (-t, t):
            for z in (-t, t):
                xx = p0[0] + x * math.cos(ang) - z * math.sin(ang)
                zz = p0[1] + x * math.sin(ang) + z * math.cos(ang)
                v.append((xx, y, zz))
    f = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(v, [], f)
    return mesh


def build_tower(context, cells: int | None = None) -> Built:
    """The modular tower in the x-z plane: rung 0 on a real fixed joint to the ground, then
    per cell i: left rail (revolute at A_{i-1} on rung i-1), rung i (revolute at A_i on the
    left rail), right rail (revolute at B_{i-1} on rung i-1) and the closure right rail ->
    rung i at B_i. Links are box meshes whose frame sits at their lower node, world-aligned;
    joints (axis along -y) are written through the bridge's schema (one pass, no solve: the
    tower is built assembled)."""
    from .bridge.edits import unique_joint_name, unique_object_name
    n = TOWER["cells"] if cells is None else int(cells)
    A, B = tower_nodes(n, TOWER["width"], TOWER["height"], TOWER["jitter"])
    scene = context.scene
    o = _origin(context)
    coll = bpy.data.collections.new("tower")
    scene.collection.children.link(coll)
    mats = {k: _material(f"tower_{k}", c) for k, c in
            (("rung", (0.85, 0.65, 0.2, 1.0)), ("rail", (0.45, 0.5, 0.56, 1.0)))}

    def world(p):
        return o + (p[0], 0.0, p[1])

    obs, joints, T = {}, [], {}

    def link(name, origin, p0, p1, thick, kind):
        mesh = _bar_mesh(name, np.asarray(p0) - origin, np.asarray(p1) - origin, thick)
        mesh.materials.append(mats[kind])
        ob = bpy.data.objects.new(unique_object_name(name), mesh)
        ob.color = mats[kind].diffuse_color
        coll.objects.link(ob)
        T[name] = at(world(origin))  # float64, world-aligned: exact joint frames below
        ob.matrix_world = Matrix(T[name].tolist())
        S.write_link(ob, mass=0.1)
        obs[name] = ob
        return ob

    link("rung0", A[0], A[0], B[0], 0.03, "rung")
    for i in range(1, n + 1):
        link(f"left{i}", A[i - 1], A[i - 1], A[i], 0.015, "rail")
        link(f"rung{i}", A[i], A[i], B[i], 0.03, "rung")
        link(f"right{i}", B[i - 1], B[i - 1], B[i], 0.015, "rail")
    existing = set(_scene_joint_names(scene))
    def joint(name, jtype, parent, child, p, tree=True):
        name = unique_joint_name(name, existing)
        existing.add(name)
        W = at(world(p), _PLANAR)  # the joint frame: z along -y
        Tp = W if parent is None else se3.inverse(T[parent]) @ W
        S.write_joint(obs[child], name, jtype, None if parent is None else obs[parent],
                      T_parent_mob=Tp, T_child_frame=se3.inverse(T[child]) @ W, tree=tree)
        joints.append(name)

    joint("tower_base", "fixed", None, "rung0", A[0])
    for i in range(1, n + 1):
        joint(f"c{i}_left_low", "revolute", f"rung{i - 1}", f"left{i}", A[i - 1])
        joint(f"c{i}_left_high", "revolute", f"left{i}", f"rung{i}", A[i])
        joint(f"c{i}_right_low", "revolute", f"rung{i - 1}", f"right{i}", B[i - 1])
        joint(f"c{i}_right_high", "revolute", f"right{i}", f"rung{i}", B[i], tree=False)
    for ob in obs.values():
        S.update_link(ob, root_tree=False)  # every link hangs from a tree joint
    S.read_scene(scene.objects)  # what was written reads back valid (cross-object checks)
    context.view_layer.update()
    # the top rung's location keyed: over the frames it is pulled sideways and down
    top = obs[f"rung{n}"]
    for frame, d in ((1, (0.0, 0.0, 0.0)), (MECHANISM_FRAMES, TOWER_PULL)):
        top.location = tuple(T[f"rung{n}"][:3, 3] + d)
        key_channels(top, "location", float(frame), group="Object Transforms")
    top.location = tuple(T[f"rung{n}"][:3, 3])
    built = Built("tower", coll, obs, joints, top.name)
    built.frames = _frames(scene, MECHANISM_FRAMES)
    return built


#: Where the tower's top is pulled (m, world x, y, z) over the frames.
TOWER_PULL = (1.0, 0.0, -0.5)


def _scene_joint_names(scene):
    from .operators._common import joint_names
    return joint_names(scene).keys()


def _material(name, rgba):
    from .io_urdf.importer import new_material
    return new_material(name, rgba)


# ---- the stories ------------------------------------------------------------------------------
def _pins(steps: Steps, robot, legs) -> list:
    """Pin the wheels of ``legs`` to the ground: a virtual spherical joint to the world at
    each wheel's contact point."""
    out = []
    for k in legs:
        wheel = robot[f"leg{k}_wheel"]
        out.append(steps.add_joint("spherical", wheel, None, at=at(contact(wheel)),
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


def _story(context, key, build) -> Built:
    base = load_athlete(context)
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
        tip = contact(robot["leg0_wheel"])
        radial = _outward(robot, pose(robot["leg0_hip"])[:3, 3])
        lateral = np.cross((0.0, 0.0, 1.0), radial)
        # the trench runs outward along the ground through the scoop's tip; q = 0 is 0.5 m
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


#: The trench's keyed range (m): DESIGN.md's -0.9 -> +0.4.
TRENCH = (-0.9, 0.4)


def story_inspection(context) -> Built:
    """Story 3 (see the module doc)."""
    def build(steps, robot, built):
        _deck_flat_on_five_legs(steps, robot, built)
        foot = robot["leg0_foot"]
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
    return _story(context, "inspection", build)


ROCK_RADIUS = 0.18


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
        steps.lock_link(deck)
        built.joints += _pins(steps, robot, range(2, 6))
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


# ---- checking a bake ---------------------------------------------------------------------------
@dataclass
class BakeCheck:
    """What the baked animation holds, frame by frame (:func:`check_baked`): the largest
    closure residual (m and rad: the joint type's invariant residual of every closure joint,
    from the linkage rebuilt out of the baked joint values), the largest excess of a real
    joint's baked value over its limits, and where each was."""

    frames: int = 0
    closures: int = 0
    closure_error: float = 0.0
    closure_worst: tuple = ()
    limit_excess: float = 0.0
    limit_worst: tuple = ()
    pose_error: float = 0.0


def check_baked(scene, frame_start: int, frame_end: int) -> BakeCheck:
    """Step through the frames and check the baked values (see :class:`BakeCheck`). At each
    frame the stored properties are what the F-curves say (single precision); the tree
    joints' values are read, forward kinematics places every link, and each closure joint's
    invariant residual is measured there; ``pose_error`` is how far (largest matrix entry, m)
    the links' baked transforms are from those poses. The current frame is restored. The
    linkage is built once, at the first frame (a bake never changes the structure)."""
    from .bridge import build as B
    from .bridge import poses as P
    out = BakeCheck()
    frame0 = scene.frame_current
    lk = None
    try:
        for f in range(int(frame_start), int(frame_end) + 1):
            scene.frame_set(f)
            obs = {ob.name: ob for ob in scene.objects if S.is_link(ob)}
            poses = {n: P.rigid_and_scale(P.observe(ob), n)[0] for n, ob in obs.items()}
            if lk is None:
                data = S.read_scene(obs.values())
                lk = B.build(data, poses)
                tree = [(j, obs[j.child][S.KEY]["joints"][n]) for n, j in lk.joints.items()
                        if j.is_tree and j.dof]
                free = [n for n in lk.links if lk.tree_edge[n].is_root]
                closures = [j for j in lk.joints.values() if not j.is_tree]
                real = [j for j in data.joints.values() if not j.virtual and j.dof]
            for j, group in tree:
                j.q = np.array(group["q"], dtype=float)
            for n in free:
                lk.set_link_pose(n, poses[n])
            fk = lk.poses()
            out.pose_error = max([out.pose_error] + [float(np.abs(fk[n] - T).max())
                                                     for n, T in poses.items()])
            out.frames += 1
            out.closures = len(closures)
            for j in closures:
                r = j.jtype.residual(lk.relative_pose(j, fk), j.pitch)
                e = float(np.abs(r).max()) if r.size else 0.0
                if e >= out.closure_error:
                    out.closure_error, out.closure_worst = e, (j.name, f)
            for j in real:
                jl = lk.joints[j.name]
                q = np.asarray(jl.q if jl.is_tree else lk.joint_q(jl, fk))
                e = float(max((np.asarray(j.lower) - q).max(), (q - np.asarray(j.upper)).max(),
                              0.0))
                if e > out.limit_excess:
                    out.limit_excess, out.limit_worst = e, (j.name, f)
    finally:
        scene.frame_set(frame0)
    return out


# ---- the catalogue ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Example:
    key: str
    label: str
    description: str
    build: object
    story: bool = False


EXAMPLES = {e.key: e for e in (
    Example("athlete", "ATHLETE Hexapod", "An ATHLETE-like hexapod standing on its six "
            "wheels: 36 real joints (6 limbs: hip yaw, hip pitch, knee, ankle pitch, ankle "
            "roll, wheel)", load_athlete),
    Example("fourbar", "Four-Bar Linkage", "A crank-rocker closed by a revolute joint, its "
            "crank keyed through one turn", load_fourbar),
    Example("slider_crank", "Slider-Crank", "Crank, connecting rod and slider closed by a "
            "revolute joint, the crank keyed through one turn", load_slider_crank),
    Example("stewart", "Stewart Platform", "Six UPS legs closed at the platform by spherical "
            "joints: drag the platform", load_stewart),
    Example("tower", "Modular Tower", "90 stacked four-bar cells: 270 revolute tree joints "
            "and 90 closures", build_tower),
    Example("camera_tilt", "Story 1: Camera Tilt", "Tilt the side camera about its own axis; "
            "the six pinned legs follow (virtual revolute deck-world, keyed 0 to 20 degrees)",
            story_camera_tilt, True),
    Example("trenching", "Story 2: Trenching", "Leg 0's foot scoops along a virtual trench "
            "(prismatic keyed -0.9 to +0.4 m) while the deck stays flat",
            story_trenching, True),
    Example("inspection", "Story 3: Object Inspection", "A foot camera orbits a rock at a "
            "constant distance (virtual spherical joint, its target keyed)",
            story_inspection, True),
    Example("pinch", "Story 4: Bimanual Pinch", "Two limbs pinch a virtual object (virtual "
            "prismatic keyed 0 to -0.6 m, revolute locked)", story_pinch, True),
)}


def add_example(key: str, context=None) -> Built:
    """Build example ``key`` (see :data:`EXAMPLES`) into the context's scene, at the 3D
    cursor. Raises :class:`ExampleError` (or a bridge/import error) if it cannot."""
    context = context if context is not None else bpy.context
    if key not in EXAMPLES:
        raise ExampleError(f"no example {key!r}; examples: {', '.join(EXAMPLES)}")
    scene = context.scene
    before = {k: set(getattr(bpy.data, k)) for k in _DATA}
    frames = (scene.frame_start, scene.frame_end, scene.frame_current)
    try:
        return EXAMPLES[key].build(context)
    except BaseException:
        # nothing half-built stays behind: what the example added goes again
        for k in _DATA:
            coll = getattr(bpy.data, k)
            for x in [x for x in coll if x not in before[k]]:
                try:
                    coll.remove(x)
                except (ReferenceError, RuntimeError):
                    pass
        scene.frame_start, scene.frame_end = frames[:2]
        scene.frame_set(frames[2])
        from .operators._common import clear_bridge_cache
        clear_bridge_cache()
        raise


#: bpy.data collections an example adds to (emptied of its additions when it fails).
_DATA = ("objects", "meshes", "materials", "cameras", "actions", "collections")
