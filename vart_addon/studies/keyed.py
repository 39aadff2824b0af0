"""A study run in Blender and keyed over frames: one sample per frame, so scrubbing the
timeline shows the robot at each swept value and the Graph Editor plots what was recorded.

:func:`study_steps` (a generator for the modal operator; :func:`run_study` runs it at once):

1. the scene's model (:func:`.model_export.model_text`) and its study settings
   (:func:`.study_doc.study_doc`) are planned (:func:`vart_addon.analysis.plan`): a joint not
   in the model, an empty range, bad distribution parameters are refused here, with nothing
   changed;
2. the chunks are solved in this process (:func:`vart_addon.analysis.sweep.solve_chunk`,
   the same table a headless run gives), yielding ``(samples done, total)`` after each chunk;
   every sample's link poses and joint values are kept. Closing the generator (Esc) stops
   it: nothing is keyed;
3. at the end, sample ``s`` is frame ``first_frame + s``, and the scene gets, in one go:

   - every link's location and rotation and every joint's ``q`` keyed at every sample's
     frame, as a bake keys them (:func:`vart_addon.animation.bake_keys.write_baked`, channel
     group *Vart Bake*; the study's frames are claimed as a bake's range, so a later bake or
     export treats them alike);
   - every recorded quantity (the table's numeric columns but ``sample`` and ``q:``: swept
     values, deflections, torques, limit flags, centre of mass, support, margin, stable,
     sensitivities, iterations, and ``converged`` 1/0) as an animatable custom property of the
     results object :data:`RESULTS_OBJECT` (an Empty), ``ob["vart_study"]["<column>"]``, keyed
     at every frame in the channel group *Vart Study*: select it and the Graph Editor plots
     each one against the frames, i.e. the samples;
   - a timeline marker at the frame where each limit first becomes active (``"<value> <side>:
     <joint>=<swept value>"``) and where stability is lost (``"unstable: ..."``); the
     previous study's markers are removed;
   - the scene's frame range set to the study's frames;
   - with an output folder, ``<name>.csv`` and ``<name>.json`` (:func:`vart_addon.analysis.results.write`,
     written first: a folder that cannot be written is a StudyError, nothing keyed).

A sample whose solve failed keeps the previous sample's pose (and NaN in the table).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import bpy
import numpy as np

from ..analysis import StudyError, plan
from ..analysis import results as R
from ..analysis.sweep import solve_chunk
from ..animation.bake_inputs import Inputs
from ..animation.bake_keys import Keyer, write_baked
from ..animation.bake_record import claim
from ..animation.bake_result import BakeResult
from ..animation.live import paused as live_paused
from ..bridge import animation as A
from ..shared.bridge_cache import bridge_for
from .model_export import model_text
from .study_doc import study_doc

#: The Empty holding the recorded quantities as animatable custom properties.
RESULTS_OBJECT = "Vart Study"
#: Its custom property group, and the channel group of its curves.
RESULTS_KEY, RESULTS_GROUP = "vart_study", "Vart Study"
#: On the results object: the names of the markers the last study added.
MARKERS_KEY = "vart_study_markers"
_NAME_MAX = 63  # Blender's longest ID property and marker name


@dataclass
class StudyOutcome:
    """A study run in Blender: its :class:`vart_addon.analysis.Results`, the frames keyed
    (first, last), the markers added (name, frame), the files written, and a summary line."""

    results: R.Results
    frames: tuple[int, int]
    markers: list = field(default_factory=list)
    paths: tuple = ()
    summary: str = ""


def run_study(scene=None) -> StudyOutcome:
    """Run ``scene``'s study at once (see the module doc)."""
    steps = study_steps(scene)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


def study_steps(scene=None):
    """:func:`run_study` a chunk at a time (see the module doc): yields ``(done, total)``
    samples, returns the :class:`StudyOutcome`. Errors (StudyError, ModelFileError, the
    bridge's) are raised by the ``next()`` that meets them; nothing is changed before the
    last one."""
    t0 = time.perf_counter()
    scene = scene or bpy.context.scene
    st = scene.vart.study
    name = bpy.path.clean_name(st.joint or "study")
    with live_paused(scene):
        bridge = bridge_for(scene)
        p = plan(study_doc(scene, name), model_text(scene))  # syncs the bridge
        obs = bridge.objects()
        lk, data = bridge.linkage, bridge.data
        names = list(obs)
        jlist = [(jn, j) for jn, j in lk.joints.items() if j.dof]
        total = sum(len(v) for _, v in p.chunks)
        start_poses = lk.poses()
        T_out = np.empty((total, len(names), 4, 4))
        T_out[:] = np.stack([start_poses[nm] for nm in names])
        q_out = {jn: np.tile(lk.joint_q(j, start_poses), (total, 1)) for jn, j in jlist}
        solved = np.zeros(total, bool)

        def capture(sample, model_lk):
            poses = model_lk.poses()
            T_out[sample] = np.stack([poses[nm] for nm in names])
            for jn, _ in jlist:
                q_out[jn][sample] = model_lk.joint_q(model_lk.joint(jn), poses)
            solved[sample] = True

        rows: list = []
        traces: dict = {}
        for first, vals in p.chunks:
            out = solve_chunk(p.model_text, p.study_doc, first, vals, on_sample=capture)
            rows += out["rows"]
            traces.update(out["traces"])
            yield len(rows), total
        for s in range(1, total):  # a failed sample keeps the one before
            if not solved[s]:
                T_out[s] = T_out[s - 1]
                for jn, _ in jlist:
                    q_out[jn][s] = q_out[jn][s - 1]
        seconds = time.perf_counter() - t0
        run = {"samples": total, "chunks": len(p.chunks), "workers": 1, "where": "Blender",
               "seconds": seconds, "samples_per_s": total / seconds if seconds else None,
               "retried": [], "failed": []}
        res = R.assemble(p.study, p.study_doc, p.columns, rows, run)
        res.traces = traces
        paths = _write_table(res, st.output, name)  # before any change: a failure changes nothing
        first_frame = int(st.first_frame)
        frames = (first_frame, first_frame + total - 1)
        bake = BakeResult(*frames)
        claim(scene, *frames, list(obs.values()))
        keyers = {nm: Keyer(ob, obs) for nm, ob in obs.items()}
        for kr in keyers.values():
            for _ in range(total):
                kr.record()  # the study moves no plain parent: the same at every frame
        write_baked(bake, obs, names, T_out, q_out, jlist, data, Inputs(), keyers, first_frame)
        key_quantities(scene, res, first_frame)
        markers = mark_limits(scene, res, first_frame)
        scene.frame_start, scene.frame_end = frames
    outcome = StudyOutcome(res, frames, markers, paths)
    outcome.summary = summary(outcome)
    return outcome


