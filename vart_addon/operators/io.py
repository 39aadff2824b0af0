"""Operators that move robots and set-ups in and out of files: Import URDF, Export URDF,
Export MuJoCo MJCF, Save Preset, Load Preset (File > Import / Export, see :mod:`vart_addon.io_urdf.menus`).

Each is a thin wrapper of :mod:`vart_addon.io_urdf`: a refused file (malformed, unknown joint
type, broken tree, a preset for another robot...) is an error report, CANCELLED and an
unchanged scene; what was done with reservations (missing meshes, joints URDF cannot
express) is a warning report listing them.
"""
import os

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from ..bridge import schema as S
from ..formats.urdf import mesh_paths, xacro_files
from ..formats.urdf.base import UrdfError
from ..io_urdf import IoError
from ..shared import bridge_cache, preferences
from . import support

#: Warnings listed one by one in a report; more are counted.
MAX_LISTED = 8


def report_warnings(op, warnings, head: str) -> None:
    """One WARNING report: ``head``, then the warnings (the first MAX_LISTED) one per line;
    without warnings, ``head`` as an INFO report."""
    if not warnings:
        op.report({'INFO'}, head)
        return
    lines = [f"{head} ({len(warnings)} warning{'s' if len(warnings) != 1 else ''}):"]
    lines += [f"- {w}" for w in warnings[:MAX_LISTED]]
    if len(warnings) > MAX_LISTED:
        lines.append(f"... and {len(warnings) - MAX_LISTED} more")
    op.report({'WARNING'}, "\n".join(lines))


def _select(context, obs, active=None):
    vl = context.view_layer
    if vl is None:
        return
    for ob in vl.objects:
        if ob is not None:  # a removed object's base, until the view layer resyncs
            ob.select_set(False)
    for ob in obs:
        if ob.name in vl.objects:
            ob.select_set(True)
    if active is not None and active.name in vl.objects:
        vl.objects.active = active


#: Import URDF's *Place on Ground* -> ``import_urdf(place_on_ground=)``: None is the API's
#: default rule (:func:`vart_addon.io_urdf.importer.places_on_ground`), shared.
PLACE_ON_GROUND = {'FREE': None, 'ON': True, 'OFF': False}


