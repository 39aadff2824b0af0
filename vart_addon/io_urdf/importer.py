"""Import a URDF robot into a Blender scene: objects, meshes, materials and vart joints.

What the scene gets (decisions, each tested in ``tests/blender/test_io_urdf*.py``):

- **One Empty per URDF link** (axes), named as the link, at the link frame's world pose; it is
  the vart link (``ob["vart"]``, real, mass and centre of mass from ``<inertial>``). Link
  objects are not Blender-parented to each other (float32 matrices composed down a chain
  would move a hexapod's pinned wheels by 1e-5 m): vart's joints hold the tree, a solve
  writes each link's world matrix, and moving, rotating or keying the root link by hand moves
  the rest with it (:mod:`vart_addon.drag.root_follow`).
- **Placed on the ground** (``place_on_ground``; by default, here and in the import operator,
  for a robot whose root is free: :func:`places_on_ground`): the lowest point of its geometry
  on z = 0; a *Fixed Base* robot placed when asked, its base pose moved.
- **SRDF** (:mod:`vart_addon.formats.urdf.srdf`): a group state as the start, and the
  ``disable_collisions`` pairs as the clearance check's ignored pairs.
- Each ``<visual>`` becomes a child object of its link's Empty, with its mesh and colour: see
  :mod:`.visuals`, and :mod:`.mesh_data` for the meshes and materials.
- One real vart joint per URDF joint (:func:`~vart_addon.formats.urdf.to_linkage.linkage_from_urdf`:
  types, frames, limits, q; ``<mimic>`` as the joint's ``mimic`` coupling). The URDF root link
  is a free link (it hangs from its root joint) unless ``fixed_base``, which adds a *virtual*
  fixed joint to the world (exports leave it out). A root link named ``world`` is the ground.
- Names: a link object takes the link's name, or ``name.001``... if an object has it already;
  a joint name already used in the scene gets ``.001``... too (``joints`` maps them).
- Everything goes into a new collection named after the robot, which also keeps the URDF's
  text and path (``collection["vart_urdf"]``) so an export can carry over what Blender does
  not show (collisions, inertia tensors, effort and velocity limits, extra elements).

Failure: a file that cannot be read, malformed XML, an unknown joint type, a broken tree or a
value vart refuses raises :class:`~.errors.IoError` naming the element, before anything is
added; a failure while building (not expected) removes everything added so far. Either the
whole robot is imported or nothing.
"""
from __future__ import annotations

import os

import bpy
import numpy as np
from mathutils import Matrix

from ..bridge import tools as TL
from ..formats.urdf import files as urdf
from ..formats.urdf import joint_limits as JL
from ..formats.urdf import srdf as srdf_files
from ..formats.urdf import xacro_files
from ..formats.urdf.start import start_from_file
from ..formats.urdf.to_linkage import linkage_from_urdf
from ..solver import VartError
from . import robot_objects as RO
from .errors import IoError

# Re-imported: part of this module's API (used by .exporter and the tests).
from .visuals import MISSING_KEY, VisualBuilder

__all__ = ["import_urdf", "places_on_ground", "ImportedRobot", "SOURCE_KEY", "MISSING_KEY",
           "MAX_SOURCE_CHARS", "read_source"]

#: Collection property holding the imported URDF: ``{"file": path, "text": URDF text}``.
SOURCE_KEY = "vart_urdf"
#: URDF text larger than this (characters) is not kept in the collection (only its path).
MAX_SOURCE_CHARS = 4_000_000


class ImportedRobot(dict):
    """What :func:`import_urdf` returns: a dict URDF link name -> its link object (an Empty),
    with attributes ``robot`` (the :class:`~vart_addon.formats.urdf.files.Robot`), ``collection``,
    ``joints`` (URDF joint name -> scene joint name), ``visuals`` (URDF link name -> its visual
    objects, placeholders included), ``missing`` (mesh filenames not found or not read) and
    ``warnings`` (messages for the user), ``base_joint`` (the virtual fixed joint of
    ``fixed_base``, else None), ``placed`` (how far *Place on Ground* moved it up, m) and
    ``ignored`` (the SRDF's pairs added to the clearance check's ignored pairs)."""

    robot: urdf.Robot
    collection: object
    joints: dict
    visuals: dict
    missing: list
    warnings: list
    base_joint: str | None
    placed: float
    ignored: int