def _write_table(res: R.Results, folder: str, name: str) -> tuple:
    if not folder:
        return ()
    try:
        return R.write(res, bpy.path.abspath(folder), name)
    except OSError as e:
        raise StudyError(f"study {name!r}: the table could not be written to {folder!r}: "
                         f"{e}; nothing was keyed") from None


def _key(name: str) -> str:
    return name if len(name) <= _NAME_MAX else name[:_NAME_MAX]


def results_object(scene):
    """The scene's results Empty (:data:`RESULTS_OBJECT`), made and linked if missing."""
    ob = scene.objects.get(RESULTS_OBJECT)
    if ob is None:
        ob = bpy.data.objects.new(RESULTS_OBJECT, None)
        ob.empty_display_type = 'SPHERE'
        ob.empty_display_size = 0.05
        scene.collection.objects.link(ob)
    return ob


def quantity_path(column: str) -> str:
    """The data path of a recorded quantity on the results object."""
    return f'["{RESULTS_KEY}"]["{_key(column)}"]'


def key_quantities(scene, res: R.Results, first_frame: int) -> list[str]:
    """Key every recorded quantity of ``res`` on the results object (module doc); returns the
    columns keyed."""
    ob = results_object(scene)
    for fc in [fc for fc in A.fcurves_of(ob) if A.group_of(fc) == RESULTS_GROUP]:
        A.remove_fcurve(ob, fc)  # the last study's
    frames = first_frame + np.array(res.column("sample"), float)
    names = [c.name for c in res.columns]
    columns = {n: i for i, n in enumerate(names)
               if n not in ("sample", "status", "unmet") and not n.startswith("q:")}
    values = {n: np.array([r[i] for r in res.rows], float) for n, i in columns.items()}
    status = names.index("status")
    values["converged"] = np.array([r[status] == "converged" for r in res.rows], float)
    ob[RESULTS_KEY] = {_key(n): float(v[0]) if v.size else 0.0 for n, v in values.items()}
    for n, v in values.items():
        A.write_keys(A.ensure_fcurve(ob, quantity_path(n), 0, RESULTS_GROUP), frames, v)
    ob.update_tag()  # a new custom property's curves reach the depsgraph once tagged
    return list(values)


def _values_text(values: dict, units: dict) -> str:
    return ", ".join(f"{k}={v:.4g}{(' ' + units[k]) if units.get(k) else ''}"
                     for k, v in values.items())


def mark_limits(scene, res: R.Results, first_frame: int) -> list[tuple[str, int]]:
    """Timeline markers where each limit first becomes active and where stability is lost
    (after removing the last study's); returns them as (name, frame)."""
    ob = results_object(scene)
    for old in list(ob.get(MARKERS_KEY, [])):
        m = scene.timeline_markers.get(old)
        if m is not None:
            scene.timeline_markers.remove(m)
    units = {c.name[len("value:"):]: c.unit for c in res.columns if c.name.startswith("value:")}
    wanted = []
    for e in res.derived["limits"]:
        if e["first_sample"] is not None and not e["at_start"]:
            wanted.append((f"{e['value']} {e['side']}: {_values_text(e['values'], units)}",
                           e["first_sample"]))
    stab = res.derived.get("stability") or {}
    if stab.get("lost_at"):
        lost = stab["lost_at"]
        wanted.append((f"unstable: {_values_text(lost['values'], units)}", lost["sample"]))
    made = []
    for text, sample in wanted:
        m = scene.timeline_markers.new(text[:_NAME_MAX], frame=first_frame + int(sample))
        made.append((m.name, m.frame))
    ob[MARKERS_KEY] = [n for n, _ in made]
    return made


def summary(out: StudyOutcome) -> str:
    """One line: samples and frames, what ended where, the files."""
    res = out.results
    bad = res.failed()
    head = (f"{len(res.rows)} samples keyed on frames {out.frames[0]}-{out.frames[1]} "
            f"({res.run['seconds']:.1f} s)")
    parts = [head] + [name for name, _ in out.markers]
    if bad:
        parts.append(f"{bad} samples failed (NaN in the table)")
    if out.paths:
        parts.append(f"table: {os.path.basename(out.paths[0])}, {os.path.basename(out.paths[1])}")
    return "; ".join(parts)
