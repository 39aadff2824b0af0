"""Dragging in real bpy without a window: DragSession on the benchmark hexapod (feet pinned to
the ground by spherical closures), the event mapping (LinkDrag / JointDrag) with a synthetic
top view and synthetic events, and the modal operators' invoke/modal driven the same way.

Checked at every update: the feet stay within 1e-6 of their pins (the solver's float64 poses)
and within 1e-5 in the objects' float32 matrices. Cancel puts back every object's transform
channels, matrices and ["vart"] properties bit for bit; confirm keys only with auto-keying.
"""
from __future__ import annotations

import math
import types

import bpy
import numpy as np
import pytest

import blender_scenes as BS  # noqa: E402
from drag_scene import SETTINGS, assert_feet_pinned, deck_path, hexapod_scene, pins, state
from vart_addon.bridge import BridgeError, SceneBridge, fcurves_of, q_data_path  # noqa: E402
from vart_addon.drag import events as DE  # noqa: E402
from vart_addon.drag import geometry as DM  # noqa: E402
from vart_addon.drag import session as D  # noqa: E402
from vart_addon.solver import Settings, Solver, se3  # noqa: E402

pytestmark = pytest.mark.skipif(not BS.available(), reason="../shared/bench not present")


@pytest.fixture
def hexapod():
    return hexapod_scene()


# ---- the session ------------------------------------------------------------------------------
def test_a_link_drag_follows_the_path_and_the_feet_stay_pinned_at_every_update(hexapod):
    hx = hexapod
    s = D.DragSession(hx.bridge, SETTINGS)
    link = hx.prob.drag["frame"]
    T0 = s.begin_link(link)
    np.testing.assert_allclose(T0, hx.bridge.linkage.pose(link))
    for T in deck_path(hx, 12):
        st = s.update(T)
        assert st.level("invariant").satisfied and st.level("invariant").error < 1e-6
        assert_feet_pinned(hx)
        got = np.array(hx.obs[link].matrix_world, float)
        assert np.abs(got - T).max() < 1e-5  # the drag target is reachable here
    assert len(s.times) == 12 and s.ms > 0
    links, joints = s.confirm()
    assert link in links and "base_py" in joints and "ground" not in links
    assert not s.active
    assert link not in hx.bridge._link_targets  # the drag's target is dropped


def test_cancel_restores_every_object_bit_for_bit(hexapod):
    hx = hexapod
    # rotation modes of every kind, so each channel is restored, not just the Euler one
    for name, mode in (("leg0_l2", "QUATERNION"), ("leg1_l3", "AXIS_ANGLE"), ("deck", "ZXY")):
        hx.obs[name].rotation_mode = mode
    bpy.context.view_layer.update()
    hx.bridge.sync()
    before = state()
    poses_before = {n: T.copy() for n, T in hx.bridge.linkage.poses().items()}
    rebuilds = hx.bridge.rebuilds
    s = D.DragSession(hx.bridge, SETTINGS)
    s.begin_link(hx.prob.drag["frame"])
    for T in deck_path(hx, 8):
        s.update(T)
        assert_feet_pinned(hx)
    assert state() != before
    s.cancel()
    assert state() == before
    # the bridge's cache is back too: no rebuild, the same float64 poses, nothing to patch
    assert hx.bridge.sync() is False and hx.bridge.rebuilds == rebuilds
    for n, T in hx.bridge.linkage.poses().items():
        assert np.array_equal(T, poses_before[n]), n
    assert hx.bridge.write_back().links == []


def test_confirm_keys_the_changed_links_and_joints_only_with_auto_key(hexapod):
    hx = hexapod
    scene = bpy.context.scene
    s = D.DragSession(hx.bridge, SETTINGS)
    s.begin_link("deck")
    s.update(hx.prob.target_pose(30) @ np.linalg.inv(hx.prob.target_pose(0))
             @ hx.bridge.linkage.pose("deck"))
    s.confirm()
    assert s.keyed is None and not any(ob.animation_data for ob in bpy.data.objects)
    assert len(bpy.data.actions) == 0

    scene.tool_settings.use_keyframe_insert_auto = True
    scene.frame_set(7)
    s = D.DragSession(hx.bridge, SETTINGS)
    s.begin_link("deck")
    s.update(hx.bridge.linkage.pose("deck") @ se3.make_pose(se3.rot_z(0.05), [0.02, 0, 0]))
    links, joints = s.confirm()
    assert s.keyed is not None and sorted(s.keyed.links) == links
    assert sorted(s.keyed.joints) == joints
    assert "deck" in links and "ground" not in links
    for n in links:
        curves = {(fc.data_path, fc.array_index): fc for fc in fcurves_of(hx.obs[n])}
        for path in ("location", "rotation_euler"):
            for i in range(3):
                assert [k.co[0] for k in curves[(path, i)].keyframe_points] == [7.0]
    assert fcurves_of(hx.obs["ground"]) == []
    child = hx.obs["deck"]
    fc = [f for f in fcurves_of(child) if f.data_path == q_data_path("base_rx")]
    assert "base_rx" in joints and [k.co[0] for k in fc[0].keyframe_points] == [7.0]
    # the key holds the confirmed value
    assert fc[0].keyframe_points[0].co[1] == pytest.approx(
        child["vart"]["joints"]["base_rx"]["q"][0], abs=1e-6)


