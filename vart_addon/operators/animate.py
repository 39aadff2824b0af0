"""Drag, Operate Joint (modal), Key Pose and Bake: the operators of a user's animation day.

- ``vart.drag``: drag the active link in the viewport like Blender's G and R (the logic is
  :class:`vart_addon.drag.session.DragSession`; the event mapping
  :class:`vart_addon.drag.events.LinkDrag`).
  Mouse: move in the view plane through the link's origin; R: rotate about the view axis
  (R again: back to moving); X / Y / Z: constrain to the global axis, again for the link's
  local axis, again for none (Shift+X/Y/Z: the plane across that axis); Ctrl: snap (0.1 m,
  5 degrees; with Shift 0.01 m, 1 degree); Shift: ten times finer. Left click or Enter
  confirms, Esc or right click cancels (the scene is restored exactly); the view can be
  navigated meanwhile. The header shows the motion and the solver's status (the error of
  each unmet level, ms per update). One undo step per drag; auto-keying keys what moved.
  Called without a 3D view (from Python), it applies ``translation`` and ``rotation`` to the
  link's pose in one go, which is also what Adjust Last Operation re-runs.
- ``vart.operate_joint_modal``: operate the active joint with horizontal mouse motion (Tab:
  next DoF), same keys and guarantees; confirming stores the target at the final value as
  ``vart.operate_joint`` does. Without a view: ``value`` (display units), like that one.
- ``vart.key_pose``: key every link's transform and every joint's value at the current frame.
- ``vart.bake``: bake a frame range (default: the scene's) of what was animated into keys of
  every link and joint value (:func:`vart_addon.animation.bake.bake`), with Blender's progress
  indicator; frames where goals were unmet are reported and listed in the Vart status.
"""


import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty, FloatVectorProperty, IntProperty, StringProperty
from mathutils import Euler, Matrix

from ..drag import events as DE
from ..drag import geometry as DM
from ..drag import session as D
from ..shared import bridge_cache, selection, units
from . import support
from .frame_steps import FrameSteps


# ---- the 3D view as the event mapping needs it ------------------------------------------------
class View:
    """Rays and projections of a 3D viewport region (``bpy_extras.view3d_utils``), and the
    mouse in that region's pixels."""

    def __init__(self, region, rv3d):
        self.region, self.rv3d = region, rv3d

    def xy(self, event):
        """The mouse in this region (from window coordinates: the operator may have been
        started from another region of the area, e.g. a menu in its header)."""
        return np.array([event.mouse_x - self.region.x, event.mouse_y - self.region.y], float)

    def ray(self, xy) -> tuple[np.ndarray, np.ndarray]:
        from bpy_extras import view3d_utils as V
        xy = tuple(float(v) for v in xy)
        o = V.region_2d_to_origin_3d(self.region, self.rv3d, xy)
        d = V.region_2d_to_vector_3d(self.region, self.rv3d, xy)
        return np.array(o, float), np.array(d, float)

    def view_dir(self):
        from mathutils import Vector
        return np.array(self.rv3d.view_rotation @ Vector((0.0, 0.0, -1.0)), float)

    def project(self, point):
        from bpy_extras import view3d_utils as V
        p = V.location_3d_to_region_2d(self.region, self.rv3d, tuple(float(v) for v in point))
        return None if p is None else np.array(p, float)


def _view_of(context):
    """The 3D view of the context's area (its main region, whichever region the operator was
    started from), or None without one."""
    area = getattr(context, "area", None)
    if area is None or area.type != 'VIEW_3D':
        return None
    region = getattr(context, "region", None)
    if region is None or region.type != 'WINDOW':
        region = next((r for r in area.regions if r.type == 'WINDOW'), None)
    space = area.spaces.active
    rv3d = getattr(space, "region_3d", None)
    if region is None or rv3d is None:
        return None
    return View(region, rv3d)


def _mouse(view, event):
    return view.xy(event) if hasattr(view, "xy") else \
        np.array([event.mouse_region_x, event.mouse_region_y], float)


def _header(context, text):
    area = getattr(context, "area", None)
    if area is not None:
        area.header_text_set(text)


def _session(context):
    from ..properties import gravity_of, solver_settings
    scene = context.scene
    return D.DragSession(bridge_cache.bridge_for(scene), solver_settings(scene), gravity=gravity_of(scene))


