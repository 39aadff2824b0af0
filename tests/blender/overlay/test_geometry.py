"""The overlay's glyph geometry (pure numpy, no bpy): glyphs lie on the joint's axes, colours
follow the joint's state, link lines join parent and child, joints to the world get a ground
symbol, dashes stay on their polyline."""
from __future__ import annotations

import math
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from vart_addon.overlay import geometry as og
from vart_addon.solver import se3
from vart_addon.solver.joint_types import CATALOG

S = 0.2  # glyph size
POSE = se3.make_pose(se3.so3_exp(np.array([0.4, -0.7, 1.1])), [0.3, -1.2, 0.8])


def glyph(jtype="revolute", T=POSE, **kw):
    args = dict(name="j", jtype=jtype, T_world_mob=T, T_world_cframe=T,
                parent_origin=np.array([1.0, 2.0, 3.0]), child_origin=np.array([-1.0, 0.5, 0.2]),
                q=(0.0,) * CATALOG[jtype].dof)
    args.update(kw)
    return og.JointGlyph(**args)


def local_points(jtype, **kw):
    return np.concatenate(og.local_glyph(jtype, S, **kw))


def test_module_does_not_import_blender():
    assert "bpy" not in sys.modules or not hasattr(og, "bpy")
    src = open(og.__file__).read()
    assert "import bpy" not in src and "mathutils" not in src


@pytest.mark.parametrize("jtype", list(CATALOG))
def test_every_type_has_a_finite_glyph_placed_at_its_mobility_frame(jtype):
    local = og.local_glyph(jtype, S, q=(0.3,) * CATALOG[jtype].dof, pitch=0.1)
    assert local and all(P.ndim == 2 and P.shape[1] == 3 and len(P) >= 2 for P in local)
    g = glyph(jtype, q=(0.3,) * CATALOG[jtype].dof, pitch=0.1)
    glyph_style, _ = og.joint_styles(g)
    world = og.joint_segments(g, S)[glyph_style]
    assert np.isfinite(world).all() and len(world) % 2 == 0
    expected = np.concatenate([og.segments(og.transform(POSE, P)) for P in local])
    np.testing.assert_allclose(world, expected, atol=1e-12)
    # Back in the mobility frame the glyph is centred on the joint (within its size).
    back = og.transform(se3.inverse(POSE), world)
    assert np.abs(back).max() <= 1.5 * S


def test_revolute_arc_lies_in_the_xy_plane_around_z():
    P = local_points("revolute", q=(0.0,))
    on_axis = np.hypot(P[:, 0], P[:, 1]) < 1e-12
    assert (np.abs(P[~on_axis, 2]) < 1e-12).all(), "off the axis, everything is in z = 0"
    assert np.ptp(P[on_axis, 2]) > S, "the z axis itself is drawn"
    arc = og.local_glyph("revolute", S)[0]
    np.testing.assert_allclose(np.hypot(arc[:, 0], arc[:, 1]), S)
    angles = np.unwrap(np.arctan2(arc[:, 1], arc[:, 0]))
    assert angles[-1] - angles[0] == pytest.approx(math.radians(300))
    assert np.all(np.diff(angles) > 0), "the arc turns positively about z"


def test_revolute_needle_shows_the_current_angle():
    for angle in (0.0, 1.0, -2.5):
        needle = og.local_glyph("revolute", S, q=(angle,))[-1]
        d = needle[1] - needle[0]
        assert math.atan2(d[1], d[0]) == pytest.approx(angle)