def test_auto_key_replace_mode_only_replaces_existing_keys(hexapod):
    hx = hexapod
    ts = bpy.context.scene.tool_settings
    ts.use_keyframe_insert_auto = True
    ts.auto_keying_mode = 'REPLACE_KEYS'
    s = D.DragSession(hx.bridge, SETTINGS)
    s.begin_link("deck")
    s.update(hx.bridge.linkage.pose("deck") @ se3.make_pose(None, [0.02, 0, 0]))
    s.confirm()
    assert s.keyed.channels == 0 and len(bpy.data.actions) == 0


def test_a_joint_drag_operates_the_joint_and_confirm_stores_its_target(hexapod):
    hx = hexapod
    deck = hx.obs["deck"]
    before = state()
    s = D.DragSession(hx.bridge, SETTINGS)
    q0 = s.begin_joint("base_rx")
    assert q0.shape == (1,)
    for deg in (2, 5, 9, 14, 20):
        st = s.update(q0[0] + math.radians(deg))
        assert st.converged
        assert_feet_pinned(hx)
        assert deck["vart"]["joints"]["base_rx"]["q"][0] == pytest.approx(
            q0[0] + math.radians(deg), abs=1e-9)
    s.cancel()
    assert state() == before
    assert hx.bridge.linkage.joint("base_rx").target_q is None  # the drag's goal is gone

    s = D.DragSession(hx.bridge, SETTINGS)
    s.begin_joint("base_rx")
    s.update(np.array([q0[0] + 0.2]))
    s.confirm()
    g = deck["vart"]["joints"]["base_rx"]
    assert list(g["target_mask"]) == [True] and g["target_q"][0] == pytest.approx(q0[0] + 0.2)
    s = D.DragSession(hx.bridge, SETTINGS)
    s.begin_joint("leg0_knee_pitch")
    s.update(-0.3)
    s.confirm(keep_target=False)
    assert not any(hx.obs["leg0_l3"]["vart"]["joints"]["leg0_knee_pitch"]["target_mask"])


def test_bad_drags_are_refused_and_change_nothing(hexapod):
    hx = hexapod
    before = state()
    s = D.DragSession(hx.bridge, SETTINGS)
    with pytest.raises(BridgeError, match="no drag in progress"):
        s.update(np.eye(4))
    with pytest.raises(BridgeError, match="not a link"):
        s.begin_link("nonsense")
    s.cancel()
    s = D.DragSession(hx.bridge, SETTINGS)
    with pytest.raises(BridgeError, match="no value to operate"):
        s.begin_joint(next(n for n, j in hx.bridge.linkage.joints.items() if not j.dof))
    s.cancel()
    s = D.DragSession(hx.bridge, SETTINGS)
    s.begin_link("deck")
    with pytest.raises(BridgeError, match="already in progress"):
        s.begin_link("deck")
    bad = np.eye(4)
    bad[0, 3] = np.nan
    with pytest.raises(BridgeError, match="finite"):
        s.update(bad)
    s.cancel()
    assert state() == before


# ---- events -----------------------------------------------------------------------------------
class TopView:
    """An orthographic view from above: 1 pixel = ``s`` metres, the region origin at the
    world origin."""

    def __init__(self, s=0.001):
        self.s = s

    def ray(self, xy):
        return np.array([xy[0] * self.s, xy[1] * self.s, 10.0]), np.array([0.0, 0.0, -1.0])

    def view_dir(self):
        return np.array([0.0, 0.0, -1.0])

    def project(self, p):
        return np.array([p[0] / self.s, p[1] / self.s])


