"""Export Trajectory and Import Trajectory (File > Export / Import, the sidebar's Animation
panel): thin wrappers of :mod:`vart_addon.io_trajectory`.

- ``vart.export_trajectory``: the joint values of a frame range (default: the scene's) in a
  format of :data:`vart_addon.formats.trajectory.files.TABLE`, chosen by ``file_format`` or by
  the extension typed in the file browser. Real joints (virtual ones optional), waypoints every ``angle_step``
  (shown in the scene's rotation unit, degrees by default) or ``length_step``, or every
  frame. Limit violations are a WARNING report by joint and time, and the file is still
  written, unless ``refuse_violations`` (then nothing is written: an ERROR). ``joint_group``:
  only the joints of a planning group of the robot's SRDF (``srdf_file``, default the SRDF
  read with its URDF at import, its groups kept with the robot). A controller's goal
  (``.goal.json``) carries the path and goal tolerances (of the angular joints and of the
  linear ones, :class:`GoalToleranceOptions`) and the goal time tolerance typed here.
  *Timing* re-times the motion within the joints' limits (:mod:`.timing_options`, shared
  with Replay in MuJoCo). Failures (empty range, nothing to
  export, unwritable path, an unknown group) are an ERROR report and CANCELLED, with no file
  written and an existing one untouched.
- ``vart.import_trajectory``: a trajectory file of any of those formats keyed onto the joints from
  ``start_frame`` (default: the scene's start), then baked over the frames it spans (``bake``)
  so the links follow. One undo step. Joints of the file missing in the scene and real scene
  joints missing in the file are a WARNING report; a file that matches nothing is an ERROR
  and changes nothing.
"""
import math
import os

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from ..formats.trajectory import files as TIO
from ..formats.trajectory.ros_goal import GoalTolerances, Tolerance
from ..shared import bridge_cache
from . import support
from .io import report_warnings
from .timing_options import TimingOptions

#: The Format enum's items, one per format of the table.
FORMAT_ITEMS = [(f.id, f.label, f.description) for f in TIO.TABLE]
#: The formats' names in a sentence: "CSV, ROS JointTrajectory or Klampt Path".
_NAMES = ", ".join(f.name for f in TIO.TABLE[:-1]) + f" or {TIO.TABLE[-1].name}"
#: What a goal tolerance is of, when, and in what unit (angular joints, linear joints).
_WHEN = {"path": "as the trajectory runs", "goal": "at its end"}
_WHAT = {"position": ("how far the joint may be from the trajectory", "rad", "m"),
         "velocity": ("the velocity error allowed", "rad/s", "m/s"),
         "acceleration": ("the acceleration error allowed", "rad/s^2", "m/s^2")}


def _tolerance(when: str, quantity: str, linear: bool = False):
    """A FloatProperty of a FollowJointTrajectory goal tolerance (>= 0; 0: the controller's
    default): ``when`` "path" or "goal", ``quantity`` a key of :data:`_WHAT`, of the
    revolute (or ``linear``: prismatic) joints."""
    what, angular_unit, linear_unit = _WHAT[quantity]
    kind = "prismatic" if linear else "revolute or continuous"
    return FloatProperty(
        name=f"{when.title()} {'Linear ' if linear else ''}{quantity.title()} Tolerance",
        default=0.0, min=0.0, soft_max=10.0, precision=4,
        description=f"FollowJointTrajectory goal: {what} {_WHEN[when]}, for each {kind} joint "
                    f"({linear_unit if linear else angular_unit}; 0: the controller's default)")


#: The goal tolerance options, in the dialog's order: (property, when, quantity, linear).
_TOLERANCES = [(f"{when}_{'linear_' if linear else ''}{q}_tolerance", when, q, linear)
               for when in _WHEN for linear in (False, True) for q in _WHAT]


class GoalToleranceOptions:
    """An operator mixin: a FollowJointTrajectory goal's tolerances as options (path and
    goal, each for the angular and the linear joints: position, velocity, acceleration;
    :data:`_TOLERANCES`), and the goal time, read by :meth:`tolerances`."""

    __annotations__ = {name: _tolerance(when, q, linear) for name, when, q, linear in _TOLERANCES}
    __annotations__["goal_time_tolerance"] = FloatProperty(
        name="Goal Time Tolerance", default=0.0, min=0.0, soft_max=10.0, precision=4,
        description="FollowJointTrajectory goal: how late the end may be reached (s; 0: the "
                    "controller's default)")

    def tolerances(self) -> GoalTolerances:
        """The goal's tolerances as typed (ValueError naming the field for a bad one)."""
        t = support.typed

        def of(when: str, kind: str = "") -> Tolerance:
            return Tolerance(*(t(getattr(self, f"{when}_{kind}{q}_tolerance")) for q in _WHAT))
        late = getattr(self, "goal_time_tolerance")  # noqa: B009 (made in __annotations__)
        return GoalTolerances(of("path"), of("goal"), t(late), linear_path=of("path", "linear_"),
                              linear_goal=of("goal", "linear_"))


