"""Scene-level vart settings and the status of the last solve: ``bpy.types.Scene.vart``.

This is UI state and solver knobs, not mechanism data: links and joints stay plain ID
properties on their objects (README.md, "Where vart keeps its data"; :mod:`.bridge.schema`). The
sidebar panels read and edit these fields by name:

- ``active_joint``: name of the joint the joint operators act on ("" = none); set by the joint
  list (``joint_index`` is its row) and by ``vart.add_joint``.
- ``max_iterations``, ``time_budget_ms`` (milliseconds), ``damping`` (the solver's
  ``lambda_max``, the largest damping near singular configurations).
- ``gravity_enabled`` (off by default) and ``gravity`` (m/s^2, world frame).
- ``overlay_enabled``: draw joints in the viewport.
- ``live``: live mode (off by default): each frame change shows the frame solved as a bake
  would (``animation.live``, which adds itself to :data:`LIVE_TOGGLED`).
- the last solve: ``status_levels`` (one row per priority level), ``status_summary`` and
  ``status_unreached`` (with sublinkages: which sublinkage could not reach what).
- the clearance check (``vart.check_clearance``): ``clearance_ground`` (a mesh object, or
  None for the plane z = 0), ``clearance_tolerance`` (m), ``clearance_summary``,
  ``clearance_ignored`` (pairs of link objects the check leaves out: an SRDF's
  ``disable_collisions``, or added by hand; ``clearance_ignored_index`` its active row);
  the physics replay's ``replay_summary`` and ``replay_timing`` (``vart.replay_physics``:
  the scene's frame times, or re-timed as an export re-times the motion).
- the plotted curves' peaks (``vart.plot_curves``, :mod:`.checks.plots`): ``peaks`` (a row
  per joint, worst first), ``peaks_index`` (a click selects the joint and jumps to the
  frame), ``plot_acceleration_limit`` (rad/s^2) and ``plot_linear_acceleration_limit``
  (m/s^2).
- the statics check (``vart.will_it_run``, :mod:`.checks.will_it_run`): ``statics_friction``,
  ``statics_tolerance`` (m), ``statics_torque_margin``, ``statics_slip`` (m per frame step),
  ``statics_summary``, ``statics_rows`` (failing frames and joints; ``statics_index``: a
  click goes there).
- the study (``vart.run_study``, :mod:`.studies.keyed`): ``study`` (the swept joint, its
  sampling, the contacts, where its table goes; :class:`VART_PG_study`) and
  ``study_summary``.

:func:`solver_settings` turns the knobs into a :class:`vart_addon.solver.Settings`;
:func:`gravity_of` gives the gravity vector or None; :func:`store_status` records a
:class:`vart_addon.solver.SolveStatus`; :func:`set_study` sets up the study.
"""
import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

from .solver import Settings, SolveStatus
from .solver.text import listed

#: The Timing enum's items (Export Trajectory, Replay in MuJoCo, the replay's scene setting):
#: how a motion is re-timed within its joints' limits before it goes out.
RETIME_ITEMS = [
    ('NONE', "Scene", "The scene's frame times"),
    ('UNIFORM', "Uniform to Limits", "Scale all times by one factor so the most loaded joint "
     "meets its velocity or acceleration limit"),
    ('TOPPRA', "Time-Optimal (TOPP-RA)", "Time-optimal within the limits, starting and "
     "ending at rest (needs the toppra package)")]


def _redraw(self, context):
    """Redraw the 3D viewports (an overlay or status change has no depsgraph update)."""
    screen = getattr(context, "screen", None)
    if screen is None:
        return
    for area in screen.areas:
        if area.type == 'VIEW_3D':
            area.tag_redraw()


#: Called as ``fn(scene, on)`` when a scene's Live toggle changes: live mode
#: (``animation.live``, a higher layer this module may not import) adds itself on register.
LIVE_TOGGLED: list = []


def _live_toggled(self, context):
    for fn in list(LIVE_TOGGLED):
        fn(self.id_data, bool(self.live))


