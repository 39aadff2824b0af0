"""Balance goals in Blender (real bpy): Set Balance / Set CoM Over on the active link of a
table-like robot (a body on four telescopic legs, three feet pinned by virtual spherical
joints), a solve that brings its centre of mass over the pins' support, the overlay's support
polygon and plumb line, and a bad stored margin refused naming the object and key."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from vart_addon.bridge import schema as S
from vart_addon.overlay import drawing
from vart_addon.overlay import support_geometry as SG
from vart_addon.solver import se3
from vart_addon.solver import support_polygon as SP

CORNERS = [(0.4, 0.3), (-0.4, 0.3), (-0.4, -0.3), (0.4, -0.3)]
HEIGHT = 0.5


def table(opkit, pins=(0, 1, 2), body_com=(0.2, -0.15, 0.0)):
    """The body (10 kg, its centre of mass toward leg 3: outside the support of feet 0-2),
    legs (1 kg) on spherical hips, prismatic knees to feet (0.5 kg), feet in ``pins`` pinned
    to the ground (the others' hips locked). Every tree joint has a posture, so a solve is
    determined."""
    body = opkit.cube("Body", (0.9, 0.7, 0.1))
    opkit.place(body, se3.make_pose(None, [0, 0, HEIGHT]))
    S.write_link(body, mass=10.0, com=body_com)
    S.write_joint(body, "base", "general", None, T_parent_mob=se3.make_pose(None, [0, 0, HEIGHT]),
                  virtual=True, posture_q=(0.0,) * 6)
    for i, (x, y) in enumerate(CORNERS):
        hip, foot_at = se3.make_pose(None, [x, y, HEIGHT]), se3.make_pose(None, [x, y, 0.0])
        leg, foot = opkit.cube(f"Leg{i}", (0.05, 0.05, 0.5)), opkit.cube(f"Foot{i}", (0.1,) * 3)
        opkit.place(leg, hip)
        opkit.place(foot, foot_at)
        S.write_link(leg, mass=1.0, com=(0.0, 0.0, -HEIGHT / 2))
        S.write_link(foot, mass=0.5)
        S.write_joint(leg, f"hip{i}", "spherical", body,  # a lifted leg's hip locked: it
                      T_parent_mob=se3.make_pose(None, [x, y, 0.0]),  # hangs, no counterweight
                      posture_q=(0.0,) * 3, locked=i not in pins, lock_q=(0.0,) * 3)
        S.write_joint(foot, f"knee{i}", "prismatic", leg,
                      T_parent_mob=se3.make_pose(None, [0.0, 0.0, -HEIGHT]), posture_q=(0.0,))
    for i in pins:
        foot = bpy.data.objects[f"Foot{i}"]
        joints = S.read_object(foot)[1]
        S.write_joint(foot, f"pin{i}", "spherical", None,
                      T_parent_mob=se3.make_pose(None, [*CORNERS[i], 0.0]), virtual=True,
                      tree=False)
        assert len(S.read_object(foot)[1]) == len(joints) + 1
    return body


def centre_of_mass(opkit) -> np.ndarray:
    m, c = [], []
    for ob in bpy.context.scene.objects:
        rec = S.read_object(ob)[0] if S.is_link(ob) else None
        if rec is not None and rec.mass > 0:
            T = opkit.rigid(ob)
            m.append(rec.mass)
            c.append(T[:3, :3] @ np.asarray(rec.com) + T[:3, 3])
    return np.asarray(m) @ np.array(c) / sum(m)


def margin(opkit) -> float:
    return SP.support_margin(centre_of_mass(opkit)[:2], CORNERS[:3])


def test_set_balance_brings_the_centre_of_mass_over_the_support(opkit):
    body = table(opkit)
    assert margin(opkit) < 0
    opkit.select(body)
    assert bpy.ops.vart.set_balance(margin=0.05) == {'FINISHED'}
    link = opkit.link("Body")
    assert link["balance"] is True and link["balance_margin"] == pytest.approx(0.05)
    assert bpy.ops.vart.solve() == {'FINISHED'}
    assert margin(opkit) >= 0.05 - 1e-5  # Blender keeps matrices in float32
    for i in range(3):  # the pins held
        np.testing.assert_allclose(opkit.rigid(bpy.data.objects[f"Foot{i}"])[:3, 3],
                                   [*CORNERS[i], 0.0], atol=1e-5)
    assert bpy.ops.vart.clear_balance() == {'FINISHED'}
    assert opkit.link("Body")["balance"] is False
    # its level, chosen when it is set (the limit level by default)
    assert link["balance_level"] == "limit"
    assert bpy.ops.vart.set_balance(margin=0.05, level='POSTURE') == {'FINISHED'}
    assert opkit.link("Body")["balance_level"] == "posture"
    with pytest.raises(S.SchemaError, match=r"balance_level.*one of"):
        S.update_link(body, balance_level="sometimes")


def test_set_com_over_puts_the_centre_of_mass_over_the_cursor(opkit):
    body = table(opkit, pins=(0, 1, 2, 3), body_com=(0.0, 0.0, 0.0))
    bpy.ops.vart.solve()
    opkit.cursor(se3.make_pose(None, [-0.1, 0.05, 0.0]))
    opkit.select(body)
    assert bpy.ops.vart.set_com_over() == {'FINISHED'}
    np.testing.assert_allclose(opkit.link("Body")["com_over_point"], [-0.1, 0.05, 0.0])
    assert bpy.ops.vart.solve() == {'FINISHED'}
    np.testing.assert_allclose(centre_of_mass(opkit)[:2], [-0.1, 0.05], atol=1e-5)


def test_the_overlay_draws_the_support_and_the_plumb_line_red_then_green(opkit):
    body = table(opkit)
    assert drawing.support_geometry(bpy.context.scene, 0.1) == {}  # no goal, nothing drawn
    S.update_link(body, balance=True, balance_margin=0.05)
    geo = drawing.support_geometry(bpy.context.scene, 0.1)
    hull = geo[SG.SUPPORT].reshape(-1, 2, 3)
    assert len(hull) == 3  # the triangle of feet 0-2, on the ground
    np.testing.assert_allclose(hull[:, :, 2], 0.0, atol=1e-9)
    assert {tuple(round(float(x), 6) for x in p[:2]) for p in hull[:, 0]} == set(CORNERS[:3])
    assert SG.OUTSIDE in geo and SG.OVER not in geo and SG.REGION in geo
    plumb = geo[SG.OUTSIDE][:2]
    np.testing.assert_allclose(plumb[0], centre_of_mass(opkit), atol=1e-5)
    assert plumb[1][2] == pytest.approx(0.0, abs=1e-6)
    bpy.ops.vart.solve()
    geo = drawing.support_geometry(bpy.context.scene, 0.1)
    assert SG.OVER in geo and SG.OUTSIDE not in geo
    assert drawing.scene_geometry(bpy.context.scene).batches[SG.SUPPORT].shape == (6, 3)


def test_a_negative_stored_margin_is_refused_naming_the_object_and_key(opkit):
    body = table(opkit)
    with pytest.raises(S.SchemaError, match=r"Body.*balance_margin"):
        S.update_link(body, balance=True, balance_margin=-0.1)
    body["vart"]["link"]["balance"] = True
    body["vart"]["link"]["balance_margin"] = -0.1
    snap = opkit.snapshot()
    with pytest.raises(RuntimeError, match=r"Body.*balance_margin"):
        bpy.ops.vart.solve()
    assert opkit.snapshot() == snap


def test_set_balance_needs_an_active_link(opkit):
    table(opkit)
    opkit.select()
    assert not bpy.ops.vart.set_balance.poll()


def test_operate_joint_stops_where_the_balance_holds(opkit):
    """The body's base (a virtual general joint) asked 0.3 m toward the lifted leg: Operate
    Joint stops at the region's edge and says the target is unmet."""
    body = table(opkit, body_com=(0.0, 0.0, 0.0))
    opkit.select(body)
    bpy.ops.vart.set_balance(margin=0.05)
    scene = bpy.context.scene
    scene.vart.active_joint = "base"
    assert bpy.ops.vart.operate_joint(value=(0.3, -0.3, 0.0, 0.0, 0.0, 0.0)) == {'FINISHED'}
    assert scene.vart.status_summary.startswith("Unmet: target of joint 'base'")
    assert 0.05 - 1e-5 <= margin(opkit) <= 0.05 + 2e-3  # at the edge, or just inside


def swinging_leg(opkit):
    """The table balanced (0.05 m) on feet 0-2 with leg 3's hip free and keyed to swing 0.8
    rad outward over frames 1-10: ``(body, leg)``."""
    body = table(opkit, body_com=(0.0, 0.0, 0.0))
    leg = bpy.data.objects["Leg3"]
    S.update_joint(leg, "hip3", locked=False)
    opkit.select(body)
    bpy.ops.vart.set_balance(margin=0.05)
    path = S.q_data_path("hip3")
    for frame, q in ((1, (0.0, 0.0, 0.0)), (10, (-0.8, 0.0, 0.0))):
        leg["vart"]["joints"]["hip3"]["q"] = q
        leg.keyframe_insert(data_path=path, frame=frame)
    return body, leg


def test_a_bake_keeps_the_balance_while_the_lifted_leg_swings_out(opkit):
    """Leg 3 (lifted, its hip free) keyed to swing 0.8 rad outward over 10 frames: its mass
    moves out, and at every baked frame the body has shifted so that the centre of mass stays
    over the region; the swing itself is met."""
    body, leg = swinging_leg(opkit)
    assert bpy.ops.vart.bake(frame_start=1, frame_end=10) == {'FINISHED'}
    scene = bpy.context.scene
    margins, body_at = [], []
    for frame in range(1, 11):
        scene.frame_set(frame)
        margins.append(margin(opkit))
        body_at.append(opkit.rigid(body)[:2, 3])
    assert min(margins) >= 0.05 - 1e-5, margins
    np.testing.assert_allclose(leg["vart"]["joints"]["hip3"]["q"], (-0.8, 0.0, 0.0), atol=1e-6)
    inward = np.array([-0.6, 0.8])  # the normal into feet 0-2's triangle from its diagonal
    assert float((body_at[-1] - body_at[0]) @ inward) > 0.01  # the body leans away


def test_a_drag_stops_at_the_edge(opkit):
    """Drag Link of the body 0.3 m toward the unpinned leg: it stops where the centre of mass
    reaches the region's edge (without the goal it goes the whole way)."""
    for balanced in (False, True):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        body = table(opkit, body_com=(0.0, 0.0, 0.0))
        bpy.ops.vart.solve()
        opkit.select(body)
        if balanced:
            bpy.ops.vart.set_balance(margin=0.05)
            bpy.ops.vart.solve()
        start = opkit.rigid(body)[:2, 3].copy()
        assert bpy.ops.vart.drag(link="Body", translation=(0.3, -0.3, 0.0)) == {'FINISHED'}
        moved = opkit.rigid(body)[:2, 3] - start
        if balanced:
            assert 0.05 - 1e-5 <= margin(opkit) <= 0.05 + 2e-3
            assert np.linalg.norm(moved) < 0.2
        else:
            assert np.linalg.norm(moved) > 0.3


def test_live_keeps_the_balance_at_every_frame_shown(opkit):
    """Live mode: the lifted leg keyed to swing out, each frame shown is solved with the
    balance goal: over the region at every frame, in any order."""
    body, leg = swinging_leg(opkit)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 10
    scene.frame_set(1)
    scene.vart.live = True
    for frame in (10, 4, 7, 1):
        scene.frame_set(frame)
        summary = scene.vart.status_summary  # converged, or the posture's best compromise
        assert summary.startswith(f"Live, frame {frame}: ") and "Unmet" not in summary, summary
        assert margin(opkit) >= 0.05 - 1e-5, frame
    scene.vart.live = False