@pytest.mark.parametrize("jtype,axes", [("prismatic", [2]), ("cartesian-3", [0, 1, 2])])
def test_translation_arrows_lie_on_their_axes(jtype, axes):
    parts = og.local_glyph(jtype, S)
    shafts = [P for P in parts if len(P) == 2]
    assert len(shafts) == len(axes)
    for a, P in zip(axes, shafts):
        off = [i for i in range(3) if i != a]
        assert np.abs(P[:, off]).max() < 1e-12, f"shaft {a} is on its axis"
        assert sorted(P[:, a]) == pytest.approx([-1.3 * S, 1.3 * S])
    for P in parts:  # arrowheads: within a barb of an axis end
        d = np.linalg.norm(P[:, None, :] - np.concatenate(shafts)[None], axis=2).min(1)
        assert d.max() <= 0.3 * S


def test_spherical_ball_is_three_great_circles():
    parts = og.local_glyph("spherical", S)
    assert len(parts) == 3
    for P in parts:
        np.testing.assert_allclose(np.linalg.norm(P, axis=1), 0.7 * S)
    normals = [np.cross(P[1] - P[0], P[2] - P[0]) for P in parts]
    normals = [n / np.linalg.norm(n) for n in normals]
    np.testing.assert_allclose(np.abs(np.stack(normals)), np.eye(3)[[2, 0, 1]], atol=1e-12)


@pytest.mark.parametrize("jtype", ["cartesian-2", "planar", "point-plane"])
def test_planar_types_show_a_plane_patch_in_xy(jtype):
    parts = og.local_glyph(jtype, S)
    squares = [P for P in parts if len(P) == 5]
    assert len(squares) == 1
    sq = squares[0]
    assert np.abs(sq[:, 2]).max() < 1e-12
    assert np.abs(sq[:, :2]).max() == pytest.approx(1.2 * S)
    if jtype == "cartesian-2":
        assert np.abs(np.concatenate(parts)[:, 2]).max() < 1e-12, "no rotation glyph"
    assert not any(len(P) == 2 and np.ptp(P[:, 2]) > 2 * S for P in parts), \
        "x and y are covered by the patch, no separate arrows"


def test_helical_helix_turns_about_z_with_the_pitch_sign():
    for pitch, sign in ((0.1, 1), (-0.1, -1)):
        H = og.local_glyph("helical", S, pitch=pitch)[0]
        np.testing.assert_allclose(np.hypot(H[:, 0], H[:, 1]), 0.8 * S)
        angle = np.unwrap(np.arctan2(H[:, 1], H[:, 0]))
        assert np.all(np.diff(angle) > 0)
        assert np.all(sign * np.diff(H[:, 2]) > 0)


def test_combined_types_combine_their_primitives():
    cyl = og.local_glyph("cylindrical", S)
    assert any(np.allclose(np.hypot(P[:, 0], P[:, 1]), S) for P in cyl), "arc"
    assert any(len(P) == 2 and sorted(P[:, 2]) == pytest.approx([-1.3 * S, 1.3 * S])
               for P in cyl), "arrow along z"
    pin = og.local_glyph("pin-slider", S)
    assert any(len(P) == 2 and sorted(P[:, 0]) == pytest.approx([-1.3 * S, 1.3 * S])
               for P in pin), "arrow along x"
    gen = og.local_glyph("general", S)
    assert sum(len(P) == 2 and np.ptp(P).round(12) == pytest.approx(2.6 * S) for P in gen) == 3
    fixed = np.concatenate(og.local_glyph("fixed", S))
    np.testing.assert_allclose(np.abs(fixed), 0.3 * S)


# ---- colours --------------------------------------------------------------------------------
def test_colours_follow_msim():
    assert og.joint_color(tree=True, locked=False, virtual=False) == og.ULTRAMARINE
    assert og.joint_color(tree=False, locked=False, virtual=False) == og.PURPLE
    assert og.joint_color(tree=True, locked=True, virtual=False) == og.RED
    assert og.joint_color(tree=False, locked=True, virtual=False) == og.RED
    ultramarine, purple = np.array(og.ULTRAMARINE[:3]), np.array(og.PURPLE[:3])
    assert ultramarine[2] > ultramarine[0] and ultramarine[2] > ultramarine[1], "blue"
    assert purple[0] > purple[1] and purple[2] > purple[1], "red and blue over green"
    for tree in (True, False):
        for locked in (True, False):
            real = np.array(og.joint_color(tree, locked, False))
            virtual = np.array(og.joint_color(tree, locked, True))
            assert (virtual[:3] >= real[:3]).all() and virtual[:3].sum() > real[:3].sum()