def _finish(op, context, session, status, keep_target=True):
    """Confirm and report (a warning if goals were left unmet)."""
    session.confirm(keep_target=keep_target)
    if status is not None:
        if status.unmet or status.stuck:
            support.report_status(op, context.scene, status)
        else:
            from ..properties import store_status
            store_status(context.scene, status)


class _Modal:
    """invoke / modal shared by the two drags: ``self._ctl`` maps events onto the session."""

    def modal(self, context, event):
        ctl = self._ctl
        view = _view_of(context) or self._view
        r = ctl.handle(event, view)
        if r == DE.RUNNING:
            _header(context, ctl.header())
            return {'RUNNING_MODAL'}
        if r == DE.PASS_THROUGH:
            return {'PASS_THROUGH'}
        _header(context, None)
        if r == DE.FINISHED:
            try:
                self.remember(ctl)
                _finish(self, context, ctl.session, ctl.session.status,
                        self.keep_target_on_confirm())
            except support.ERRORS as e:
                ctl.session.cancel()
                self.report({'ERROR'}, str(e))
                return {'CANCELLED'}
            return {'FINISHED'}
        ctl.session.cancel()
        if ctl.error:
            self.report({'ERROR'}, ctl.error)
        return {'CANCELLED'}

    def keep_target_on_confirm(self) -> bool:
        return True

    def start(self, context, make):
        """Begin the modal drag with ``make(session) -> controller``; errors are reported."""
        session = _session(context)
        try:
            self._ctl = make(session)
        except support.ERRORS as e:
            session.cancel()
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        context.window_manager.modal_handler_add(self)
        _header(context, self._ctl.header())
        return {'RUNNING_MODAL'}


# ---- drag a link ------------------------------------------------------------------------------
class VART_OT_drag(_Modal, bpy.types.Operator):
    bl_idname = "vart.drag"
    vart_menu = (support.MenuItem("animate"),)
    bl_label = "Drag Link"
    bl_description = ("Drag the active link as with G / R: every joint follows through the "
                      "solver, within limits and locks (R: rotate, X/Y/Z: constrain, Ctrl: "
                      "snap, Shift: precise; Esc cancels)")
    bl_options = {'REGISTER', 'UNDO', 'BLOCKING'}

    link: StringProperty(name="Link", description="The link to drag (empty: the active "
                         "object)", options={'SKIP_SAVE'})
    mode: EnumProperty(name="Mode", items=[('TRANSLATE', "Move", "Start by moving (G)"),
                                           ('ROTATE', "Rotate", "Start by rotating (R)")],
                       default='TRANSLATE', options={'SKIP_SAVE'})
    translation: FloatVectorProperty(name="Move", size=3, subtype='TRANSLATION',
                                     unit='LENGTH', description="How far the link's origin "
                                     "was dragged (world)", options={'SKIP_SAVE'})
    rotation: FloatVectorProperty(name="Rotate", size=3, subtype='EULER',
                                  description="How the link was turned about its origin "
                                  "(world XYZ Euler angles)", options={'SKIP_SAVE'})

    @classmethod
    def poll(cls, context):
        return support.poll_link(cls, context)

    def _name(self, context):
        return self.link or selection.active_link(context).name

    def invoke(self, context, event):
        view = _view_of(context)
        if view is None:
            return self.execute(context)
        self._view = view
        name = self._name(context)
        xy = _mouse(view, event)
        return self.start(context, lambda s: DE.LinkDrag(s, name, xy, self.mode))

    def remember(self, ctl):
        """The drag as operator properties (Adjust Last Operation re-runs them)."""
        T0, T = ctl.T0, np.asarray(ctl.session.value, float)
        self.translation = tuple(T[:3, 3] - T0[:3, 3])
        Rd = T[:3, :3] @ T0[:3, :3].T
        self.rotation = tuple(Matrix(Rd.tolist()).to_euler('XYZ'))
        self.link = ctl.link

    def execute(self, context):
        session = _session(context)
        try:
            T0 = session.begin_link(self._name(context))
            R = np.array(Euler(tuple(self.rotation), 'XYZ').to_matrix(), float)
            T = T0.copy()
            T[:3, :3] = R @ T0[:3, :3]
            T[:3, 3] = T0[:3, 3] + np.asarray(self.translation, float)
            status = session.update(T)
            _finish(self, context, session, status)
        except support.ERRORS as e:
            session.cancel()
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        return {'FINISHED'}