def ev(type, x=0, y=0, value="PRESS", ctrl=False, shift=False):
    return types.SimpleNamespace(type=type, value=value, mouse_region_x=x, mouse_region_y=y,
                                 ctrl=ctrl, shift=shift)


def move(x, y, **kw):
    return ev("MOUSEMOVE", x, y, value="NOTHING", **kw)


def test_link_drag_maps_mouse_keys_and_modifiers_like_g_and_r(hexapod):
    hx = hexapod
    view = TopView()
    s = D.DragSession(hx.bridge, SETTINGS)
    T0 = hx.bridge.linkage.pose("deck")
    x0, y0 = view.project(T0[:3, 3])
    x0 += 50  # grabbed 5 cm from the link's origin
    ctl = DE.LinkDrag(s, "deck", (x0, y0))
    assert ctl.handle(move(x0 + 20, y0 + 10), view) == DE.RUNNING
    np.testing.assert_allclose(s.value[:3, 3] - T0[:3, 3], [0.02, 0.01, 0.0], atol=1e-12)
    np.testing.assert_allclose(s.value[:3, :3], T0[:3, :3])
    assert "Move +0.0200 m +0.0100 m" in ctl.header() and "ms/update" in ctl.header()
    assert_feet_pinned(hx)
    # X: along global x only; Ctrl snaps to 0.1 m, with Shift to 0.01 m (and finer motion)
    assert ctl.handle(ev("X"), view) == DE.RUNNING
    np.testing.assert_allclose(s.value[:3, 3] - T0[:3, 3], [0.02, 0, 0], atol=1e-12)
    assert "along X (global)" in ctl.header()
    ctl.handle(move(x0 + 37, y0 + 10, ctrl=True, shift=True), view)
    np.testing.assert_allclose(s.value[:3, 3] - T0[:3, 3], [0.02, 0, 0], atol=1e-12)
    ctl.handle(move(x0 + 46, y0, ctrl=True), view)
    np.testing.assert_allclose(s.value[:3, 3] - T0[:3, 3], [0.0, 0, 0], atol=1e-12)
    assert "[snap]" in ctl.header()
    # navigation passes through; other keys are swallowed
    for t in ("MIDDLEMOUSE", "WHEELUPMOUSE", "NUMPAD_5"):
        assert ctl.handle(ev(t), view) == DE.PASS_THROUGH
    assert ctl.handle(ev("K"), view) == DE.RUNNING
    # X twice more: local x, then no constraint
    ctl.handle(ev("X"), view)
    assert ctl.constraint.space == "LOCAL"
    ctl.handle(ev("X"), view)
    assert ctl.constraint is None
    ctl.handle(move(x0 + 30, y0), view)
    np.testing.assert_allclose(s.value[:3, 3] - T0[:3, 3], [0.03, 0, 0], atol=1e-12)
    # R: turn about the view axis through the origin, keeping the move done so far
    here = np.array(s.value)
    ctl.handle(ev("R", x0 + 30, y0), view)
    assert ctl.mode == "ROTATE"
    px, py = view.project(here[:3, 3])
    a = 0.1
    ctl.handle(move(px + 50 * math.cos(a), py + 50 * math.sin(a)), view)
    turned = s.value
    np.testing.assert_allclose(turned[:3, 3], here[:3, 3], atol=1e-12)
    w = se3.so3_log(turned[:3, :3] @ here[:3, :3].T)
    np.testing.assert_allclose(w, [0, 0, a], atol=1e-9)  # counter-clockwise seen from above
    assert "Rotate +5.73\u00b0" in ctl.header()
    assert_feet_pinned(hx)
    # Z constrains the turn to global z; Ctrl snaps to 5 degrees
    ctl.handle(ev("Z"), view)
    ctl.handle(move(px + 50 * math.cos(0.06), py + 50 * math.sin(0.06), ctrl=True), view)
    w = se3.so3_log(s.value[:3, :3] @ here[:3, :3].T)
    np.testing.assert_allclose(w, [0, 0, math.radians(5)], atol=1e-9)
    assert ctl.handle(ev("RET"), view) == DE.FINISHED
    assert ctl.handle(ev("ESC"), view) == DE.CANCELLED
    assert ctl.handle(ev("RIGHTMOUSE"), view) == DE.CANCELLED
    s.cancel()