def _select_and_jump(context, scene, link: str, frame: int) -> None:
    """Select ``link``'s object (active) when it exists and go to ``frame``."""
    ob = scene.objects.get(link) if link else None
    if ob is not None:
        view_layer = context.view_layer
        for other in view_layer.objects:
            other.select_set(False)
        if ob.name in view_layer.objects:
            ob.select_set(True)
            view_layer.objects.active = ob
    scene.frame_set(frame)


def _peak_chosen(self, context):
    """A click in the peaks list: select the row's joint (its child link, active; the active
    joint) and jump to the frame of its worst peak."""
    i = self.peaks_index
    if not 0 <= i < len(self.peaks):
        return
    row = self.peaks[i]
    self.active_joint = row.name
    _select_and_jump(context, self.id_data, row.link, row.frame)


def _statics_row_chosen(self, context):
    """A click in the Will It Run? list: go to the row's frame; a joint's row also selects
    the joint (its child link, active; the active joint)."""
    i = self.statics_index
    if not 0 <= i < len(self.statics_rows):
        return
    row = self.statics_rows[i]
    if row.kind == 'JOINT':
        self.active_joint = row.name
    _select_and_jump(context, self.id_data, row.link, row.frame)


class VART_PG_statics_row(bpy.types.PropertyGroup):
    """A row of the Will It Run? list: a failing frame (``name``: the frame and its first
    reason) or a joint (``name``: the joint, ``share``: its largest static torque as a share
    of its effort limit, ``link``: its child link), and the frame to jump to."""

    kind: EnumProperty(name="Kind", items=(('FRAME', "Frame", "A frame that fails"),
                                           ('JOINT', "Joint", "A joint's peak static torque")))
    frame: IntProperty(name="Frame")
    share: FloatProperty(name="Share", description="Peak static torque / effort limit")
    link: StringProperty(name="Link")


class VART_PG_peak(bpy.types.PropertyGroup):
    """A joint's peaks over the plotted curves (``name`` is the joint): each as a fraction of
    its limit (-1: no limit), the worst, its frame, and the joint's child link."""

    link: StringProperty(name="Link")
    frame: IntProperty(name="Frame", description="Frame of the worst peak")
    worst: FloatProperty(name="Worst", description="Largest fraction of a limit (-1: none)")
    velocity: FloatProperty(name="Velocity", description="Peak |velocity| / velocity limit")
    acceleration: FloatProperty(name="Acceleration",
                                description="Peak |acceleration| / acceleration limit")
    force: FloatProperty(name="Force", description="Peak |force| in the replay / effort limit")


class VART_PG_status_level(bpy.types.PropertyGroup):
    """One priority level of the last solve (``name`` is the level: invariant, limit, lock,
    potential, target, posture)."""

    active: BoolProperty(name="Active", description="The level had goals in the last solve")
    error: FloatProperty(name="Error", description="Norm of the level's residual (m and rad; "
                         "joules for the potential level)")
    satisfied: BoolProperty(name="Satisfied", default=True)
    unmet: StringProperty(name="Unmet", description="Goals of this level that are not met, "
                          "comma separated")
    iterations: IntProperty(name="Iterations", description="Iterations until the level was "
                            "satisfied (or the total, if it never was)")
    ms: FloatProperty(name="Time", description="Milliseconds from the start of the solve until "
                      "the level was last updated")


class VART_PG_ignored_pair(bpy.types.PropertyGroup):
    """A pair of links the clearance check leaves out (``scene.vart.clearance_ignored``): the
    two link objects (pointers: a rename keeps the pair) and why (``reason``: an SRDF's
    ``disable_collisions`` reason, or "by hand")."""

    a: PointerProperty(name="Link A", type=bpy.types.Object)
    b: PointerProperty(name="Link B", type=bpy.types.Object)
    reason: StringProperty(name="Reason")


class VART_PG_study_contact(bpy.types.PropertyGroup):
    """A support point of a study (``name``: the joint; its child-side frame's origin)."""

    at_limit: BoolProperty(
        name="At Limit", description="A support only while one of the joint's values is at a "
        "limit (a point-slider that touched down); off: always", default=False)


