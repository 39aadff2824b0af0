"""*Will it run?*: the clearance check and the statics check (balance, static torque, slip) of
a baked range in one pass, and what the sidebar shows of it.

:func:`will_it_run_steps` runs :func:`.clearance.check_clearance_steps` and then
:func:`.statics.statics_scene_steps` over the range (a generator: ``(done, total)`` over both,
closing it stops either cleanly); :func:`store` keys the statics' per-frame figures as
curves, replaces both checks' timeline markers, writes the summaries
(``scene.vart.clearance_summary``, ``scene.vart.statics_summary``) and fills the list of the
worst frames and joints (``scene.vart.statics_rows``: a click jumps there).
"""
from __future__ import annotations

from ..physics.feasibility import StaticsReport, Thresholds
from . import clearance as CL
from . import statics as ST

#: Rows of the sidebar's list: failing frames and joints, at most this many of each.
MOST_ROWS = 8


def thresholds_of(scene) -> Thresholds:
    """The scene's statics thresholds (Will It Run? settings)."""
    sv = scene.vart
    return Thresholds(mu=float(sv.statics_friction), tolerance=float(sv.statics_tolerance),
                      torque_margin=float(sv.statics_torque_margin),
                      slip=float(sv.statics_slip))


def will_it_run_steps(scene, frame_start: int, frame_end: int, *, ground=None,
                      clearance_tolerance: float = CL.TOLERANCE,
                      thresholds: Thresholds | None = None):
    """Both checks over ``frame_start``..``frame_end`` (see the module doc): yields ``(done,
    total)`` over twice the frames, returns ``(ClearanceResult, (StaticsReport, model,
    objects))``."""
    if isinstance(ground, str):
        ground = scene.objects.get(ground) if ground else None
    n = int(frame_end) - int(frame_start) + 1
    steps = CL.check_clearance_steps(scene, frame_start, frame_end, ground=ground,
                                     tolerance=clearance_tolerance)
    clear = yield from _offset(steps, 0, 2 * n)
    steps = ST.statics_scene_steps(scene, frame_start, frame_end, ground=ground,
                                   thresholds=thresholds or thresholds_of(scene))
    stat = yield from _offset(steps, n, 2 * n)
    return clear, stat


def _offset(steps, before: int, total: int):
    try:
        while True:
            done, _ = next(steps)
            yield before + done, total
    except StopIteration as stop:
        return stop.value
    finally:
        steps.close()


def store(scene, clear, stat, markers: bool = True) -> str:
    """Record both checks in the scene (see the module doc); returns the statics summary."""
    rep, model, obs = stat
    ST.key_statics_curves(rep, model, obs)
    if markers:
        CL.put_markers(scene, clear)
        ST.put_markers(scene, rep)
    sv = scene.vart
    sv.clearance_summary = clear.summary()
    sv.statics_summary = rep.summary()
    fill_rows(scene, rep, model)
    return sv.statics_summary


def fill_rows(scene, rep: StaticsReport, model) -> None:
    """The sidebar's list: the failing frames (first reason each), then the joints by their
    largest share of the effort limit, worst first."""
    rows = scene.vart.statics_rows
    rows.clear()
    for f, why in list(rep.failures().items())[:MOST_ROWS]:
        row = rows.add()
        row.name, row.frame, row.kind, row.link = f"{f}: {why[0][1]}", int(f), 'FRAME', ""
    for joint, share, f in rep.worst_joints(MOST_ROWS):
        row = rows.add()
        row.name, row.frame, row.kind = joint, int(f), 'JOINT'
        row.share, row.link = share, model.child_of.get(joint, "")
    scene.vart.statics_index = -1