# bpy_extras' stubs declare ImportHelper.check -> None (clashes with Operator's).
class VART_OT_import_urdf(bpy.types.Operator, ImportHelper):  # type: ignore[misc]
    bl_idname = "vart.import_urdf"
    bl_label = "Import URDF"
    bl_description = ("Import a robot from a URDF file (or a xacro file, expanded first): one "
                      "link (an Empty) per URDF link with its visual meshes, one real vart "
                      "joint per URDF joint")
    bl_options = {'REGISTER', 'UNDO'}

    filename_ext = ".urdf"
    filter_glob: StringProperty(default="*.urdf;*.xml;*.xacro", options={'HIDDEN'})
    xacro_args: StringProperty(
        name="Xacro Arguments",
        description="For a .xacro file: its arguments as on a command line, name:=value "
                    "separated by spaces (e.g. prefix:=left_ use_gripper:=true)")
    search_paths: StringProperty(
        name="Mesh Search Paths",
        description="Extra folders where package:// and relative mesh paths are looked for "
                    "(a package folder or a folder of packages; separate several with ';'). "
                    "The URDF's folder and its parents are always searched")
    fixed_base: BoolProperty(
        name="Fixed Base",
        description="Hold the root link to the world with a virtual fixed joint (else the "
                    "root link is free and moves when a solve needs it)",
        default=False)
    start: EnumProperty(
        name="Start",
        description="The configuration the robot is imported in",
        items=[('ZERO', "Zero", "Every joint at 0, clamped into its limits"),
               ('MIDDLE', "Middle of Limits", "Every joint in the middle of its limits"),
               ('FILE', "Pose File", "The first sample of a trajectory file (.csv, .json, "
                "ROS JointTrajectory; .path in the order of a vart export); joints it does "
                "not name start at zero"),
               ('SRDF', "SRDF Group State", "A named configuration of the robot's SRDF (its "
                "home pose, e.g. half_sitting; the root's pose too when it gives one); "
                "joints it does not name start at zero")],
        default='ZERO')
    start_file: StringProperty(
        name="Pose File", subtype='FILE_PATH',
        description="With Start = Pose File: the trajectory file whose first sample is the "
                    "start configuration")
    srdf_file: StringProperty(
        name="SRDF", subtype='FILE_PATH',
        description="The robot's SRDF (group states; disable_collisions pairs become the "
                    "clearance check's ignored pairs). Empty: the one beside the URDF or in "
                    "its package's srdf/ folder, if any")
    joint_limits_file: StringProperty(
        name="Joint Limits", subtype='FILE_PATH',
        description="The robot's joint_limits.yaml (MoveIt / ros2_control: velocity and "
                    "acceleration limits for exports' retiming and the motion checks). Empty: "
                    "the one beside the URDF or in a config/ folder near it, if any")
    srdf_state: StringProperty(
        name="Group State",
        description="With Start = SRDF Group State: its name (empty: the SRDF's first)")
    place_on_ground: EnumProperty(
        name="Place on Ground",
        description="Move the robot up or down so that the lowest point of its geometry lies "
                    "on z = 0",
        items=[('FREE', "Floating Base", "When the robot's root is free: not Fixed Base, and "
                "not fixed to a 'world' link by the URDF"),
               ('ON', "On", "Also a Fixed Base robot (its base moves up or down)"),
               ('OFF', "Off", "Where the URDF puts the robot: its root at the origin")],
        default='FREE')

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def invoke(self, context, event):
        if self.properties.is_property_set("filepath"):  # dropped on the viewport
            return context.window_manager.invoke_props_dialog(
                self, title=os.path.basename(self.filepath), confirm_text="Import URDF")
        return super().invoke(context, event)

    def execute(self, context):
        from ..io_urdf.importer import import_urdf
        if not self.filepath or os.path.isdir(self.filepath):
            self.report({'ERROR'}, "choose a URDF file")
            return {'CANCELLED'}
        try:
            if self.start == 'FILE' and not self.start_file:
                self.report({'ERROR'}, "Start is Pose File: choose the pose file")
                return {'CANCELLED'}
            with support.Progress(context, "Importing URDF: links") as progress:
                obs = import_urdf(self.filepath, context=context, progress=progress,
                                  xacro_args=xacro_files.parse_args(self.xacro_args),
                                  search_paths=mesh_paths.split_search_paths(self.search_paths)
                                  + preferences.search_paths(context),
                                  fixed_base=self.fixed_base,
                                  start={'MIDDLE': "middle", 'SRDF': "srdf"}.get(self.start,
                                                                                "zero"),
                                  start_file=bpy.path.abspath(self.start_file)
                                  if self.start == 'FILE' else None,
                                  srdf=bpy.path.abspath(self.srdf_file) if self.srdf_file
                                  else True, srdf_state=self.srdf_state or None,
                                  joint_limits=bpy.path.abspath(self.joint_limits_file)
                                  if self.joint_limits_file else True,
                                  place_on_ground=PLACE_ON_GROUND[self.place_on_ground])
        except (IoError, UrdfError, *support.ERRORS) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        root = obs.get(obs.robot.root_link) or next(iter(obs.values()), None)
        _select(context, obs.values(), root)
        name = obs.robot.name or os.path.basename(self.filepath)
        summary = (f"imported {name!r}: {len(obs)} links, {len(obs.joints)} joints"
                   + (f", {len(obs.missing)} mesh(es) missing" if obs.missing else "")
                   + (f", placed on the ground ({obs.placed * 1e3:+.1f} mm)" if obs.placed
                      else "")
                   + (f", {obs.ignored} pairs ignored by the clearance check (SRDF)"
                      if obs.ignored else ""))
        report_warnings(self, obs.warnings, summary)
        return {'FINISHED'}