class VART_PG_study(bpy.types.PropertyGroup):
    """What *Run Study* sweeps (``scene.vart.study``): a study file's fields
    (:mod:`vart_addon.analysis.study`) for one variable. Values in the joint's units (m or
    rad)."""

    joint: StringProperty(name="Joint", description="The joint whose value the study varies")
    dof: IntProperty(name="Value", description="Which of the joint's values (0: the first)",
                     default=0, min=0, max=5)
    sampling: EnumProperty(
        name="Sampling", default='GRID', items=(
            ('GRID', "Range", "Evenly spaced from Start to Stop, both included (a sweep)"),
            ('UNIFORM', "Uniform", "Monte Carlo: uniform between Start and Stop"),
            ('NORMAL', "Normal", "Monte Carlo: normal with Mean and Std"),
            ('TRUNCNORMAL', "Truncated Normal", "Monte Carlo: normal with Mean and Std, "
             "kept between Start and Stop")))
    start: FloatProperty(name="Start", description="First value of the range (the low end "
                         "of a distribution)", default=0.0, precision=4)
    stop: FloatProperty(name="Stop", description="Last value of the range (the high end of "
                        "a distribution)", default=0.1, precision=4)
    mean: FloatProperty(name="Mean", default=0.0, precision=4)
    std: FloatProperty(name="Std", description="Standard deviation", default=0.01, min=0.0,
                       precision=4)
    samples: IntProperty(name="Samples", description="Samples, one per frame from First Frame",
                         default=41, min=1, soft_max=1000)
    seed: IntProperty(name="Seed", description="Seed of the Monte Carlo draws", default=0,
                      min=0)
    chunk: IntProperty(name="Chunk", description="Samples solved warm-started in a row (as a "
                       "task of a headless run: the same table)", default=8, min=1)
    contacts: CollectionProperty(type=VART_PG_study_contact)
    contact_index: IntProperty(name="Contact", default=0, min=0)
    first_frame: IntProperty(name="First Frame", description="The frame of the first sample",
                             default=1)
    output: StringProperty(name="Table", description="Folder for the study's CSV and JSON "
                           "table (empty: none written)", subtype='DIR_PATH')
    trace: BoolProperty(name="Trace", description="Keep each sample's solver iterations in "
                        "the JSON table", default=False)