def test_styles_dash_virtual_joints_and_widen_the_active_one():
    real_style, link_style = og.joint_styles(glyph())
    assert not real_style.dashed and not link_style.dashed
    assert link_style.color[3] < real_style.color[3]
    virtual_style, virtual_link = og.joint_styles(glyph(virtual=True))
    assert virtual_style.dashed and virtual_link.dashed
    active_style, _ = og.joint_styles(glyph(active=True))
    assert active_style.width > real_style.width
    geo = og.build([glyph(tree=False), glyph(tree=False, locked=True)], S)
    colours = {st.color[:3] for st in geo.batches}
    assert og.PURPLE[:3] in colours and og.RED[:3] in colours


# ---- link lines and the ground --------------------------------------------------------------
def test_link_line_runs_parent_mobility_child_frame_child():
    T_mob = se3.make_pose(None, [0.5, 0.0, 0.0])
    T_cf = se3.make_pose(None, [0.5, 0.1, 0.0])  # a closure that is not assembled
    g = glyph(T_world_mob=T_mob, T_world_cframe=T_cf, parent_origin=np.zeros(3),
              child_origin=np.array([1.0, 0.0, 0.0]))
    P = og.link_polyline(g)
    np.testing.assert_allclose(P, [[0, 0, 0], [0.5, 0, 0], [0.5, 0.1, 0], [1, 0, 0]])
    _, link_style = og.joint_styles(g)
    seg = og.joint_segments(g, S)[link_style]
    np.testing.assert_allclose(seg[0], [0, 0, 0])
    np.testing.assert_allclose(seg[-1], [1, 0, 0])
    # Assembled: the frame origins coincide and the repeated point is dropped.
    g2 = glyph(T_world_mob=T_mob, T_world_cframe=T_mob, parent_origin=np.zeros(3),
               child_origin=np.array([1.0, 0.0, 0.0]))
    assert len(og.link_polyline(g2)) == 3


def test_a_joint_to_the_world_gets_a_ground_symbol_and_no_line_from_the_origin():
    T = se3.make_pose(se3.so3_exp(np.array([0.0, 1.2, 0.0])), [2.0, 3.0, 1.0])
    g = glyph(T_world_mob=T, T_world_cframe=T, parent_origin=None,
              child_origin=np.array([2.0, 3.0, 2.0]))
    line = og.link_polyline(g)
    np.testing.assert_allclose(line[0], [2, 3, 1]), "starts at the joint, not the world origin"
    glyph_style, link_style = og.joint_styles(g)
    pts = og.joint_segments(g, S)[glyph_style]
    with_parent = og.joint_segments(glyph(T_world_mob=T, T_world_cframe=T), S)
    assert len(pts) > len(with_parent[glyph_style]), "the ground symbol is extra"
    symbol = np.concatenate([og.segments(P + [2.0, 3.0, 1.0]) for P in og.ground(S)])
    np.testing.assert_allclose(pts[-len(symbol):], symbol)
    assert (symbol[:, 2] <= 1.0).all() and symbol[:, 2].min() < 1.0 - 0.8 * S, \
        "under the joint in world z, whatever the joint's rotation"
    np.testing.assert_allclose(symbol[:, :2].mean(0), [2.0, 3.0], atol=1e-12)
    assert not np.any(np.linalg.norm(og.joint_segments(g, S)[link_style], axis=1) < 1e-9)


