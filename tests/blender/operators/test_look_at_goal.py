"""The look-at goal in Blender (real bpy): Set Look At / Clear Look At on the active link (the
point from the 3D cursor), the keys it stores on the link, a solve that aims the link, a bad
stored axis refused naming the object and key, and a preset that carries it."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from vart_addon.bridge import schema as S
from vart_addon.solver import se3


def pan_tilt(opkit):
    """A head on a pan joint (about z) and a camera on a tilt joint (about y), 1 m up."""
    up = se3.make_pose(None, [0, 0, 1])
    tilt = se3.make_pose(se3.so3_exp([np.pi / 2, 0, 0]), [0, 0, 0])
    head, cam = opkit.cube("Head", (0.2, 0.2, 0.2)), opkit.cube("Cam", (0.1, 0.1, 0.3))
    for ob in (head, cam):
        opkit.place(ob, up)
        S.write_link(ob)
    S.write_joint(head, "pan", "revolute", None, T_parent_mob=up)
    S.write_joint(cam, "tilt", "revolute", head, T_parent_mob=tilt, T_child_frame=tilt)
    return head, cam


def aim(opkit, ob):
    T = opkit.rigid(ob)
    return T[:3, :3] @ [0.0, 0.0, -1.0], T[:3, 3]


def test_set_look_at_aims_the_link_at_the_cursor_and_clear_removes_it(opkit):
    head, cam = pan_tilt(opkit)
    point = np.array([2.0, 1.0, 0.0])
    opkit.cursor(se3.make_pose(None, point))
    opkit.select(cam)
    assert bpy.ops.vart.set_look_at(axis=(0.0, 0.0, -2.0)) == {'FINISHED'}
    link = opkit.link("Cam")
    assert link["look_at"] is True
    assert link["look_at_axis"] == [0.0, 0.0, -1.0]
    np.testing.assert_allclose(link["look_at_point"], point, atol=1e-6)  # float32 cursor
    assert bpy.ops.vart.solve() == {'FINISHED'}
    a, o = aim(opkit, cam)
    np.testing.assert_allclose(a, (point - o) / np.linalg.norm(point - o), atol=1e-5)
    assert bpy.context.scene.vart.status_summary.startswith("Converged")
    assert bpy.ops.vart.clear_look_at() == {'FINISHED'}
    assert opkit.link("Cam")["look_at"] is False
    assert S.read_object(cam)[0].look_at is False


def test_a_zero_stored_axis_is_refused_naming_the_object_and_key(opkit):
    head, cam = pan_tilt(opkit)
    S.update_link(cam, look_at=True, look_at_axis=(0.0, 0.0, 0.0), look_at_point=(1, 0, 0))
    snap = opkit.snapshot()
    with pytest.raises(RuntimeError, match=r"Cam.*look_at_axis.*direction cannot be zero"):
        bpy.ops.vart.solve()
    assert opkit.snapshot() == snap
    with pytest.raises(S.SchemaError, match=r"look_at_point.*expected 3"):
        S.update_link(cam, look_at_point=(1.0, 0.0))
    with pytest.raises(S.SchemaError, match=r"look_at_typo"):
        S.update_link(cam, look_at_typo=1.0)


def test_set_look_at_needs_an_active_link(opkit):
    pan_tilt(opkit)
    opkit.select()
    assert not bpy.ops.vart.set_look_at.poll()


def test_a_preset_carries_the_goal_with_its_point_relative_to_the_link(opkit, tmp_path):
    from vart_addon.io_urdf import presets
    head, cam = pan_tilt(opkit)
    S.update_link(cam, look_at=True, look_at_axis=(0.0, 0.0, -1.0),
                  look_at_point=(2.0, 1.0, 0.0))
    data = presets.preset_data(bpy.context.scene)
    entry = data["real_links"]["Cam"]
    np.testing.assert_allclose(entry["look_at_point"], [2.0, 1.0, -1.0], atol=1e-6)
    assert entry["look_at_axis"] == [0.0, 0.0, -1.0]
    S.update_link(cam, look_at=False, look_at_point=(0.0, 0.0, 0.0))
    presets.load_preset(data)  # back in the world from the link's frame
    link = S.read_object(cam)[0]
    assert link.look_at is True
    np.testing.assert_allclose(link.look_at_point, [2.0, 1.0, 0.0], atol=1e-6)