class VART_PG_settings(bpy.types.PropertyGroup):
    """vart's scene settings (``scene.vart``)."""

    active_joint: StringProperty(
        name="Active Joint", description="The joint that joint operators act on")
    joint_index: IntProperty(name="Joint Index", description="Active row of the joint list",
                             default=0, min=0)
    max_iterations: IntProperty(
        name="Iterations", description="Most solver iterations per solve", default=100,
        min=1, soft_max=1000)
    time_budget_ms: FloatProperty(
        name="Time Budget", description="Most milliseconds per solve (0: no limit)",
        default=50.0, min=0.0, soft_max=1000.0, precision=1)
    damping: FloatProperty(
        name="Damping", description="Largest damping of the least-squares steps near "
        "singular configurations (the solver's lambda_max)", default=0.05, min=0.0,
        soft_max=1.0, precision=3)
    gravity_enabled: BoolProperty(
        name="Gravity", description="Pull links with mass toward minimum potential energy "
        "(quasistatics)", default=False)
    gravity: FloatVectorProperty(
        name="Gravity Vector", description="Gravity in the world frame", size=3,
        default=(0.0, 0.0, -9.81), subtype='ACCELERATION', unit='ACCELERATION')
    overlay_enabled: BoolProperty(
        name="Overlay", description="Draw joints and links in the 3D viewport", default=True,
        update=_redraw)
    status_levels: CollectionProperty(type=VART_PG_status_level)
    status_summary: StringProperty(name="Status", description="Outcome of the last solve")
    status_unreached: StringProperty(
        name="Unreached", description="With sublinkages: what each sublinkage of the last "
        "solve could not reach (sublinkage: goals; sublinkages separated by |)")
    bake_summary: StringProperty(name="Last Bake", description="Outcome of the last bake "
                                 "(frames, keys, goals unmet by frame)")
    live: BoolProperty(
        name="Live", description="Solve each frame as it is shown (scrubbing, playback, "
        "rendering) exactly as Bake Range would, without baking: frames solved once are "
        "remembered until a key, goal or joint changes. Curves of an earlier bake are muted "
        "meanwhile; turning it off puts the links back where live mode started",
        default=False, update=_live_toggled)
    clearance_ground: PointerProperty(
        name="Ground", type=bpy.types.Object, poll=lambda self, ob: ob.type == 'MESH',
        description="The ground of the clearance check (none: the plane z = 0)")
    clearance_tolerance: FloatProperty(
        name="Tolerance", description="Ground penetration below this depth is not a contact",
        default=1e-4, min=0.0, soft_max=0.01, unit='LENGTH', precision=4)
    clearance_ignored: CollectionProperty(type=VART_PG_ignored_pair)
    clearance_ignored_index: IntProperty(name="Ignored Pair", default=0, min=0)
    clearance_summary: StringProperty(name="Last Clearance Check", description="Outcome of "
                                      "the last clearance check (pairs in contact, depth, "
                                      "frames)")
    replay_summary: StringProperty(name="Last Physics Replay", description="Outcome of the "
                                   "last MuJoCo replay (stays up, drift, slip, joints at "
                                   "their effort limit, tracking error)")
    replay_timing: EnumProperty(
        name="Timing", items=RETIME_ITEMS, default='NONE',
        description="The replay's timing: the scene's frame times, or the motion re-timed as "
                    "Export Trajectory re-times it (within the URDF velocity limits and the "
                    "acceleration limits below): the motion the robot is sent")
    peaks: CollectionProperty(type=VART_PG_peak)
    peaks_index: IntProperty(name="Peak", default=-1, update=_peak_chosen,
                             description="Click a joint: select it and go to its worst frame")
    plot_acceleration_limit: FloatProperty(
        name="Acceleration Limit", default=0.0, min=0.0,
        description="Acceleration limit of revolute joints for the peaks list and a "
                    "re-timed replay (rad/s^2; 0: none)")
    plot_linear_acceleration_limit: FloatProperty(
        name="Linear Acceleration Limit", default=0.0, min=0.0,
        description="Acceleration limit of prismatic joints for the peaks list and a "
                    "re-timed replay (m/s^2; 0: none)")
    check_after_bake: BoolProperty(
        name="Check After Bake", description="After each bake, run Will It Run? over the "
        "baked range (clearance, balance, static torque, slip) and say in the bake's report "
        "when the motion fails any of them", default=True)
    statics_friction: FloatProperty(
        name="Friction", description="Friction coefficient of every contact with the ground "
        "(the statics check's friction cones)", default=0.8, min=0.0, soft_max=2.0)
    statics_tolerance: FloatProperty(
        name="Contact Tolerance", description="A point of a link this near the ground (or "
        "below it) touches it: a contact of the statics check", default=0.005, min=0.0,
        soft_max=0.05, unit='LENGTH', precision=4)
    statics_torque_margin: FloatProperty(
        name="Torque Margin", description="Share of each effort limit kept in reserve: a "
        "static torque beyond the rest fails the frame", default=0.0, min=0.0, max=0.9,
        subtype='FACTOR')
    statics_slip: FloatProperty(
        name="Slip Tolerance", description="A contact that carries load and slides further "
        "than this along the ground in one frame step fails the frame", default=0.0005,
        min=0.0, soft_max=0.01, unit='LENGTH', precision=4)
    statics_summary: StringProperty(name="Last Statics Check", description="Outcome of the "
                                    "last statics check (balance, torque, slip)")
    statics_rows: CollectionProperty(type=VART_PG_statics_row)
    statics_index: IntProperty(name="Row", default=-1, update=_statics_row_chosen,
                               description="Click a row: go to its frame (and its joint)")
    study: PointerProperty(type=VART_PG_study)
    study_summary: StringProperty(name="Last Study", description="Outcome of the last study")