# ---- the Python API ---------------------------------------------------------------------------
def import_urdf(path, *, context=None, scene=None, search_paths=(), q=None, start="zero",
                start_file=None, base_pose=None, fixed_base: bool = False,
                use_env: bool = True, xacro_args=None, progress=None, srdf=True,
                srdf_state=None, place_on_ground: bool | None = None,
                joint_limits=True) -> ImportedRobot:
    """Import the URDF file ``path`` into ``scene`` (default: the scene of ``context``, or the
    current one). ``search_paths``: extra folders for ``package://`` and relative mesh paths
    (see :mod:`vart_addon.formats.urdf.mesh_paths`; ``use_env`` adds ROS_PACKAGE_PATH / AMENT_PREFIX_PATH).
    ``q``: URDF joint name -> value (m, rad; 4x4 for floating/planar). A joint without one
    starts as ``start_file`` says (a trajectory file, its first sample: see
    :func:`~vart_addon.formats.urdf.start.start_from_file`), else as ``start`` says: "zero"
    (0 clamped into the limits) or "middle" (of the limits).
    ``start="srdf"``: the group state ``srdf_state`` (default: the first) of the robot's SRDF
    (:mod:`vart_addon.formats.urdf.srdf`), its root pose too when it has one. ``srdf``: True
    finds the SRDF beside the URDF or in its package's ``srdf/``, a path names it, False
    reads none; its ``disable_collisions`` pairs become the scene's ignored pairs of the
    clearance check (``scene.vart.clearance_ignored``, when vart is registered).
    ``joint_limits``: the robot's ``joint_limits.yaml`` (MoveIt / ros2_control:
    :mod:`vart_addon.formats.urdf.joint_limits`): True finds it beside the URDF or in a
    ``config/`` folder near it, a path names it, False reads none; its velocity and
    acceleration limits are kept with the robot (exports retime within them, Plot Curves and
    the motion checks compare with them; its velocities win over the URDF's).
    ``base_pose``: the root link's world pose (4x4; default identity). ``fixed_base``: hold
    the root to the world by a virtual fixed joint. ``place_on_ground``: move the robot up
    or down so that the lowest point of its geometry lies on z = 0; None (the default, and
    the import operator's): when its root is free, neither ``fixed_base`` nor a ``world``
    root (:func:`places_on_ground`); True: a ``fixed_base`` robot too (its base pose moved
    up or down; a ``world`` root cannot move: a warning says so); False: never. A
    ``*.xacro`` file (or a URDF that uses xacro) is expanded first by ROS's xacro with
    ``xacro_args`` (name -> value; ``$(find pkg)`` found as mesh packages are:
    :mod:`vart_addon.formats.urdf.xacro_files`), and the URDF it gives is imported.
    ``progress(done, total)`` is called after each link's visuals are built (their meshes
    read: most of a big robot's import time), ``total`` being the robot's links.

    Returns an :class:`ImportedRobot` (a dict link name -> object, with the warnings).
    Raises :class:`IoError` (with nothing added to the scene) for a file that cannot be read
    or a URDF that is malformed or that vart refuses."""
    ctx = context if context is not None else bpy.context
    scene = scene if scene is not None else ctx.scene
    path = os.fspath(path)
    name = os.path.basename(path)
    xacro_warnings: list = []
    try:
        with open(path, "rb") as f:
            data = f.read()
        if xacro_files.is_xacro(path) or xacro_files.uses_xacro(data):
            data = xacro_files.expand_xacro(
                path, args=xacro_args, search_paths=search_paths, use_env=use_env,
                warnings=xacro_warnings).encode()
    except OSError as e:
        raise IoError(f"cannot read URDF '{path}': {e.strerror or e}") from None
    except urdf.UrdfError as e:
        raise IoError(str(e)) from None
    try:
        robot = urdf.parse_urdf_string(data, source_name=name)
        pose, pose_warnings = ({}, []) if not start_file else start_from_file(robot, start_file)
        sr = _srdf(path, robot, srdf, start == "srdf")
        limits_file = JL.find_joint_limits(path) if joint_limits is True else \
            (os.fspath(joint_limits) if joint_limits else None)
        limits = JL.read_joint_limits(limits_file) if limits_file else {}
        if start == "srdf":
            assert sr is not None  # else _srdf raised
            pose, root_pose, said = srdf_files.start_values(robot, sr, srdf_state)
            pose_warnings += said
            if base_pose is None and root_pose is not None:
                base_pose = root_pose
        lk, umap = linkage_from_urdf(robot, {**pose, **(q or {})},
                                     start="zero" if start == "srdf" else start,
                                     base_pose=base_pose, fixed_base=fixed_base)
    except (urdf.UrdfError, VartError, srdf_files.SrdfError, JL.JointLimitsError,
            OSError) as e:
        msg = str(e) if not isinstance(e, OSError) else \
            f"cannot read {e.filename or 'SRDF'}: {e.strerror or e}"
        raise IoError(msg if msg.startswith(name) else f"{name}: {msg}") from None
    text = data.decode("utf-8", "replace")
    builder = _Builder(ctx, scene, path, text, robot, lk, umap, search_paths, use_env)
    builder.progress = progress
    builder.srdf = sr
    builder.limits = {"file": limits_file, "joints": {
        n: lim.to_dict() for n, lim in limits.items() if lim.to_dict()}} if limits_file else None
    unknown = sorted(set(limits) - {j.name for j in robot.joints})
    if unknown:
        builder.warnings.append(f"{os.path.basename(limits_file or '')}: joints the robot "
                                f"lacks passed over: {', '.join(unknown[:5])}"
                                + (" ..." if len(unknown) > 5 else ""))
    builder.warnings += xacro_warnings + umap.warnings + pose_warnings  # the readers' first
    builder.ground = places_on_ground(robot, fixed_base, place_on_ground)
    if place_on_ground and robot.root_link == "world":
        builder.warnings.append("Place on Ground passed over: the URDF fixes the robot to its "
                                "link 'world' (the ground)")
    if builder.ground and fixed_base:  # the virtual fixed joint's base pose moves
        def relink(dz: float):
            moved = np.eye(4)
            moved[2, 3] = dz
            return linkage_from_urdf(
                robot, {**pose, **(q or {})}, start="zero" if start == "srdf" else start,
                base_pose=moved @ (np.eye(4) if base_pose is None else np.asarray(base_pose)),
                fixed_base=True)[0]
        builder.relink = relink
    return builder.run()