class VART_OT_import_mjcf(bpy.types.Operator, ImportHelper):  # type: ignore[misc]
    bl_idname = "vart.import_mjcf"
    bl_label = "Import MuJoCo MJCF"
    bl_description = ("Import a robot from a MuJoCo MJCF file (compiled by MuJoCo): one link "
                      "per body with its geoms, one vart joint per joint, closures and "
                      "couplings for equality constraints. Needs the mujoco package")
    bl_options = {'REGISTER', 'UNDO'}

    filename_ext = ".xml"
    filter_glob: StringProperty(default="*.xml;*.mjcf", options={'HIDDEN'})

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        from ..io_urdf.mjcf_importer import import_mjcf
        if not self.filepath or os.path.isdir(self.filepath):
            self.report({'ERROR'}, "choose an MJCF file")
            return {'CANCELLED'}
        try:
            obs = import_mjcf(self.filepath, context=context,
                              search_paths=preferences.search_paths(context))
        except (IoError, *support.ERRORS) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        _select(context, obs.values(), next(iter(obs.values()), None))
        report_warnings(self, obs.warnings, f"imported {obs.collection.name!r}: {len(obs)} "
                        f"links, {len(obs.joints)} joints")
        return {'FINISHED'}


# bpy_extras' stubs declare ExportHelper.check/invoke -> None (clash with Operator's).
class VART_OT_export_urdf(bpy.types.Operator, ExportHelper):  # type: ignore[misc]
    bl_idname = "vart.export_urdf"
    bl_label = "Export URDF"
    bl_description = ("Export the real robot (virtual links and joints left out) as URDF, "
                      "with every mesh it names in a meshes/ folder next to it (a "
                      "self-contained package)")
    bl_options = {'REGISTER'}

    filename_ext = ".urdf"
    filter_glob: StringProperty(default="*.urdf", options={'HIDDEN'})
    robot_name: StringProperty(
        name="Robot Name",
        description="The <robot name>; empty: that of the imported URDF, else the file name")
    binary_stl: BoolProperty(name="Binary STL", default=True,
                             description="Write binary STL meshes (else ASCII)")
    keep_meshes: BoolProperty(
        name="Keep Original Meshes", default=True,
        description="An imported visual whose geometry is unchanged keeps the mesh file it "
                    "came from, copied into meshes/ (Collada converted to STL); off: every "
                    "visual is written as an STL of what it shows")
    selected_only: BoolProperty(
        name="Selected Robots Only", default=False,
        description="Export only the robots (links connected by real joints) that hold a "
                    "selected link or a selected child of one")

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        from ..io_urdf.exporter import export_urdf
        links = None
        if self.selected_only:
            links = set()
            for ob in context.selected_objects:
                while ob is not None and not S.is_link(ob):
                    ob = ob.parent
                if ob is not None:
                    links.add(ob.name)
            if not links:
                self.report({'ERROR'}, "no link is selected (Selected Robots Only)")
                return {'CANCELLED'}
        try:
            res = export_urdf(self.filepath, context=context, name=self.robot_name or None,
                              binary=self.binary_stl, links=links,
                              keep_meshes=self.keep_meshes,
                              search_paths=preferences.search_paths(context))
        except (IoError, *support.ERRORS) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        summary = (f"exported {res.robot.name!r} to {res.path}: {len(res.robot.links)} links, "
                   f"{len(res.robot.joints)} joints, {len(res.meshes)} mesh files written "
                   "to meshes/")
        report_warnings(self, res.warnings, summary)
        return {'FINISHED'}


