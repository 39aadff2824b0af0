"""Big moves (issue 19, item 7): Operate Joint converges whatever a drag's budget is, an unmet
goal is a warning that says what stopped it, and Key Joint says when it keys a value other
than the one asked for."""
from __future__ import annotations

import math

import bpy
import pytest

from vart_addon.bridge import schema as S


def q_of(ob, joint):
    return S.read_object(ob)[1][[j.name for j in S.read_object(ob)[1]].index(joint)].q[0]


def test_operate_joint_converges_a_big_move_whatever_the_drag_budget(op_fourbar):
    scene = bpy.context.scene
    scene.vart.time_budget_ms = 0.001  # a drag frame's budget, far too short for this move
    scene.vart.max_iterations = 1
    scene.vart.active_joint = "A"
    target = math.degrees(op_fourbar.theta2_0) + 120.0
    assert bpy.ops.vart.operate_joint(value=(target, 0, 0, 0, 0, 0)) == {'FINISHED'}
    assert scene.vart.status_summary.startswith("Converged"), scene.vart.status_summary
    assert math.degrees(q_of(op_fourbar.obs["crank"], "A")) == pytest.approx(target, abs=1e-6)


def test_an_unmet_move_says_why_and_key_joint_says_what_it_keyed(op_fourbar, capsys):
    scene = bpy.context.scene
    crank = op_fourbar.obs["crank"]
    q0 = q_of(crank, "A")
    S.update_joint(crank, "A", lower=[q0 - 0.2], upper=[q0 + 0.2])
    scene.vart.active_joint = "A"
    asked = math.degrees(q0 + 0.5)  # beyond the upper limit
    assert bpy.ops.vart.operate_joint(value=(asked, 0, 0, 0, 0, 0)) == {'FINISHED'}
    summary = scene.vart.status_summary
    assert summary.startswith("Unmet: target of joint 'A'; "), summary
    assert "a higher goal or a joint limit holds it" in summary or "ran out" in summary
    assert q_of(crank, "A") == pytest.approx(q0 + 0.2, abs=1e-6)  # at the limit
    capsys.readouterr()
    assert bpy.ops.vart.key_joint() == {'FINISHED'}
    text = "".join(capsys.readouterr())
    assert "Warning: Keyed the value of joint 'A'" in text
    assert f"not the {q0 + 0.5:.6g} asked for: the last solve stopped short" in text


def test_operate_joint_moves_story_2s_trench_in_a_few_iterations(vart_registered):
    """Issue 35, item 5: the trench (a loop through leg 0, its depth and pitch locked) from
    -0.9 m to +0.4 m and back took 131-133 iterations, each trial step halved five times
    while its corrections let the locked joints drift (tests/solver/test_big_moves.py)."""
    assert bpy.ops.vart.add_example(example="trenching") == {'FINISHED'}
    scene = bpy.context.scene
    scene.vart.active_joint = "trench"
    slide = bpy.data.objects["trench_slide"]
    for value in (0.4, -0.9):
        assert bpy.ops.vart.operate_joint(value=(value, 0, 0, 0, 0, 0)) == {'FINISHED'}
        summary = scene.vart.status_summary
        assert summary.startswith("Converged ("), summary
        assert int(summary.split("(")[1].split()[0]) <= 20, summary
        assert q_of(slide, "trench") == pytest.approx(value, abs=1e-6)