def places_on_ground(robot, fixed_base: bool, place_on_ground: bool | None = None) -> bool:
    """Whether an import of ``robot`` (a URDF Robot) puts it on the ground: ``place_on_ground``
    when given (True or False), else (None, the default of :func:`import_urdf` and of the
    import operator) when its root is free: not ``fixed_base`` and not fixed by the URDF to a
    link ``world``. A ``world`` root is never moved."""
    if robot.root_link == "world":
        return False
    return not fixed_base if place_on_ground is None else bool(place_on_ground)


def _srdf(path: str, robot, srdf, needed: bool):
    """The robot's SRDF (read) as ``srdf`` says (see :func:`import_urdf`), or None. An SRDF
    the start needs and that is not there: SrdfError."""
    where = None
    if srdf is True:
        where = srdf_files.find_srdf(path, robot.name)
    elif srdf:
        where = os.fspath(srdf)
    if where is None:
        if needed:
            raise srdf_files.SrdfError(
                "Start is an SRDF group state, but no SRDF was found beside the URDF or in "
                "its package's srdf/ folder: choose the file")
        return None
    return srdf_files.read_srdf(where)


def read_source(src) -> urdf.Robot:
    """The robot of the URDF an import kept (``collection[SOURCE_KEY]``): parsed from its text,
    or read from its file when the text was too large to keep. Raises OSError or UrdfError."""
    source = str(src.get("file", ""))
    text = str(src.get("text", ""))
    return urdf.read_urdf(text, source_name=os.path.basename(source)) if text else \
        urdf.read_urdf(source)