# ---- operate a joint --------------------------------------------------------------------------
class VART_OT_operate_joint_modal(_Modal, bpy.types.Operator):
    bl_idname = "vart.operate_joint_modal"
    vart_menu = (support.MenuItem("animate"),)
    bl_label = "Operate Joint (Drag)"
    bl_description = ("Operate the active joint with the mouse (horizontal motion; Tab: next "
                      "DoF; Ctrl: snap, Shift: precise; Esc cancels): every other joint "
                      "follows through the solver")
    bl_options = {'REGISTER', 'UNDO', 'BLOCKING'}

    dof: IntProperty(name="DoF", description="The degree of freedom the mouse operates "
                     "first (0 = the first)", default=0, min=0, max=5, options={'SKIP_SAVE'})
    value: FloatVectorProperty(name="Value", size=6, description="Value per DoF in display "
                               "units (first DoF first; extra entries are ignored)",
                               options={'SKIP_SAVE'})
    keep_target: BoolProperty(name="Keep Target", default=True, description="Store the "
                              "target at the final value in the joint, as Operate Joint "
                              "does (off: the joint is free again after the drag)")

    @classmethod
    def poll(cls, context):
        return support.poll_joint(cls, context)

    def keep_target_on_confirm(self) -> bool:
        return self.keep_target

    def invoke(self, context, event):
        view = _view_of(context)
        if view is None:
            ob, name = selection.active_joint(context)
            q = selection.dialog_q(ob, name, selection.joint_type_of(context, name),
                                   context.scene)  # a q stored as a number too (issue 35)
            if not self.properties.is_property_set("value") and q is not None:
                self.value = q
            return self.execute(context)
        self._view = view
        name = selection.active_joint(context)[1]
        xy = _mouse(view, event)

        def make(session):
            ctl = DE.JointDrag(session, name, xy, min(self.dof, 5))
            ctl.length_per_pixel = _pixel_size(session, name, view, xy)
            return ctl
        return self.start(context, make)

    def remember(self, ctl):
        jtype = ctl.session.bridge.data.joints[ctl.joint].type
        self.value = units.pad6(units.to_display(list(ctl.session.value), jtype, bpy.context.scene))
        self.dof = ctl.index

    def execute(self, context):
        found = selection.active_joint(context)
        if found is None:
            self.report({'ERROR'}, "no active joint")
            return {'CANCELLED'}
        name = found[1]
        jtype = selection.joint_type_of(context, name)
        if jtype is None:
            self.report({'ERROR'}, f"joint {name!r} has no valid type")
            return {'CANCELLED'}
        q = units.to_internal(self.value, jtype, context.scene)
        if not np.isfinite(q).all():
            self.report({'ERROR'}, f"joint {name!r}: the value must be finite, got {q}")
            return {'CANCELLED'}
        session = _session(context)
        try:
            session.begin_joint(name, min(self.dof, max(len(q) - 1, 0)))
            status = session.update(np.asarray(q, float))
            _finish(self, context, session, status, self.keep_target)
        except support.ERRORS as e:
            session.cancel()
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        return {'FINISHED'}


def _pixel_size(session, joint, view: View, xy) -> float:
    """Metres per pixel at the joint's mobility frame origin (for a sliding DoF)."""
    lk = session.bridge.linkage
    j = lk.joints[joint]
    Tp = np.eye(4) if j.parent is None else lk.pose(j.parent)
    p = (Tp @ j.T_parent_mob)[:3, 3]
    vd = view.view_dir()
    a = DM.ray_plane(*view.ray(xy), p, vd)
    b = DM.ray_plane(*view.ray(np.asarray(xy) + (1.0, 0.0)), p, vd)
    if a is None or b is None:
        return 0.002
    return float(np.linalg.norm(b - a)) or 0.002