def solver_settings(scene) -> Settings:
    """The solver settings of ``scene`` (a time budget of 0 means none)."""
    s = scene.vart
    budget = float(s.time_budget_ms)
    return Settings(max_iterations=int(s.max_iterations),
                    max_ms=budget if budget > 0 else None,
                    lambda_max=float(s.damping))


def set_study(scene, joint: str, *, start: float = 0.0, stop: float = 0.1, samples: int = 41,
              sampling: str = "GRID", mean: float = 0.0, std: float = 0.01, seed: int = 0,
              contacts=(), dof: int = 0, chunk: int = 8, first_frame: int = 1) -> None:
    """Set ``scene``'s study settings: ``joint`` (value ``dof``) sampled by ``sampling``
    (GRID, UNIFORM, NORMAL, TRUNCNORMAL) with ``start``/``stop`` (range or bounds),
    ``mean``/``std``, ``samples``, ``seed``; ``contacts``: ``(joint, at_limit)`` pairs."""
    st = scene.vart.study
    st.joint, st.dof, st.sampling = joint, dof, sampling
    st.start, st.stop, st.mean, st.std = start, stop, mean, std
    st.samples, st.seed, st.chunk, st.first_frame = samples, seed, chunk, first_frame
    st.contacts.clear()
    for name, at_limit in contacts:
        c = st.contacts.add()
        c.name, c.at_limit = name, bool(at_limit)


def gravity_of(scene):
    """The scene's gravity vector (m/s^2, world) as a tuple, or None when it is off. The
    property is single precision: values are rounded to 7 significant digits, so the default
    is exactly -9.81."""
    s = scene.vart
    return tuple(float(f"{x:.7g}") for x in s.gravity) if s.gravity_enabled else None


def summary(status: SolveStatus) -> str:
    """One line: converged or not, iterations, time, and the unmet goals by name."""
    head = (f"{status.iterations} iteration{'s' if status.iterations != 1 else ''}, "
            f"{status.ms:.1f} ms")
    if status.stuck:
        return f"No joint can move {listed(status.stuck, 3)} ({head})"
    unmet = status.unmet
    if unmet:
        if status.out_of_budget:
            why = "the time budget or the iteration limit ran out (Solver panel)"
        elif status.stalled:
            why = "it stopped improving: a higher goal or a joint limit holds it"
        else:
            why = "no configuration meets it"
        return f"Unmet: {', '.join(unmet)}; {why} ({head})"
    if status.out_of_budget and not status.converged:
        return f"Out of budget ({head})"
    return f"Converged ({head})" if status.converged else f"Best compromise ({head})"


def store_status(scene, status: SolveStatus) -> None:
    """Record a solve's per-level status and summary in ``scene.vart``."""
    s = scene.vart
    s.status_levels.clear()
    for lv in status.levels:
        row = s.status_levels.add()
        row.name = lv.name
        row.active = bool(lv.active)
        row.error = float(lv.error)
        row.satisfied = bool(lv.satisfied)
        row.unmet = ", ".join(lv.unmet)
        row.iterations = int(lv.iterations)
        row.ms = float(lv.ms)
    s.status_summary = summary(status)
    s.status_unreached = unreached_text(status)


def unreached_text(status: SolveStatus) -> str:
    """``SolveStatus.unreached`` on one line: ``"Crank: target of joint 'A' | top: ..."``
    (the top: goals of links and joints in no sublinkage); empty when all was reached."""
    return " | ".join(f"{'top' if home is None else home}: {', '.join(goals)}"
                      for home, goals in status.unreached.items())


classes = (VART_PG_peak, VART_PG_statics_row, VART_PG_status_level, VART_PG_ignored_pair,
           VART_PG_study_contact, VART_PG_study, VART_PG_settings)


def register() -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    # A property added at run time: the stubs' Scene has no `vart`.
    bpy.types.Scene.vart = PointerProperty(type=VART_PG_settings)  # type: ignore[attr-defined]


def unregister() -> None:
    if hasattr(bpy.types.Scene, "vart"):
        del bpy.types.Scene.vart
    for cls in reversed(classes):
        if getattr(cls, "is_registered", False):
            bpy.utils.unregister_class(cls)