# bpy_extras' stubs declare ExportHelper.check/invoke -> None (clash with Operator's).
class VART_OT_export_mjcf(bpy.types.Operator, ExportHelper):  # type: ignore[misc]
    bl_idname = "vart.export_mjcf"
    bl_label = "Export MuJoCo MJCF"
    bl_description = ("Export the real robot as MuJoCo MJCF at the current frame, as the "
                      "physics replay models it (inertials, effort-limited position servos, "
                      "collision meshes as STL files next to it, closure joints as "
                      "equality constraints)")
    bl_options = {'REGISTER'}

    filename_ext = ".xml"
    filter_glob: StringProperty(default="*.xml", options={'HIDDEN'})
    virtual_closures: BoolProperty(
        name="Virtual Closures", default=False,
        description="Also write the virtual spherical, fixed and revolute joints between real "
                    "links (or a real link and the world) as equality constraints, e.g. pins "
                    "to the ground")
    ground: BoolProperty(name="Ground Plane", default=True,
                         description="Add a ground plane at z = 0")

    @classmethod
    def poll(cls, context):
        return support.poll_links(cls, context)

    def execute(self, context):
        from ..checks.mjcf_export import export_mjcf
        scene = context.scene
        try:
            res = export_mjcf(self.filepath, scene, virtual_closures=self.virtual_closures,
                              ground=self.ground, bridge=bridge_cache.bridge_for(scene))
        except (OSError, *support.ERRORS) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        summary = (f"exported {res.robot.name!r} to {res.file.path} at frame "
                   f"{scene.frame_current}: {len(res.robot.links)} links, "
                   f"{len(res.q)} joints, {len(res.closures)} closures as equalities, "
                   f"{len(res.file.mesh_files)} meshes")
        report_warnings(self, res.warnings, summary)
        return {'FINISHED'}


# bpy_extras' stubs declare ExportHelper.check/invoke -> None (clash with Operator's).
class VART_OT_save_preset(bpy.types.Operator, ExportHelper):  # type: ignore[misc]
    bl_idname = "vart.save_preset"
    bl_label = "Save Articulation Preset"
    bl_description = ("Save the virtual links and joints, locks, targets and postures added "
                      "to the robot as a JSON preset keyed by link names")
    bl_options = {'REGISTER'}

    filename_ext = ".json"
    filter_glob: StringProperty(default="*.json", options={'HIDDEN'})

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        from ..io_urdf.presets import save_preset
        try:
            d = save_preset(self.filepath, scene=context.scene)
        except (IoError, *support.ERRORS) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        self.report({'INFO'}, f"saved preset {os.path.basename(self.filepath)}: "
                    f"{len(d['virtual_links'])} virtual links, {len(d['joints'])} joints, "
                    f"goals on {len(d['real_joints'])} real joints and "
                    f"{len(d['real_links'])} real links")
        return {'FINISHED'}


# bpy_extras' stubs declare ImportHelper.check/invoke -> None (clash with Operator's).
class VART_OT_load_preset(bpy.types.Operator, ImportHelper):  # type: ignore[misc]
    bl_idname = "vart.load_preset"
    bl_label = "Load Articulation Preset"
    bl_description = ("Apply a saved virtual articulation preset to the robot in this scene "
                      "(its links are found by name)")
    bl_options = {'REGISTER', 'UNDO'}

    filename_ext = ".json"
    filter_glob: StringProperty(default="*.json", options={'HIDDEN'})
    solve: BoolProperty(name="Solve", default=False,
                        description="Solve after applying the preset (else the next solve or "
                                    "drag applies its goals)")

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        from ..io_urdf.presets import load_preset
        scene = context.scene
        try:
            res = load_preset(self.filepath, scene=scene, solve=self.solve,
                              bridge=bridge_cache.bridge_for(scene))
        except (IoError, *support.ERRORS) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        if res.status is not None:
            support.report_status(self, scene, res.status)
        self.report({'INFO'}, f"applied preset {os.path.basename(self.filepath)}: "
                    f"{len(res.links)} virtual links, {len(res.joints)} joints, goals on "
                    f"{len(res.real_joints)} real joints and {len(res.real_links)} real links")
        return {'FINISHED'}


classes = (VART_OT_import_urdf, VART_OT_import_mjcf, VART_OT_export_urdf, VART_OT_export_mjcf,
           VART_OT_save_preset, VART_OT_load_preset)

# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