def _store_bake(scene, res) -> None:
    """Keep a bake's outcome in the scene's status (as ``vart.bake`` does)."""
    from ..properties import store_status
    store_status(scene, res.level_status())
    scene.vart.status_summary = scene.vart.bake_summary = res.summary()


class VART_OT_export_trajectory(bpy.types.Operator, ExportHelper, TimingOptions,
                                GoalToleranceOptions):
    bl_idname = "vart.export_trajectory"
    bl_label = "Export Trajectory"
    bl_description = (f"Export the joint values of a frame range as a trajectory ({_NAMES}), "
                      "with waypoints every few degrees or every frame; limit violations are "
                      "reported")
    bl_options = {'REGISTER'}

    filter_glob: StringProperty(default=TIO.file_glob(), options={'HIDDEN'})
    file_format: EnumProperty(name="Format", items=FORMAT_ITEMS, default=TIO.TABLE[0].id,
                              description="File format (follows the extension typed)")
    frame_start: IntProperty(name="Start", description="First frame (default: the scene's "
                             "start)", default=1, options={'SKIP_SAVE'})
    frame_end: IntProperty(name="End", description="Last frame (default: the scene's end)",
                           default=250, options={'SKIP_SAVE'})
    include_virtual: BoolProperty(name="Include Virtual Joints", default=False,
                                  description="Export virtual joints too (a real robot has "
                                  "only the real ones)")
    every_frame: BoolProperty(name="Every Frame", default=False,
                              description="A waypoint at every frame (else only when a joint "
                              "has moved by the steps below, plus the first and last)")
    angle_step: FloatProperty(name="Angle Step", subtype='ANGLE', default=math.radians(2.0),
                              min=1e-6, soft_min=math.radians(0.1), soft_max=math.radians(30),
                              description="A new waypoint when an angular joint has moved "
                              "this much since the last one")
    length_step: FloatProperty(name="Length Step", subtype='DISTANCE', unit='LENGTH',
                               default=0.02, min=1e-9, soft_min=1e-4, soft_max=0.5,
                               description="A new waypoint when a linear joint has moved "
                               "this much since the last one")
    require_bake: BoolProperty(name="Require Bake", default=True,
                               description="Refuse frames no bake covers (Bake Range first); "
                               "off: export the keys as they are, for a motion keyed on "
                               "every real joint directly")
    derivatives: BoolProperty(name="CSV Velocities", default=False,
                              description="CSV: add velocity and acceleration columns "
                              "(JSON always has them; a .path has none)")
    refuse_violations: BoolProperty(name="Refuse Limit Violations", default=False,
                                    description="Write nothing when a joint leaves its limits "
                                    "(else the file is written and the violations reported)")
    joint_group: StringProperty(name="Joint Group", default="",
                                description="Export only the joints of this planning group "
                                "of the robot's SRDF (panda_arm: the arm without its "
                                "fingers); empty: every real joint")
    srdf_file: StringProperty(name="SRDF", default="", subtype='FILE_PATH',
                              description="The SRDF of the joint group (empty: the one "
                              "read with the robot's URDF at import)")

    #: The options in the file browser's side panel, in this order (the Timing options come
    #: from a mixin, whose properties Blender would list first).
    DRAWN = ("file_format", "frame_start", "frame_end", "include_virtual", "every_frame",
             "angle_step", "length_step", "require_bake", "derivatives", "retime",
             "velocity_limit", "linear_velocity_limit", "acceleration_limit",
             "linear_acceleration_limit", "refuse_violations", "joint_group", "srdf_file",
             *(name for name, *_ in _TOLERANCES), "goal_time_tolerance")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        for name in self.DRAWN:
            layout.prop(self, name)

    @property
    def filename_ext(self):
        fmt = TIO.BY_ID.get(self.file_format, TIO.TABLE[0])
        return fmt.extension

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def _defaults(self, context):
        scene = context.scene
        if not self.properties.is_property_set("frame_start"):
            self.frame_start = scene.frame_start
        if not self.properties.is_property_set("frame_end"):
            self.frame_end = scene.frame_end

    def invoke(self, context, event):
        self._defaults(context)
        return super().invoke(context, event)

    def check(self, context):
        """A known extension typed in the file name picks the format; else the format's
        extension is put on the name."""
        fmt = TIO.find_format(self.filepath)
        if fmt is None:
            return ExportHelper.check(self, context)
        changed = fmt.id != self.file_format
        self.file_format = fmt.id  # (ExportHelper would split a two-part .goal.json)
        return changed

    def execute(self, context):
        from ..io_trajectory import export_trajectory
        self._defaults(context)
        if not self.filepath or os.path.isdir(self.filepath):
            self.report({'ERROR'}, "choose a file to export to")
            return {'CANCELLED'}
        path = self.filepath
        fmt = TIO.find_format(path)
        if fmt is not None:
            self.file_format = fmt.id
        else:
            path = bpy.path.ensure_ext(path, self.filename_ext)
        try:
            tolerances = self.tolerances()
        except ValueError as e:
            self.report({'ERROR'}, f"not exported: {e}")
            return {'CANCELLED'}
        try:
            # refuse what every edit refuses (zero scale, values outside limits, mimic cycles)
            bridge_cache.bridge_for(context.scene).sync()
            res = export_trajectory(context.scene, path, frame_start=self.frame_start,
                                    frame_end=self.frame_end,
                                    include_virtual=self.include_virtual,
                                    every_frame=self.every_frame,
                                    angle_step=self.angle_step, length_step=self.length_step,
                                    refuse_violations=self.refuse_violations,
                                    require_bake=self.require_bake,
                                    derivatives=self.derivatives or None,
                                    retime=self.retime_method(), limits=self.limits(),
                                    group=self.joint_group.strip() or None,
                                    srdf=bpy.path.abspath(self.srdf_file) or None,
                                    tolerances=tolerances)
        except support.ERRORS as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        w = res.written
        head = (f"exported {w.n_times} waypoints of {w.n_joints} joint values (frames "
                f"{res.frame_start}-{res.frame_end}) to {res.path}")
        if res.base:
            head += f", base {res.base!r} included"
        if res.timing is not None:
            head += f", {res.timing.summary()}"
        if res.violations:
            joints = sorted({v.joint for v in res.violations})
            report_warnings(self, res.violation_lines() + res.notes,
                            f"{head}; limits exceeded by {len(joints)} joint"
                            + ("s" if len(joints) != 1 else ""))
        else:
            report_warnings(self, res.notes, head)
        return {'FINISHED'}


