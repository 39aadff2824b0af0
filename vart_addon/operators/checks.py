"""Will it run? ``vart.will_it_run``: clearance, balance, static torque and slip of a baked
range in one pass (:mod:`vart_addon.checks.will_it_run`), a few frames per timer tick with the
progress indicator, Esc to stop; figures keyed as curves, markers, the worst frames and joints
listed. ``vart.check_clearance``: the clearance check of a baked range
(:func:`vart_addon.checks.clearance.check_clearance_steps`), a few frames per timer tick with
the progress indicator, Esc to stop; reported, stored in ``scene.vart.clearance_summary`` and
marked on the timeline.
``vart.replay_physics``: the baked range replayed in MuJoCo
(:func:`vart_addon.checks.replay.replay_scene_steps`), at the scene's frame rate or at the
times Export Trajectory's re-timing gives the frames (its Timing options), a few frames per
timer tick with the progress indicator, Esc to stop; reported and stored in
``scene.vart.replay_summary``, its tracking error and forces keyed as curves
(:mod:`vart_addon.checks.plots`).
``vart.plot_curves``: each animated joint's velocity and acceleration keyed as curves; both
refresh the peaks list (``scene.vart.peaks``)."""


import bpy
from bpy.props import BoolProperty, FloatProperty, IntProperty, StringProperty

from . import support
from .frame_steps import FrameSteps
from .timing_options import TimingOptions


class VART_OT_check_clearance(FrameSteps, bpy.types.Operator):
    bl_idname = "vart.check_clearance"
    bl_label = "Check Clearance"
    bl_description = ("Step through the frame range and find where a link's geometry goes "
                      "into the ground or into another link it is not jointed to: pairs, "
                      "frames and depth, with a timeline marker where each contact begins "
                      "(Esc stops)")
    bl_options = {'REGISTER', 'UNDO'}
    verb = "Checking clearance"

    frame_start: IntProperty(name="Start", description="First frame to check (default: the "
                             "scene's start)", default=1, options={'SKIP_SAVE'})
    frame_end: IntProperty(name="End", description="Last frame to check (default: the scene's "
                           "end)", default=250, options={'SKIP_SAVE'})
    ground: StringProperty(name="Ground", description="Name of the ground's mesh object "
                           "(default: the Vart setting; empty: the plane z = 0)",
                           options={'SKIP_SAVE'})
    tolerance: FloatProperty(name="Tolerance", description="Ground penetration below this "
                             "depth is not a contact (default: the Vart setting)",
                             default=1e-4, min=0.0, unit='LENGTH', precision=4,
                             options={'SKIP_SAVE'})
    markers: BoolProperty(name="Markers", description="Put a timeline marker at the first "
                          "frame of each contact (replacing the last check's)", default=True)

    @classmethod
    def poll(cls, context):
        return support.poll_links(cls, context)

    def _defaults(self, context):
        FrameSteps._defaults(self, context)  # the frame range, as the stepped operators
        scene, is_set = context.scene, self.properties.is_property_set
        if not is_set("ground"):
            ob = scene.vart.clearance_ground
            self.ground = ob.name if ob is not None else ""
        if not is_set("tolerance"):
            self.tolerance = scene.vart.clearance_tolerance

    def _start(self, context):
        from ..checks.clearance import check_clearance_steps
        self._steps = check_clearance_steps(context.scene, self.frame_start, self.frame_end,
                                            ground=self.ground or None,
                                            tolerance=self.tolerance)
        self._done, self._total = next(self._steps)  # the first frame, or the check's errors
        context.window_manager.progress_begin(0, self._total)

    def _stopped_text(self) -> str:
        return (f"Clearance check stopped after {self._done} of {self._total} frames; "
                "nothing was stored")

    def _finish(self, context, res):
        from ..checks.clearance import put_markers
        scene = context.scene
        if self.markers:
            put_markers(scene, res)
        scene.vart.clearance_summary = res.summary()
        self.report({'WARNING'} if res.depth else {'INFO'}, res.summary(most=3))
        return {'FINISHED'}

    def execute(self, context):
        return self._run_all(context)


class VART_OT_will_it_run(FrameSteps, bpy.types.Operator):
    bl_idname = "vart.will_it_run"
    bl_label = "Will It Run?"
    bl_description = ("Check every frame of the range: clearance (no link in the ground or in "
                      "another), balance (contact forces inside their friction cones hold the "
                      "robot), each joint's static torque against its effort limit, and slip "
                      "of contacts that carry load; figures keyed as curves (Vart Plots), a "
                      "timeline marker where failing frames begin, the worst frames and "
                      "joints listed (Esc stops)")
    bl_options = {'REGISTER', 'UNDO'}
    verb = "Checking"

    frame_start: IntProperty(name="Start", description="First frame to check (default: the "
                             "scene's start)", default=1, options={'SKIP_SAVE'})
    frame_end: IntProperty(name="End", description="Last frame to check (default: the scene's "
                           "end)", default=250, options={'SKIP_SAVE'})
    markers: BoolProperty(name="Markers", description="Put timeline markers where contacts "
                          "and failing frames begin (replacing the last check's)", default=True)

    @classmethod
    def poll(cls, context):
        return support.poll_links(cls, context)

    def _start(self, context):
        from ..checks.will_it_run import will_it_run_steps
        sv = context.scene.vart
        self._steps = will_it_run_steps(context.scene, self.frame_start, self.frame_end,
                                        ground=sv.clearance_ground,
                                        clearance_tolerance=sv.clearance_tolerance)
        self._done, self._total = next(self._steps)  # the first frame, or the checks' errors
        context.window_manager.progress_begin(0, self._total)

    def _stopped_text(self) -> str:
        return (f"Will It Run? stopped after {self._done} of {self._total} steps; nothing was "
                "stored")

    def _finish(self, context, value):
        from ..checks.will_it_run import store
        clear, stat = value
        text = store(context.scene, clear, stat, markers=self.markers)
        bad = bool(clear.depth) or bool(stat[0].failures())
        self.report({'WARNING'} if bad else {'INFO'}, text)
        if clear.depth:
            self.report({'WARNING'}, clear.summary(most=3))
        return {'FINISHED'}

    def execute(self, context):
        return self._run_all(context)