def test_joint_drag_maps_horizontal_motion_to_the_value(hexapod):
    hx = hexapod
    s = D.DragSession(hx.bridge, SETTINGS)
    ctl = DE.JointDrag(s, "base_rx", (100, 100))
    q0 = float(ctl.q0[0])
    ctl.handle(move(140, 300), TopView())
    assert s.value[0] == pytest.approx(q0 + math.radians(10))
    ctl.handle(move(140, 300, shift=True), TopView())
    ctl.handle(move(180, 300, shift=True), TopView())
    assert s.value[0] == pytest.approx(q0 + math.radians(11))  # ten times finer
    ctl.handle(move(180, 300, ctrl=True), TopView())
    assert math.degrees(s.value[0]) % 5 == pytest.approx(0, abs=1e-9) or \
        math.degrees(s.value[0]) % 5 == pytest.approx(5, abs=1e-9)
    assert "Vart operate 'base_rx'" in ctl.header() and "\u00b0" in ctl.header()
    assert_feet_pinned(hx)
    s.cancel()


# ---- the modal operators, driven by synthetic events -------------------------------------------
class FakeOp:
    """Stands in for the operator instance: the operator class's own functions, bound."""

    def __init__(self, cls, **props):
        self.reports = []
        for k, v in props.items():
            setattr(self, k, v)
        for name in ("invoke", "modal", "start", "remember", "keep_target_on_confirm",
                     "_name", "execute"):
            if hasattr(cls, name):
                setattr(self, name, types.MethodType(getattr(cls, name), self))

    def report(self, kind, text):
        self.reports.append((set(kind), text))


def fake_context(active=None):
    headers = []
    area = types.SimpleNamespace(type='VIEW_3D', header_text_set=headers.append)
    handlers = []
    wm = types.SimpleNamespace(modal_handler_add=handlers.append)
    return types.SimpleNamespace(scene=bpy.context.scene, area=area, region=object(),
                                 region_data=object(), window_manager=wm,
                                 active_object=active), headers, handlers


@pytest.fixture
def registered(hexapod):
    import vart_addon
    vart_addon.register()
    try:
        yield hexapod
    finally:
        vart_addon.unregister()


def test_drag_operator_invoke_modal_confirm_and_cancel(registered, monkeypatch):
    hx = registered
    from vart_addon.operators import animate as AN
    from vart_addon.shared import bridge_cache
    view = TopView()
    monkeypatch.setattr(AN, "_view_of", lambda context: view)
    bridge_cache.clear_bridge_cache()
    deck = hx.obs["deck"]
    T0 = np.array(deck.matrix_world, float)
    x0, y0 = view.project(T0[:3, 3])
    before = state()

    op = FakeOp(AN.VART_OT_drag, link="", mode="TRANSLATE", translation=(0, 0, 0),
                rotation=(0, 0, 0))
    ctx, headers, handlers = fake_context(active=deck)
    assert op.invoke(ctx, ev("G", x0, y0)) == {'RUNNING_MODAL'}
    assert handlers == [op] and headers[-1].startswith("Vart drag 'deck'")
    assert op.modal(ctx, move(x0 + 30, y0)) == {'RUNNING_MODAL'}
    assert op.modal(ctx, ev("WHEELUPMOUSE")) == {'PASS_THROUGH'}
    assert "Move +0.0300 m" in headers[-1]
    assert op.modal(ctx, ev("ESC")) == {'CANCELLED'}
    assert headers[-1] is None and state() == before

    op = FakeOp(AN.VART_OT_drag, link="", mode="TRANSLATE", translation=(0, 0, 0),
                rotation=(0, 0, 0))
    ctx, headers, handlers = fake_context(active=deck)
    op.invoke(ctx, ev("G", x0, y0))
    op.modal(ctx, move(x0 + 30, y0 - 10))
    assert op.modal(ctx, ev("LEFTMOUSE")) == {'FINISHED'}
    np.testing.assert_allclose(op.translation, [0.03, -0.01, 0.0], atol=1e-12)
    np.testing.assert_allclose(op.rotation, [0, 0, 0], atol=1e-12)
    assert op.link == "deck"
    np.testing.assert_allclose(np.array(deck.matrix_world)[:3, 3] - T0[:3, 3],
                               [0.03, -0.01, 0], atol=1e-5)
    assert_feet_pinned(types.SimpleNamespace(prob=hx.prob, obs=hx.obs,
                                             bridge=bridge_cache.bridge_for(bpy.context.scene)))
    assert bpy.context.scene.vart.status_summary.startswith("Converged")