# bpy_extras' stubs declare ImportHelper.check -> None (clashes with Operator's).
class VART_OT_import_trajectory(bpy.types.Operator, ImportHelper):  # type: ignore[misc]
    bl_idname = "vart.import_trajectory"
    bl_label = "Import Trajectory"
    bl_description = (f"Key a trajectory file ({_NAMES}) onto the joints of the same names, "
                      "then bake so the links follow")
    bl_options = {'REGISTER', 'UNDO'}

    filter_glob: StringProperty(default=TIO.file_glob(), options={'HIDDEN'})
    start_frame: IntProperty(name="Start Frame", description="Frame of the trajectory's time "
                             "0 (default: the scene's start)", default=1,
                             options={'SKIP_SAVE'})
    bake: BoolProperty(name="Bake", default=True,
                       description="Bake the frames the trajectory spans, so every link and "
                       "joint gets keys (else only the file's joints are keyed)")

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def _defaults(self, context):
        if not self.properties.is_property_set("start_frame"):
            self.start_frame = context.scene.frame_start

    def invoke(self, context, event):
        self._defaults(context)
        return super().invoke(context, event)

    def execute(self, context):

        from ..io_trajectory import import_trajectory
        self._defaults(context)
        if not self.filepath or os.path.isdir(self.filepath):
            self.report({'ERROR'}, f"choose a trajectory file ({TIO.extensions_text()})")
            return {'CANCELLED'}
        scene = context.scene
        wm = context.window_manager
        started = False

        def progress(done, total):
            nonlocal started
            if not started:
                wm.progress_begin(0, total)
                started = True
            wm.progress_update(done)
        try:
            res = import_trajectory(
                scene, self.filepath, start_frame=self.start_frame, bake=self.bake,
                bridge=bridge_cache.bridge_for(scene), progress=progress,
                **bridge_cache.solve_kw(scene, bake=True))
        except support.ERRORS as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        finally:
            if started:
                wm.progress_end()
        if res.bake is not None:
            _store_bake(scene, res.bake)
        report_warnings(self, res.warnings(), res.summary())
        return {'FINISHED'}


class VART_OT_export_gltf(bpy.types.Operator, ExportHelper):  # type: ignore[misc]
    bl_idname = "vart.export_gltf"
    bl_label = "Export Animation (glTF)"
    bl_description = ("Export the scene and its baked motion as glTF with one animation (the "
                      "links' actions merged, every frame sampled), for game engines and film: "
                      "re-imports to the baked poses")
    bl_options = {'REGISTER'}

    filename_ext = ".glb"
    filter_glob: StringProperty(default="*.glb;*.gltf", options={'HIDDEN'})

    @classmethod
    def poll(cls, context):
        return support.poll_links(cls, context)

    def execute(self, context):
        from ..io_trajectory.gltf_export import export_gltf
        try:
            done = export_gltf(self.filepath, context.scene)
        except support.ERRORS as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        self.report({'INFO'}, f"Exported {os.path.basename(done['path'])}: one animation of "
                    f"{done['frames']} frames")
        return {'FINISHED'}


classes = (VART_OT_export_trajectory, VART_OT_import_trajectory, VART_OT_export_gltf)

# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
