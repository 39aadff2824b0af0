"""Run Study in real bpy (issue 23, item 4): the compliant arm of tests/helpers/study_models.py
built as a scene, its tilt swept from the Study settings; the sweep keyed one sample per frame
(scrubbing shows the solved arm; the hinge's q and the recorded quantities as F-curves the
Graph Editor draws), the hinge's limit as a marker at the first sample where it is active,
the same table as the headless run; bad studies and Esc change nothing."""
from __future__ import annotations

import json

import bpy
import numpy as np
import pytest

import study_models as SM
from blender_scenes import scene_from_linkage
from vart_addon import analysis as A
from vart_addon.bridge import animation as BA
from vart_addon.bridge import schema as S
from vart_addon.properties import set_study
from vart_addon.studies import keyed as K
from vart_addon.studies.model_export import model_text
from vart_addon.studies.study_doc import study_doc


def arm_scene():
    lk = SM.tilted_spring_arm_linkage()
    obs = scene_from_linkage(lk, virtual=lambda n: n == "tilt")
    S.update_joint(obs["arm"], "hinge", stiffness=SM.K, rest_q=[0.0])
    scene = bpy.context.scene
    scene.vart.gravity_enabled = True
    scene.vart.gravity = (0.0, 0.0, -SM.G)
    set_study(scene, "tilt", start=-0.6, stop=0.6, samples=25, first_frame=10)
    return scene, obs


def test_the_sweep_is_keyed_one_sample_per_frame(vart_registered, tmp_path):
    scene, obs = arm_scene()
    scene.vart.study.output = str(tmp_path)
    model = model_text(scene)  # the scene before the study: where a headless run starts
    assert bpy.ops.vart.run_study() == {'FINISHED'}
    assert (scene.frame_start, scene.frame_end) == (10, 34)
    tilt = np.linspace(-0.6, 0.6, 25)
    expected = np.array([SM.arm_deflection(t) for t in tilt])
    # scrubbing: the arm object and the joint values follow the solved samples
    for s in (0, 7, 24):
        scene.frame_set(10 + s)
        q = obs["arm"]["vart"]["joints"]["hinge"]["q"]
        assert abs(q[0] - expected[s]) < 1e-5
        R = np.array(obs["arm"].matrix_world)[:3, :3]
        # the arm's x axis, turned about y by tilt + deflection (down for positive angles)
        angle = np.arctan2(-R[2, 0], R[0, 0])
        assert abs(angle - (tilt[s] + expected[s])) < 1e-5
    # the recorded quantities, keyed on the results object, in the Graph Editor's group
    ob = scene.objects[K.RESULTS_OBJECT]
    curves = {fc.data_path: fc for fc in BA.fcurves_of(ob)}
    for column in ("value:tilt", "deflection:hinge", "torque:hinge", "limit:hinge",
                   "d(deflection:hinge)/d(tilt)", "iterations", "converged"):
        fc = curves[K.quantity_path(column)]
        assert BA.group_of(fc) == K.RESULTS_GROUP and len(fc.keyframe_points) == 25
    torque = BA.sample(curves[K.quantity_path("torque:hinge")], range(10, 35))
    np.testing.assert_allclose(torque, SM.K * expected, rtol=1e-5, atol=1e-5)
    scene.frame_set(20)
    assert ob["vart_study"]["value:tilt"] == pytest.approx(tilt[10], abs=1e-6)
    # the hinge's upper limit: a marker at the first sample where it is active
    first = int(np.argmax(expected >= SM.HINGE_UPPER - 1e-6))
    (marker,) = [m for m in scene.timeline_markers if m.name.startswith("hinge upper")]
    assert marker.frame == 10 + first and f"tilt={tilt[first]:.4g} rad" in marker.name
    # the same table as a headless run of the same study and model
    doc = json.loads((tmp_path / "tilt.json").read_text())
    assert doc["study"]["variables"][0]["grid"] == {"start": -0.6, "stop": 0.6, "count": 25}
    headless = A.run(A.plan(study_doc(scene, "tilt"), model), workers=0)
    assert doc["rows"] == json.loads(json.dumps(headless.rows))
    assert scene.vart.study_summary.startswith("25 samples keyed on frames 10-34")


def test_a_second_run_replaces_the_first(vart_registered):
    scene, _ = arm_scene()
    assert bpy.ops.vart.run_study() == {'FINISHED'}
    scene.vart.study.samples = 5
    assert bpy.ops.vart.run_study() == {'FINISHED'}
    ob = scene.objects[K.RESULTS_OBJECT]
    lengths = {len(fc.keyframe_points) for fc in BA.fcurves_of(ob)}
    assert lengths == {5}
    assert len([m for m in scene.timeline_markers if m.name.startswith("hinge")]) <= 1


@pytest.mark.parametrize("edit, message", [
    (lambda st: setattr(st, "joint", "nope"), "joint 'nope' is not in the model"),
    (lambda st: setattr(st, "stop", st.start), "the range is empty"),
    (lambda st: setattr(st, "stop", 3.0), "outside joint 'tilt''s limits"),
    (lambda st: (setattr(st, "sampling", "NORMAL"), setattr(st, "std", 0.0)), "std"),
])
def test_a_bad_study_changes_nothing(vart_registered, edit, message):
    scene, obs = arm_scene()
    edit(scene.vart.study)
    before = {n: np.array(ob.matrix_world) for n, ob in obs.items()}
    with pytest.raises(RuntimeError, match=message):
        bpy.ops.vart.run_study()
    assert K.RESULTS_OBJECT not in scene.objects
    assert not any(BA.fcurves_of(ob) for ob in obs.values())
    assert len(scene.timeline_markers) == 0
    assert all(np.array_equal(before[n], np.array(ob.matrix_world)) for n, ob in obs.items())


def test_stopping_keys_nothing(vart_registered):
    scene, obs = arm_scene()
    steps = K.study_steps(scene)
    assert next(steps) == (8, 25)  # the first chunk
    steps.close()  # Esc
    assert not any(BA.fcurves_of(ob) for ob in obs.values())
    assert K.RESULTS_OBJECT not in scene.objects and (scene.frame_start, scene.frame_end) == (1, 250)


def test_the_study_needs_a_joint(vart_registered):
    scene, _ = arm_scene()
    scene.vart.study.joint = ""
    assert not bpy.ops.vart.run_study.poll()