def test_drag_and_operate_operators_without_a_view_apply_their_properties(registered):
    hx = registered
    scene = bpy.context.scene
    deck = hx.obs["deck"]
    bpy.context.view_layer.objects.active = deck
    T0 = np.array(deck.matrix_world, float)
    assert bpy.ops.vart.drag(translation=(0.0, 0.04, -0.02),
                             rotation=(0.05, 0.0, 0.0)) == {'FINISHED'}
    T = np.array(deck.matrix_world, float)
    np.testing.assert_allclose(T[:3, 3] - T0[:3, 3], [0, 0.04, -0.02], atol=1e-5)
    np.testing.assert_allclose(se3.so3_log(T[:3, :3] @ T0[:3, :3].T), [0.05, 0, 0], atol=1e-5)
    bridge = SceneBridge(scene)
    bridge.sync()
    for foot, w in pins(hx.prob).items():
        assert np.linalg.norm(bridge.linkage.pose(foot)[:3, 3] - w) < 1e-5
    scene.vart.active_joint = "base_rx"
    assert bpy.ops.vart.operate_joint_modal(value=(12.0, 0, 0, 0, 0, 0)) == {'FINISHED'}
    assert deck["vart"]["joints"]["base_rx"]["q"][0] == pytest.approx(math.radians(12),
                                                                     abs=1e-9)
    assert list(deck["vart"]["joints"]["base_rx"]["target_mask"]) == [True]
    # refused: a drag that would need a link when the active object is none
    bpy.context.view_layer.objects.active = None
    assert not bpy.ops.vart.drag.poll()


def test_the_view_is_the_areas_main_region_whichever_region_started_the_operator():
    from vart_addon.operators import animate as AN
    win = types.SimpleNamespace(type='WINDOW', x=100, y=50)
    header = types.SimpleNamespace(type='HEADER', x=100, y=600)
    rv3d = object()
    area = types.SimpleNamespace(type='VIEW_3D', regions=[header, win],
                                 spaces=types.SimpleNamespace(
                                     active=types.SimpleNamespace(region_3d=rv3d)))
    view = AN._view_of(types.SimpleNamespace(area=area, region=header))
    assert view.region is win and view.rv3d is rv3d
    e = types.SimpleNamespace(mouse_x=130, mouse_y=95, mouse_region_x=30, mouse_region_y=-505)
    np.testing.assert_allclose(view.xy(e), [30, 45])
    np.testing.assert_allclose(DE._xy(e, view), [30, 45])
    np.testing.assert_allclose(DE._xy(e), [30, -505])
    assert AN._view_of(types.SimpleNamespace(area=None, region=None)) is None
    other = types.SimpleNamespace(type='IMAGE_EDITOR')
    assert AN._view_of(types.SimpleNamespace(area=other, region=win)) is None


def test_drags_of_a_blender_parented_four_bar_hold_the_closure_and_cancel_exactly():
    """Links parented in Blender (through plain empties, scaled), every rotation mode, delta
    transforms: each update keeps the closure; cancel restores every channel bit for bit."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    obs, t2 = BS.parented_fourbar(SETTINGS)
    bridge = SceneBridge(bpy.context.scene)
    bridge.sync()
    before = state()
    s = D.DragSession(bridge, SETTINGS)
    s.begin_joint("A")
    for k in range(1, 6):
        st = s.update(t2 + 0.05 * k)
        assert st.converged and st.level("invariant").error < 1e-9
        bpy.context.view_layer.update()
        check = SceneBridge(bpy.context.scene)  # what the scene now says, read afresh
        check.sync()
        res = Solver(check.linkage, Settings(tol=1e-12)).solve(max_iterations=0)
        assert res.level("invariant").error < 1e-5  # float32 matrices of parented objects
        t3, t4 = BS.fourbar_angles(t2 + 0.05 * k)
        assert check.linkage.joint("D").q[0] == pytest.approx(t4, abs=1e-5)
    s.cancel()
    assert state() == before
    # a link drag of the coupler (carried by the tree): the closure still holds
    s = D.DragSession(bridge, SETTINGS)
    T0 = s.begin_link("coupler", mask=[True, True, True, False, False, False])
    st = s.update(DM.translated(T0, [0.1, 0.05, 0.0]))
    assert st.level("invariant").satisfied
    s.confirm()
    assert bridge.sync() is False  # the written links are re-read, nothing rebuilt
    for n, T in bridge.linkage.poses().items():
        M = np.array(obs[n].matrix_world, float)
        M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
        assert np.abs(M - T).max() < 1e-5, n