# ---- key pose and bake ------------------------------------------------------------------------
class VART_OT_key_pose(bpy.types.Operator):
    bl_idname = "vart.key_pose"
    vart_menu = (support.MenuItem("animate", order=1),)
    bl_label = "Key Pose"
    bl_description = ("Insert keyframes for every link's transform (location, rotation) and "
                      "every joint's value at the current frame")
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def execute(self, context):
        from ..animation.keying import key_pose
        try:
            res = key_pose(context.scene)
        except support.ERRORS as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        if not res.links and not res.joints:
            self.report({'WARNING'}, "Nothing to key: the scene has no links (Vart > Make "
                        "Links)")
            return {'CANCELLED'}
        self.report({'INFO'}, f"Keyed {len(res.links)} links and {len(res.joints)} joint "
                    f"values at frame {res.frame:g}")
        return {'FINISHED'}


class VART_OT_bake(FrameSteps, bpy.types.Operator):
    bl_idname = "vart.bake"
    vart_menu = (support.MenuItem("animate", order=1),)
    bl_label = "Bake"
    bl_description = ("Solve every frame of the range from what is animated (joint values, "
                      "targets, locks, link transforms) and key every link and joint value; "
                      "afterwards playback needs no solver")
    bl_options = {'REGISTER', 'UNDO'}
    verb = "Baking"

    frame_start: IntProperty(name="Start", description="First frame to bake (default: the "
                             "scene's start)", default=1, options={'SKIP_SAVE'})
    frame_end: IntProperty(name="End", description="Last frame to bake (default: the "
                           "scene's end)", default=250, options={'SKIP_SAVE'})

    @classmethod
    def poll(cls, context):
        return support.object_mode(cls, context)

    def _start(self, context):
        """Begin the bake (its checks run here) and the progress bar; with Check After Bake,
        Will It Run? follows it in the same steps."""
        from ..animation.bake import bake_steps
        scene = context.scene
        self._baked = None
        steps = bake_steps(scene, self.frame_start, self.frame_end,
                           bridge=bridge_cache.bridge_for(scene),
                           **bridge_cache.solve_kw(scene, bake=True))
        self._steps = self._then_check(scene, steps)
        self._done, self._total = next(self._steps)  # the first frame, or the bake's errors
        context.window_manager.progress_begin(0, self._total)

    def _then_check(self, scene, steps):
        """The bake's steps, then (Check After Bake) Will It Run?'s over the baked range;
        returns ``(bake result, checks or None, why not checked)``."""
        n = self.frame_end - self.frame_start + 1
        check = bool(scene.vart.check_after_bake)
        total = 3 * n if check else n
        try:
            while True:
                done, _ = next(steps)
                yield done, total
        except StopIteration as stop:
            self._baked = stop.value
        finally:
            steps.close()
        if not check:
            return self._baked, None, ""
        from ..checks.will_it_run import will_it_run_steps
        sv = scene.vart
        try:
            checks = will_it_run_steps(scene, self.frame_start, self.frame_end,
                                       ground=sv.clearance_ground,
                                       clearance_tolerance=sv.clearance_tolerance)
            try:
                while True:
                    done, _ = next(checks)
                    yield n + done, total
            except StopIteration as stop:
                return self._baked, stop.value, ""
            finally:
                checks.close()
        except support.ERRORS as e:  # a scene the checks cannot read: the bake stands
            return self._baked, None, str(e)

    def _stopped_text(self) -> str:
        if self._baked is not None:
            return (f"Baked {self._baked.frames} frames; Will It Run? stopped after the "
                    "bake (not checked)")
        return f"Bake stopped after {self._done} of {self._total} frames: nothing was keyed"

    def _finish(self, context, value):
        from ..properties import store_status
        res, checks, why_not = value
        scene = context.scene
        store_status(scene, res.level_status())
        scene.vart.status_summary = scene.vart.bake_summary = res.summary()
        self.report({'WARNING'} if res.unmet or res.stuck else {'INFO'}, res.summary())
        if checks is not None:
            from ..checks.will_it_run import store
            text = store(scene, *checks)
            clear, (rep, _, _) = checks
            bad = rep.failures()
            if clear.depth or bad:
                self.report({'WARNING'}, "Will it run? The baked motion fails: " +
                            ("; ".join(x for x in (clear.summary(most=2) if clear.depth
                                                   else "", text if bad else "") if x)))
        elif why_not:
            self.report({'WARNING'}, f"Will it run? not checked: {why_not}")
        return {'FINISHED'}

    def execute(self, context):
        return self._run_all(context)


classes = (VART_OT_drag, VART_OT_operate_joint_modal, VART_OT_key_pose, VART_OT_bake)

# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