# ---- building ---------------------------------------------------------------------------------
class _Builder:
    def __init__(self, ctx, scene, path, text, robot, lk, umap, search_paths, use_env):
        self.ctx, self.scene, self.path, self.text = ctx, scene, os.path.abspath(path), text
        self.robot, self.lk, self.umap = robot, lk, umap
        self.warnings: list[str] = []
        self.missing: list[str] = []
        self.progress = None  # progress(done, total), per link whose visuals are built
        self.srdf = None  # the robot's SRDF (read), whose disable_collisions pairs it stores
        self.limits = None  # {"file", "joints"} of its joint_limits.yaml, if read
        self.ground = False  # place the robot on the ground
        #: for a fixed base placed on the ground: dz (m) -> the linkage with its base pose
        #: moved up by dz
        self.relink = None
        self.visual_builder = VisualBuilder(ctx, self.path, search_paths, use_env,
                                            self.warnings, self.missing)

    def run(self) -> ImportedRobot:
        with RO.building(self.ctx, self.scene, self.path):
            return self._build()

    def _build(self) -> ImportedRobot:
        robot, lk = self.robot, self.lk
        poses = lk.poses()
        # names: link objects and joints never clash with what the scene has
        link_obj_name = RO.object_names(link.name for link in robot.links
                                        if link.name in lk.links)  # 'world' is the ground
        joint_name = RO.joint_names(self.scene, lk.joints)
        coll = bpy.data.collections.new(
            robot.name or os.path.splitext(os.path.basename(self.path))[0])
        self.scene.collection.children.link(coll)
        coll[SOURCE_KEY] = {"file": self.path,
                            "text": self.text if len(self.text) <= MAX_SOURCE_CHARS else ""}
        if self.limits is not None:  # the joint_limits.yaml read with it
            coll[SOURCE_KEY]["joint_limits"] = self.limits
        if self.srdf is not None:  # its planning groups, for exports of one group
            coll[SOURCE_KEY]["srdf"] = {"file": self.srdf.path,
                                        "groups": srdf_files.resolved_groups(self.srdf, robot)}
        obs = ImportedRobot(RO.link_empties(coll, link_obj_name, poses, _axes_size(robot)))
        visuals = {}
        for k, link in enumerate(robot.links):
            parent = obs.get(link.name)
            visuals[link.name] = [self.visual_builder.visual(coll, parent, link, i, v)
                                  for i, v in enumerate(link.visuals)] if parent else []
            if self.progress is not None:
                self.progress(k + 1, len(robot.links))
        if any(v.texture for link in robot.links for v in link.visuals):
            self.warnings.append("textures are not imported (only colours)")

        placed = 0.0
        if self.ground and self.relink is not None:  # held to the world: its base pose moves
            low = RO.lowest_point(obs.values(), self._depsgraph())
            if low:
                lk = self.lk = self.relink(-low)
                poses = lk.poses()
                for n, ob in obs.items():
                    ob.matrix_world = Matrix(poses[n].tolist())
                placed = -low
        RO.write_records(lk, obs, joint_name, poses)  # then read back: see RO
        if self.ground and self.relink is None:
            placed = RO.place_on_ground(obs.values(), self._depsgraph)
        obs.placed = placed
        parents = {j.child: j.parent for j in robot.joints}
        for n in TL.tool_names({n: parents.get(n) for n in obs}):
            TL.set_tool(obs[n])
        obs.ignored = RO.store_ignored(self.scene, obs, self.srdf, self.warnings)

        obs.robot, obs.collection = robot, coll
        urdf_joints = {j.name for j in robot.joints}
        obs.joints = {jn: joint_name[jn] for jn in lk.joints if jn in urdf_joints}
        obs.base_joint = joint_name.get(self.umap.base_joint)
        obs.visuals, obs.missing, obs.warnings = visuals, self.missing, self.warnings
        return obs


    def _depsgraph(self):
        vl = self.ctx.view_layer if self.ctx.scene == self.scene and \
            self.ctx.view_layer is not None else self.scene.view_layers[0]
        vl.update()
        return vl.depsgraph


def _axes_size(robot) -> float:
    """Display size of the link Empties: a third of the median joint offset (2 cm to 25 cm)."""
    d = [float(np.linalg.norm(j.origin.xyz)) for j in robot.joints]
    d = [x for x in d if x > 1e-9]
    return float(min(0.25, max(0.02, float(np.median(d)) / 3.0))) if d else 0.1