def test_glyph_from_joint_composes_link_poses_and_frames():
    T_parent = se3.make_pose(se3.rot_z(0.5), [1.0, 0.0, 0.0])
    T_child = se3.make_pose(se3.rot_z(-0.3), [1.0, 1.0, 0.5])
    T_pm = se3.make_pose(se3.so3_exp(np.array([0.2, 0.0, 0.1])), [0.0, 0.4, 0.0])
    T_cf = se3.make_pose(None, [0.0, 0.0, -0.2])
    j = SimpleNamespace(name="knee", child="shin", type="cylindrical", parent="thigh",
                        T_parent_mob=tuple(T_pm.reshape(16)), T_child_frame=tuple(T_cf.reshape(16)),
                        q=(0.1, 0.2), pitch=0.0, tree=False, locked=True, virtual=True)
    poses = {"thigh": T_parent, "shin": T_child}
    g = og.glyph_from_joint(j, poses, active="knee")
    np.testing.assert_allclose(g.T_world_mob, T_parent @ T_pm)
    np.testing.assert_allclose(g.T_world_cframe, T_child @ T_cf)
    np.testing.assert_allclose(g.parent_origin, [1, 0, 0])
    np.testing.assert_allclose(g.child_origin, [1, 1, 0.5])
    assert (g.tree, g.locked, g.virtual, g.active, g.q) == (False, True, True, True, (0.1, 0.2))
    world = SimpleNamespace(**{**vars(j), "parent": None})
    gw = og.glyph_from_joint(world, poses)
    np.testing.assert_allclose(gw.T_world_mob, T_pm)
    assert gw.parent_origin is None and not gw.active
    assert og.glyph_from_joint(SimpleNamespace(**{**vars(j), "parent": "gone"}), poses) is None
    assert og.glyph_from_joint(SimpleNamespace(**{**vars(j), "child": "gone"}), poses) is None


# ---- dashes, batching, size -----------------------------------------------------------------
def test_dashes_cover_the_right_fraction_and_stay_on_the_polyline():
    P = og._circle(1.0)  # a unit circle, 2 pi long
    D = og.dashed(P, 0.2, 0.1)
    assert len(D) % 2 == 0
    np.testing.assert_allclose(np.linalg.norm(D, axis=1), 1.0, atol=0.02)  # chords of the circle
    length = np.linalg.norm(D[1::2] - D[0::2], axis=1).sum()
    assert length == pytest.approx(2 * math.pi * 2 / 3, rel=0.03)
    line = og.dashed(np.array([[0, 0, 0], [1.0, 0, 0]]), 0.3, 0.2)
    np.testing.assert_allclose(line[:, 0], [0, 0.3, 0.5, 0.8, 1.0, 1.0][:len(line)])
    assert len(og.dashed(np.zeros((3, 3)), 0.1, 0.1)) == 0


def test_build_merges_styles_into_float32_line_lists():
    geo = og.build([glyph(name="a"), glyph(name="b"), glyph(name="c", virtual=True)], S)
    assert len(geo.batches) == 4  # (glyph, link) x (real, virtual)
    for _style, v in geo.batches.items():
        assert v.dtype == np.float32 and v.ndim == 2 and v.shape[1] == 3 and len(v) % 2 == 0
    one = og.build([glyph(name="a")], S).segment_count
    assert geo.segment_count > 2 * one
    assert og.build([], S).batches == {}


def test_auto_size_scales_with_the_mechanism():
    assert og.auto_size([]) == 0.1
    g = glyph(T_world_mob=np.eye(4), T_world_cframe=np.eye(4), parent_origin=np.array([-1.0, 0, 0]),
              child_origin=np.array([1.0, 0, 0]))
    assert og.auto_size([g]) == pytest.approx(0.2 * 2.0)
    tiny = glyph(T_world_mob=np.eye(4), T_world_cframe=np.eye(4), parent_origin=np.zeros(3),
                 child_origin=np.array([1e-4, 0, 0]))
    assert og.auto_size([tiny]) == 0.01