class VART_OT_replay_physics(FrameSteps, bpy.types.Operator, TimingOptions):
    bl_idname = "vart.replay_physics"
    bl_label = "Replay in MuJoCo"
    bl_description = ("Play the baked joint values of the frame range as position targets of "
                      "the real joints in MuJoCo (URDF inertials and effort limits, a ground "
                      "plane, nothing imposed on the base), after the servos settle into the "
                      "first frame, and report tracking error, actuator forces at every "
                      "physics step against their limits, the torque inverse dynamics needs, "
                      "what touches the ground with which force, base drift, contact slip and "
                      "whether the robot stays up (Esc stops); the tracking error and peak "
                      "force are keyed as curves of each joint (Vart Plots). Timing: at the "
                      "scene's frame rate, or re-timed as Export Trajectory re-times it (the "
                      "motion the robot is sent). Needs the PyPI package mujoco-core")
    bl_options = {'REGISTER', 'UNDO'}
    verb = "Replaying"

    frame_start: IntProperty(name="Start", description="First frame (default: the scene's "
                             "start)", default=1, options={'SKIP_SAVE'})
    frame_end: IntProperty(name="End", description="Last frame (default: the scene's end)",
                           default=250, options={'SKIP_SAVE'})

    @classmethod
    def poll(cls, context):
        return support.poll_links(cls, context)

    def _start(self, context):
        from ..checks.replay import replay_scene_steps
        self._timing = None
        times = None
        if self.retime_method() is not None:
            from ..io_trajectory import export_timing
            self._timing = export_timing(context.scene, self.retime_method(),
                                         frame_start=self.frame_start,
                                         frame_end=self.frame_end, limits=self.limits())
            times = self._timing.trajectory.times
        self._steps = replay_scene_steps(context.scene, self.frame_start, self.frame_end,
                                         times=times)
        self._done, self._total = 0, self.frame_end - self.frame_start + 1
        context.window_manager.progress_begin(0, self._total)

    def _stopped_text(self) -> str:
        return f"Replay stopped after {self._done} of {self._total} frames"

    def _finish(self, context, value):
        from ..checks.plots import key_replay_curves, store_peaks
        res, warnings = value
        text = res.summary(first_frame=self.frame_start)
        if self._timing is not None:  # (the motion an export re-timed so would send)
            text = f"{text}. At the export's timing: {self._timing.summary()}"
        context.scene.vart.replay_summary = text
        key_replay_curves(context.scene, res, self.frame_start)
        store_peaks(context.scene)
        # a robot fixed to the world has no business touching the ground
        hit = not res.floating and any(res.contacts[:res.frames_done])
        bad = not res.stays_up or res.saturated() or hit
        self.report({'WARNING'} if bad else {'INFO'}, text)
        for w in warnings[:5]:
            self.report({'WARNING'}, w)
        return {'FINISHED'}

    def execute(self, context):
        return self._run_all(context)


class VART_OT_plot_curves(bpy.types.Operator):
    bl_idname = "vart.plot_curves"
    bl_label = "Plot Curves"
    bl_description = ("Key each animated joint's velocity and acceleration over the frame "
                      "range as curves beside its value (Graph Editor, group Vart Plots), and "
                      "list the joints' peaks against their limits, worst first")
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return support.poll_links(cls, context)

    def execute(self, context):
        from ..checks.plots import key_motion_curves, store_peaks
        scene = context.scene
        wm = context.window_manager
        wm.progress_begin(0, 1)
        try:
            curves = key_motion_curves(scene, progress=lambda done, total: wm.progress_update(
                done / max(total, 1)))
        except ValueError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        finally:
            wm.progress_end()
        found = store_peaks(scene)
        if not curves:
            self.report({'WARNING'}, "no joint is animated over the frame range: bake first")
            return {'FINISHED'}
        worst = found[0] if found else None
        tail = "" if worst is None or worst.worst != worst.worst else (
            f"; worst: {worst.joint} at {worst.worst:.0%} of a limit (frame {worst.worst_frame})")
        self.report({'INFO'}, f"Plotted velocity and acceleration of {len(curves)} joints over "
                    f"frames {scene.frame_start}-{scene.frame_end}{tail}")
        return {'FINISHED'}


classes = (VART_OT_check_clearance, VART_OT_will_it_run, VART_OT_replay_physics,
           VART_OT_plot_curves)

# The stubs declare register_classes_factory -> None; it returns (register, unregister).
register, unregister = bpy.utils.register_classes_factory(classes)  # type: ignore[misc]
