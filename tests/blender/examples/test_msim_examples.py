"""MSim's two analysis examples (issue 23, item 5) in real bpy: Add Example writes the model
that vart_addon/examples/msim_models.py builds (the scene's exported model gives the same study
table as the builder's linkage, without Blender), and Run Study finds what MSim describes:

- the humanoid probing a step: below the first heel contact the step cannot be sensed (no
  joint deflects with it), from it on every compliant joint does; the robot stands balanced
  on one foot until the heel touches: the step's push, through the leg's springs, moves the
  stance foot's centre of pressure off its sole at once (the centre of mass crosses its
  outer edge only 19 mm of step later); the markers say both heights;
- the gripper on an uncertain bar: the draws are the study's (seeded), each hand stays on its
  face of the bar within the face's edges, and the joints' deflections follow the bar's
  offset with the least-squares slopes the study reports."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from solver_tolerances import stalled_spring_q, stalled_spring_torque
from vart_addon import analysis as A
from vart_addon.examples import msim_models as MM
from vart_addon.solver import model_file as MF
from vart_addon.studies.model_export import model_text
from vart_addon.studies.study_doc import study_doc


def column(res, name):
    return np.array(res.column(name), float)


@pytest.fixture
def step_probe(vart_registered):
    assert bpy.ops.vart.add_example(example="step_probe") == {'FINISHED'}
    return bpy.context.scene


def test_the_step_probe_scene_is_the_model(step_probe):
    scene = step_probe
    lk, study = MM.step_probe()
    doc = study_doc(scene, "step")
    assert A.parse(doc).variables == A.parse(study).variables
    assert doc["contacts"] == study["contacts"]
    short = {**study, "variables": [{"joint": "step", "grid": {"start": 0.0, "stop": 0.02,
                                                               "count": 11}}]}
    ours = A.run(A.plan(short, model_text(scene)), workers=0)
    ref = A.run(A.plan(short, MF.dumps(lk)), workers=0)
    names = {c.name for c in ref.columns}
    assert {c.name for c in ours.columns} == names  # the scene lists its joints in its order
    # The same minima, to what the stall rule allows (both solves stall at the potential's
    # minimum: the scene's joints come in another order and its settings allow more
    # iterations; solver_tolerances says why): each spring's deflection and torque, the other
    # joint values as the springs, the centre of mass and margin by the longest lever from
    # the stance sole (at the origin) to a centre of mass, the contact forces as below. The
    # sensitivities are finite differences of the deflections compared here.
    settings = MF.loads(MF.dumps(lk))[1]
    dq = stalled_spring_q(settings.stall_tol, MM.LEG_STIFFNESS)
    torque = stalled_spring_torque(settings.stall_tol, MM.LEG_STIFFNESS)
    poses = lk.poses()
    lever = max(float(np.linalg.norm(T[:3, :3] @ lk.links[n].com + T[:3, 3]))
                for n, T in poses.items())
    weight = 9.81 * sum(link.mass for link in lk.links.values())
    # a contact's load: a torque difference over the shortest lever between the sole's
    # corners (half its width), and the weight turned by the pose's difference
    force = torque / ((MM.FOOT_INNER_Y - MM.FOOT_OUTER_Y) / 2) + weight * dq
    tolerance = {"torque": torque, "com": dq * lever, "margin": dq * lever, "load": force,
                 "unsupported_force": force, "unsupported_moment": torque,
                 "guide_force": force, "stable": 0.0}
    # what the stall rule guarantees everywhere: the energy, to twice its threshold (and the
    # energy's own rounding)
    energy = column(ref, "energy")
    np.testing.assert_allclose(column(ours, "energy"), energy, rtol=0,
                               atol=2 * settings.stall_tol + 1e-14 * np.abs(energy).max())
    # positions and forces follow from it where the energy rises like the springs; at the
    # sample where the heel's limit engages (its state differs from the sample before) the
    # valley is flat along the contact and the energy alone is bounded (measured on Blender
    # 4.2: 3e-5 m of com.z between two solves 1e-15 J apart)
    heel = column(ref, "limit:r_heel.tz")
    smooth = np.r_[True, heel[1:] == heel[:-1]]
    for name in {n for n in names if not n.startswith("d(")} - {"status", "unmet", "iterations",
                                                                 "energy"}:
        atol = tolerance.get(name.split(":")[0].split(".")[0], dq)
        np.testing.assert_allclose(column(ours, name)[smooth], column(ref, name)[smooth],
                                   rtol=0, atol=atol, err_msg=name)


def test_the_step_is_sensed_from_the_first_heel_contact_until_the_robot_tips(step_probe):
    scene = step_probe
    assert bpy.ops.vart.run_study() == {'FINISHED'}
    res = A.run(A.plan(study_doc(scene, "step"), model_text(scene)), workers=0)
    step, tz = column(res, "value:step"), column(res, "q:r_heel.tz")
    heel = tz[0]  # where the heel hangs above the ground before any contact
    assert 0.005 < heel < 0.02
    contact = int(np.argmax(tz <= 1e-6))
    assert step[contact - 1] < heel + 1e-4 and step[contact] >= heel
    # no joint deflects with the step before the contact; every compliant one after it
    springs = [c.name for c in res.columns if c.name.startswith("deflection:")]
    assert len(springs) == 6
    for name in springs:
        d = column(res, name)
        assert np.ptp(d[:contact]) < 1e-4, name
    ankle = column(res, "d(deflection:r_ank_pitch)/d(step)")
    assert np.all(ankle[contact + 1:contact + 10] > 1.0)
    # balanced on the left foot while the right heel hangs (the model's virtual guide keeps it
    # over the step, holding it sideways: the guide's force, what a real hanging leg lacks);
    # from the first contact the right leg's springs press the heel on the step and the
    # stance foot's centre of pressure leaves its sole (issue 30, item 5): stability is lost
    # there, long before the centre of mass crosses the sole's outer edge
    stable, margin, com_y = column(res, "stable"), column(res, "margin"), column(res, "com.y")
    weight = 9.81 * sum(link.mass for link in MM.step_probe()[0].links.values())
    heel, guide = column(res, "load:r_heel"), column(res, "guide_force")
    assert margin[0] > 0.03 and abs(com_y[0]) < 0.003
    lost = int(np.argmax(stable == 0))
    assert lost == contact and stable[:contact].all() and not stable[contact:].any()
    assert (heel[:contact] == 0).all() and heel[contact] > 0.1 * weight
    assert (guide[:contact] > 0.05 * weight).all() and (guide[contact:] == 0).all()
    assert margin[contact] > 0.03  # the centre of mass alone says nothing yet
    crossed = int(np.argmax(margin <= 0))
    outer = (MM.FOOT_INNER_Y - MM.FOOT_OUTER_Y) / 2  # the outer edge, from the sole centre
    assert crossed > contact and com_y[crossed - 1] < outer <= com_y[crossed]
    markers = {m.name: m.frame for m in scene.timeline_markers}
    first = scene.vart.study.first_frame
    assert markers[f"r_heel.tz lower: step={step[contact]:.4g} m"] == first + contact
    assert markers[f"unstable: step={step[lost]:.4g} m"] == first + lost


def test_the_bar_offset_is_sensed_while_the_hands_stay_on_the_bar(vart_registered):
    assert bpy.ops.vart.add_example(example="truss_gripper") == {'FINISHED'}
    scene = bpy.context.scene
    assert bpy.ops.vart.run_study() == {'FINISHED'}
    lk, study = MM.truss_gripper()
    res = A.run(A.plan(study_doc(scene, "bar"), model_text(scene)), workers=0)
    bar = column(res, "value:bar")
    assert len(bar) == MM.BAR_SAMPLES
    np.testing.assert_allclose(bar, A.parse(study).values()[:, 0], atol=1e-7)
    for side in ("r", "l"):
        ty = column(res, f"q:{side}_hand.ty")
        assert np.all(np.abs(ty) <= MM.BAR_WIDTH / 2 + 1e-6)
    inside = (column(res, "limit:r_hand.ty") == 0) & (column(res, "limit:l_hand.ty") == 0)
    assert inside.sum() > 0.9 * len(bar)
    # on the bar, each deflection is nearly linear in the offset: its own fit's slope is the
    # study's (which fits every draw) to 10 %
    for s in res.derived["sensitivity"]:
        d = column(res, s["of"])
        slope = np.polyfit(bar[inside], d[inside], 1)[0]
        assert abs(slope - s["slope"]) < 0.1 * abs(slope), s
        assert abs(slope) > 1.0  # rad/m: a millimetre turns the joint by more than 1 mrad
    torque = column(res, "torque:r_el")
    np.testing.assert_allclose(torque, MM.ARM_STIFFNESS * column(res, "deflection:r_el"))
