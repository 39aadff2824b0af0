"""Key Pose and Bake in real bpy (Blender 5.0 slotted actions).

The benchmark hexapod with its virtual tilt joint ``base_rx`` keyframed 0 -> 20 degrees is
baked; then, with no vart code running on frame changes, every frame's F-curve values must
close the feet (the solver's invariant residual evaluated on a linkage rebuilt from the keyed
values, < 1e-6) and the objects' matrices must sit where the keyed joint values put them
(< 1e-5: matrices are float32). A Blender-parented four-bar with every rotation mode, delta
transforms and scale checks the conversion to parent space. Empty ranges and scenes with
nothing animated are refused with nothing changed.
"""
from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

import blender_scenes as BS  # noqa: E402
from vart_addon.animation import bake as BK  # noqa: E402
from vart_addon.animation import bake_record as BR  # noqa: E402
from vart_addon.animation import keying as KP  # noqa: E402
from vart_addon.bridge import SceneBridge, fcurves_of, q_data_path  # noqa: E402
from vart_addon.bridge import animation as A  # noqa: E402
from vart_addon.bridge import schema as S
from vart_addon.solver import Settings, Solver, se3  # noqa: E402

needs_bench = pytest.mark.skipif(not BS.available(), reason="../shared/bench not present")
TIGHT = Settings(tol=1e-10, max_iterations=200)


@pytest.fixture(autouse=True)
def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    yield


def vart_handlers() -> list:
    return [f for hs in (bpy.app.handlers.frame_change_pre, bpy.app.handlers.frame_change_post,
                         bpy.app.handlers.depsgraph_update_post)
            for f in hs if "vart" in getattr(f, "__module__", "")]


def rigid(ob) -> np.ndarray:
    M = np.array(ob.matrix_world, float)
    M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
    return M


def check_frame(scene, tol_invariant=1e-6, tol_pose=1e-5):
    """The keyed values at the current frame: closures hold and matrices agree with them.
    Returns the fresh bridge."""
    br = SceneBridge(scene)
    br.sync()  # tree joints take their keyed q, free links their keyed matrices
    st = Solver(br.linkage, Settings(tol=1e-12)).solve(max_iterations=0)
    assert st.level("invariant").error < tol_invariant, st.level("invariant")
    fk = br.linkage.poses()
    for n, ob in br.objects().items():
        assert np.abs(fk[n] - rigid(ob)).max() < tol_pose, n
    return br


def hexapod_with_tilt(frames=(1, 12)):
    """The hexapod, ``base_rx`` keyed from its value to +20 degrees (Bezier)."""
    prob, obs = BS.hexapod_scene()
    br = SceneBridge()
    br.solve(TIGHT)
    br.write_back()
    deck = obs["deck"]
    g = deck["vart"]["joints"]["base_rx"]
    q0 = g["q"][0]
    A.key_channels(deck, q_data_path("base_rx"), frames[0])
    g["q"] = [q0 + math.radians(20)]
    A.key_channels(deck, q_data_path("base_rx"), frames[1])
    bpy.context.scene.frame_set(frames[0])
    return prob, obs, q0


# ---- bake -------------------------------------------------------------------------------------
@needs_bench
def test_bake_of_a_keyframed_virtual_joint_closes_the_feet_at_every_frame():
    prob, obs, q0 = hexapod_with_tilt()
    scene = bpy.context.scene
    scene.frame_set(5)
    bridge = SceneBridge(scene)
    bridge.sync()
    res = BK.bake(scene, 1, 12, settings=TIGHT, bridge=bridge)
    assert scene.frame_current == 5  # back where it was
    # the bridge's linkage is kept (no rebuild), free of the bake's goals, and in step again
    assert bridge.rebuilds == 1 and bridge.sync() is False
    assert bridge.linkage.joint("base_rx").target_q is None
    check = SceneBridge(scene)
    check.sync()
    for n, T in check.linkage.poses().items():
        assert np.abs(T - bridge.linkage.pose(n)).max() < 1e-6
    assert res.unmet == {} and res.stuck == {}
    assert res.inputs == ["q of joint 'base_rx'"]
    assert res.kept == ['deck: ["vart"]["joints"]["base_rx"]["q"][0]']  # met: left as keyed
    assert res.links == len(obs) and res.frames == 12
    n_joints = sum(1 for j in BS.vb.BenchProblem("P1_hexapod").lk.joints.values() if j.dof)
    assert res.joints == n_joints - 1
    # every link: location and Euler rotation baked, 12 linear GENERATED keys, in the group
    for ob in obs.values():
        curves = {(fc.data_path, fc.array_index): fc for fc in fcurves_of(ob)}
        for path in ("location", "rotation_euler"):
            for i in range(3):
                fc = curves[(path, i)]
                assert A.group_of(fc) == BK.BAKE_GROUP
                kp = fc.keyframe_points
                assert [k.co[0] for k in kp] == list(range(1, 13))
                assert {k.interpolation for k in kp} == {'LINEAR'}
                assert {k.type for k in kp} == {'GENERATED'}
    user = A.find_fcurve(obs["deck"], q_data_path("base_rx"))
    assert len(user.keyframe_points) == 2 and A.group_of(user) != BK.BAKE_GROUP
    # playback needs no solver
    assert vart_handlers() == []
    fc = A.find_fcurve(obs["deck"], q_data_path("base_rx"))
    pins = {h["frame"]: np.array(h["world"]) for h in prob.hard}
    for f in range(1, 13):
        scene.frame_set(f)
        check_frame(scene)
        assert obs["deck"]["vart"]["joints"]["base_rx"]["q"][0] == pytest.approx(
            fc.evaluate(f), abs=1e-7)
        for foot, w in pins.items():
            assert np.abs(np.array(obs[foot].matrix_world)[:3, 3] - w).max() < 1e-5
    scene.frame_set(12)
    assert obs["deck"]["vart"]["joints"]["base_rx"]["q"][0] == pytest.approx(
        q0 + math.radians(20), abs=1e-6)


@needs_bench
def test_rebaking_part_of_a_bake_takes_it_over_and_a_separate_bake_is_kept_and_reported():
    """A bake owns its range: re-baking 5-8 of a bake of 1-12 removes that bake's keys on
    1-4 and 9-12 (they would be exported as if current); a bake of 20-22 overlaps nothing, so
    5-8 stays and the result says so."""
    prob, obs, q0 = hexapod_with_tilt((1, 12))
    scene = bpy.context.scene
    BK.bake(scene, 1, 12, settings=TIGHT)
    fc = A.find_fcurve(obs["leg0_l2"], "location", 0)
    first = [tuple(k.co) for k in fc.keyframe_points]
    assert [c[0] for c in first] == list(range(1, 13))
    res = BK.bake(scene, 5, 8, settings=TIGHT)
    assert res.unmet == {} and res.others == []
    assert BR.baked_ranges(scene) == [(5, 8)]
    fc = A.find_fcurve(obs["leg0_l2"], "location", 0)
    again = [tuple(k.co) for k in fc.keyframe_points]
    assert [c[0] for c in again] == [5, 6, 7, 8]
    # each frame's pose depends on the previous one's only: the same keys as before
    np.testing.assert_allclose(np.array(again), np.array(first[4:8]), atol=1e-6)
    for ob in obs.values():
        for c in fcurves_of(ob):
            if A.group_of(c) == A.BAKE_GROUP:
                assert {round(k.co[0]) for k in c.keyframe_points} == {5, 6, 7, 8}, c.data_path
    for f in (5, 8):
        scene.frame_set(f)
        check_frame(scene)
    res = BK.bake(scene, 20, 22, settings=TIGHT)
    assert res.others == [(5, 8)]
    assert "keys of earlier bakes remain on frames 5-8" in res.summary()
    assert BR.baked_ranges(scene) == [(5, 8), (20, 22)]
    assert BR.uncovered(scene, 1, 25) == [(1, 4), (9, 19), (23, 25)]
    assert BR.uncovered(scene, 5, 8) == [] and BR.uncovered(scene, 20, 21) == []


@needs_bench
def test_unreachable_animation_is_reported_by_frame_and_goal_and_closures_win():
    prob, obs, q0 = hexapod_with_tilt((1, 6))
    scene = bpy.context.scene
    v = obs["v_pz"]
    g = v["vart"]["joints"]["base_pz"]
    z0 = g["q"][0]
    A.key_channels(v, q_data_path("base_pz"), 3)
    g["q"] = [z0 + 2.5]  # the deck 2.5 m up: the legs cannot reach the ground any more
    A.key_channels(v, q_data_path("base_pz"), 4)
    g["q"] = [z0]
    A.key_channels(v, q_data_path("base_pz"), 5)
    res = BK.bake(scene, 1, 6, settings=TIGHT)
    goals = res.goals_unmet()
    assert list(goals) == ["target of joint 'base_pz'"] or \
        set(goals) >= {"target of joint 'base_pz'"}
    assert 4 in goals["target of joint 'base_pz'"] and 1 not in res.unmet
    assert "Goals unmet on" in res.summary() and "target of joint 'base_pz'" in res.summary()
    st = res.level_status()
    assert not st.level("target").satisfied and st.level("invariant").satisfied
    assert any(u.startswith("target of joint 'base_pz' (frames ") for u in
               st.level("target").unmet)
    # an unmet input is overwritten with what the bake found
    assert not any("base_pz" in k for k in res.kept)
    for f in range(1, 7):
        scene.frame_set(f)
        check_frame(scene)


@needs_bench
def test_bake_operator_reports_and_stores_the_status(opkit):
    prob, obs, q0 = hexapod_with_tilt((1, 4))
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 4
    assert bpy.ops.vart.bake() == {'FINISHED'}
    assert scene.vart.status_summary.startswith("Baked frames 1-4 (4 frames")
    rows = {r.name: r for r in scene.vart.status_levels}
    assert rows["invariant"].active and rows["invariant"].satisfied
    assert rows["target"].unmet == ""
    scene.frame_set(3)
    check_frame(scene)


# ---- refusals: nothing changes ------------------------------------------------------------------
def snapshot():
    """The scene snapshot plus every object's keys, the actions and the current frame."""
    keys = {ob.name: [(fc.data_path, fc.array_index, [tuple(k.co) for k in fc.keyframe_points])
                      for fc in fcurves_of(ob)] for ob in bpy.data.objects}
    return BS.scene_snapshot(), keys, len(bpy.data.actions), bpy.context.scene.frame_current


def test_empty_range_and_nothing_to_bake_are_refused_with_nothing_changed(opkit):
    scene = bpy.context.scene
    with pytest.raises(BK.BakeError, match="no links"):
        BK.bake(scene, 1, 10)
    a, b = opkit.cube("a"), opkit.cube("b")
    opkit.place(b, se3.make_pose(None, [2, 0, 0]))
    S.write_link(a, root_tree=False)
    S.write_link(b, root_tree=False)
    S.write_joint(a, "hinge", "revolute", None)
    S.write_joint(b, "slide", "prismatic", a, T_parent_mob=se3.make_pose(None, [2, 0, 0]))
    bpy.context.view_layer.update()
    before = snapshot()
    with pytest.raises(BK.BakeError, match="nothing is animated"):
        BK.bake(scene, 1, 10)
    assert snapshot() == before
    with pytest.raises(RuntimeError, match="nothing is animated"):
        bpy.ops.vart.bake(frame_start=1, frame_end=10)
    assert snapshot() == before
    A.key_channels(a, q_data_path("hinge"), 1)
    before = snapshot()
    with pytest.raises(BK.BakeError, match="empty frame range"):
        BK.bake(scene, 10, 5)
    with pytest.raises(RuntimeError, match="empty frame range"):
        bpy.ops.vart.bake(frame_start=10, frame_end=5)
    assert snapshot() == before
    # a scene that fails validation is refused before anything happens
    b["vart"]["joints"]["slide"]["q"] = [float("nan")]
    before = snapshot()
    with pytest.raises(RuntimeError, match="slide"):
        bpy.ops.vart.bake(frame_start=1, frame_end=3)
    assert snapshot() == before


# ---- key pose ---------------------------------------------------------------------------------
def test_key_pose_keys_every_link_and_joint_once(opkit):
    scene = bpy.context.scene
    a, b = opkit.cube("a"), opkit.cube("b")
    b.rotation_mode = 'QUATERNION'
    opkit.place(b, se3.make_pose(se3.rot_z(0.4), [2, 0, 0]))
    S.write_link(a, root_tree=False)
    S.write_link(b, root_tree=False)
    S.write_joint(a, "hinge", "revolute", None, q=[0.0])
    S.write_joint(b, "ball", "spherical", a, T_parent_mob=se3.make_pose(None, [2, 0, 0]),
                  q=[0.0, 0.0, 0.4])
    S.write_joint(b, "weld", "fixed", None, tree=False)
    bpy.context.view_layer.update()
    scene.frame_set(3)
    assert bpy.ops.vart.key_pose() == {'FINISHED'}
    assert bpy.ops.vart.key_pose() == {'FINISHED'}  # the same frame again: replaced, not added

    def keys(ob):
        return sorted((fc.data_path, fc.array_index, tuple(k.co[0] for k in fc.keyframe_points))
                      for fc in fcurves_of(ob))
    assert keys(a) == sorted([("location", i, (3.0,)) for i in range(3)]
                             + [("rotation_euler", i, (3.0,)) for i in range(3)]
                             + [(q_data_path("hinge"), 0, (3.0,))])
    assert keys(b) == sorted([("location", i, (3.0,)) for i in range(3)]
                             + [("rotation_quaternion", i, (3.0,)) for i in range(4)]
                             + [(q_data_path("ball"), i, (3.0,)) for i in range(3)])
    fc = A.find_fcurve(b, "rotation_quaternion", 3)
    assert fc.keyframe_points[0].co[1] == pytest.approx(b.rotation_quaternion[3])
    assert A.group_of(fc) == KP.TRANSFORM_GROUP
    assert A.group_of(A.find_fcurve(b, q_data_path("ball"), 0)) == KP.JOINT_GROUP
    scene.frame_set(8)
    res = KP.key_pose(scene)
    assert res.frame == 8.0 and res.links == ["a", "b"] and res.joints == ["ball", "hinge"]
    assert all(len(fc.keyframe_points) == 2 for fc in fcurves_of(a))


def test_key_pose_with_no_links_says_so(opkit):
    assert bpy.ops.vart.key_pose() == {'CANCELLED'}  # with a warning: nothing to key
    assert len(bpy.data.actions) == 0


# ---- the bulk writer ----------------------------------------------------------------------------
def test_write_keys_replaces_keys_in_the_range_and_keeps_the_others():
    ob = bpy.data.objects.new("E", None)
    bpy.context.scene.collection.objects.link(ob)
    fc = A.ensure_fcurve(ob, "location", 1, "G")
    assert A.ensure_fcurve(ob, "location", 1, "other") == fc and A.group_of(fc) == "G"
    if A.slotted_actions():  # Blender >= 4.4: a slot was made for it
        assert ob.animation_data.action_slot is not None
    assert A.write_keys(fc, [1, 2, 3, 10], [0.0, 1.0, 2.0, 9.0],
                        interpolation="BEZIER", key_type="KEYFRAME") == 4
    n = A.write_keys(fc, np.arange(2, 6), np.array([5.0, 6.0, 7.0, 8.0]))
    assert n == 4
    kp = fc.keyframe_points
    assert [tuple(k.co) for k in kp] == [(1, 0), (2, 5), (3, 6), (4, 7), (5, 8), (10, 9)]
    assert [k.interpolation for k in kp] == ['BEZIER', 'LINEAR', 'LINEAR', 'LINEAR',
                                             'LINEAR', 'BEZIER']
    assert [k.type for k in kp] == ['KEYFRAME'] + ['KEYFRAME'] * 4 + ['KEYFRAME']
    A.write_keys(fc, [1, 10], [3.0, 4.0], key_type="GENERATED")  # everything in [1, 10]
    assert [tuple(k.co) for k in kp] == [(1, 3), (10, 4)]
    assert {k.type for k in kp} == {'GENERATED'}
    bpy.context.scene.frame_set(4)
    assert ob.location[1] == pytest.approx(3.0 + 3 / 9)
    with pytest.raises(ValueError):
        A.write_keys(fc, [1, 2], [1.0])


# ---- parenting, rotation modes, deltas, scale -------------------------------------------------
def parented_fourbar(opkit=None):
    """See :func:`blender_scenes.parented_fourbar`."""
    return BS.parented_fourbar(TIGHT)


fourbar_angles = BS.fourbar_angles


keyed_fourbar = BS.keyed_fourbar
curve_counts = BS.curve_counts


def test_bake_keys_parented_links_in_their_parents_space_in_every_rotation_mode(opkit):
    obs, t2 = parented_fourbar(opkit)
    scene = bpy.context.scene
    crank = obs["crank"]
    A.key_channels(crank, q_data_path("A"), 1)
    crank["vart"]["joints"]["A"]["q"] = [t2 + math.radians(20)]
    A.key_channels(crank, q_data_path("A"), 9)
    res = BK.bake(scene, 1, 9, settings=TIGHT)
    assert res.unmet == {}
    assert {(fc.data_path, fc.array_index) for fc in fcurves_of(obs["coupler"])} >= \
        {("rotation_axis_angle", i) for i in range(4)}
    assert A.find_fcurve(obs["crank"], "rotation_quaternion", 0) is not None
    assert A.find_fcurve(obs["rocker"], "rotation_euler", 2) is not None
    scales = {n: tuple(ob.scale) for n, ob in obs.items()}
    for f in range(1, 10):
        scene.frame_set(f)
        br = check_frame(scene)
        # the crank turned by the keyed amount; coupler and rocker as the analytic four-bar
        t = crank["vart"]["joints"]["A"]["q"][0]
        t3, t4 = fourbar_angles(t)
        lk = br.linkage
        assert lk.joint("B").q[0] == pytest.approx(t3 - t, abs=1e-5)
        assert lk.joint("D").q[0] == pytest.approx(t4, abs=1e-5)
        assert {n: tuple(ob.scale) for n, ob in obs.items()} == scales


def test_an_animated_closure_target_is_followed_frame_by_frame(opkit):
    """A closure's q is output only; its animated target drives the bake (the bridge re-reads
    the stored goals at every frame)."""
    from vart_addon.drag.session import DragSession
    obs, t2 = parented_fourbar(opkit)
    scene = bpy.context.scene
    rocker = obs["rocker"]
    br = SceneBridge(scene)
    br.sync()
    c0 = float(br.linkage.joint_q(br.linkage.joint("C"))[0])
    # operating the closure with auto-keying keys its target (and what moved)
    scene.tool_settings.use_keyframe_insert_auto = True
    scene.frame_set(1)
    s = DragSession(br, TIGHT)
    s.begin_joint("C")
    s.update(c0)
    s.confirm()
    path = KP.joint_data_path("C", "target_q")
    fc = A.find_fcurve(rocker, path)
    assert fc is not None and [k.co[0] for k in fc.keyframe_points] == [1.0]
    scene.tool_settings.use_keyframe_insert_auto = False
    S.update_joint(rocker, "C", target_q=[c0 + 0.3])
    A.key_channels(rocker, path, 9)
    res = BK.bake(scene, 1, 9, settings=TIGHT)
    assert res.inputs == ["other vart properties"] and res.unmet == {}
    assert A.find_fcurve(rocker, q_data_path("C")) is not None  # the closure's q is baked
    for f in range(1, 10):
        scene.frame_set(f)
        br = check_frame(scene)
        got = br.linkage.joint_q(br.linkage.joint("C"))[0]
        assert got == pytest.approx(fc.evaluate(f), abs=1e-5)
        assert rocker["vart"]["joints"]["C"]["q"][0] == pytest.approx(got, abs=1e-6)


@needs_bench
def test_an_animated_link_location_is_a_position_target_and_its_keys_stay():
    prob, obs = BS.hexapod_scene()
    br = SceneBridge()
    br.solve(TIGHT)
    br.write_back()
    scene = bpy.context.scene
    h = obs["deck_handle"]
    p0 = np.array(h.location)
    A.key_channels(h, "location", 1)
    h.location = tuple(p0 + [0.0, 0.08, -0.05])
    A.key_channels(h, "location", 6)
    res = BK.bake(scene, 1, 6, settings=TIGHT)
    assert res.inputs == ["transform of link 'deck_handle'"]
    assert res.unmet == {} and res.input_error["target of root joint of link 'deck_handle'"] \
        < 1e-6
    assert sorted(res.kept) == [f"deck_handle: location[{i}]" for i in range(3)]
    assert A.group_of(A.find_fcurve(h, "rotation_euler", 0)) == BK.BAKE_GROUP
    pins = {c["frame"]: np.array(c["world"]) for c in prob.hard}
    for f in range(1, 7):
        scene.frame_set(f)
        check_frame(scene)
        fc = [A.find_fcurve(h, "location", i) for i in range(3)]
        np.testing.assert_allclose(np.array(h.matrix_world)[:3, 3],
                                   [c.evaluate(f) for c in fc], atol=1e-5)
        for foot, w in pins.items():
            assert np.abs(np.array(obs[foot].matrix_world)[:3, 3] - w).max() < 1e-5


# ---- the user's frame is kept -----------------------------------------------------------------
def test_a_bake_that_fails_while_keying_leaves_the_scene_on_the_users_frame(monkeypatch):
    obs = keyed_fourbar(9, 20)
    scene = bpy.context.scene
    crank = obs["crank"]
    scene.frame_set(4, subframe=0.25)
    keys_before = {fc.data_path: len(fc.keyframe_points) for fc in fcurves_of(crank)}

    def keying_fails(*args, **kwargs):
        assert scene.frame_current == 9  # the solve loop ended on the last frame
        raise RuntimeError("injected failure while keying")

    monkeypatch.setattr(BK, "write_baked", keying_fails)
    with pytest.raises(RuntimeError, match="injected failure while keying"):
        BK.bake(scene, 1, 9, settings=TIGHT)
    assert (scene.frame_current, scene.frame_subframe) == (4, pytest.approx(0.25))
    assert {fc.data_path: len(fc.keyframe_points) for fc in fcurves_of(crank)} == keys_before


def test_kept_frame_restores_frame_and_subframe_after_success_and_error():
    from vart_addon.shared.frames import kept_frame
    scene = bpy.context.scene
    scene.frame_set(3, subframe=0.5)
    with kept_frame(scene) as kept:
        assert kept == (3, pytest.approx(0.5))
        scene.frame_set(17)
    assert (scene.frame_current, scene.frame_subframe) == (3, pytest.approx(0.5))
    with pytest.raises(ZeroDivisionError):
        with kept_frame(scene):
            scene.frame_set(30)
            _ = 1 / 0
    assert (scene.frame_current, scene.frame_subframe) == (3, pytest.approx(0.5))


# ---- the bake operator with a window: progress and Esc ------------------------------------------
class _ModalOp:
    """The bake operator's own functions bound to a plain object (a window's events are
    simulated: headless Blender has no window, so invoke() would bake at once)."""

    def __init__(self, frame_start, frame_end):
        from vart_addon.operators.animate import VART_OT_bake
        self.reports, self.frame_start, self.frame_end, self._timer = [], frame_start, \
            frame_end, None
        self.verb = VART_OT_bake.verb
        for name in ("_start", "_then_check", "modal", "_end", "_finish", "_stopped_text"):
            setattr(self, name, getattr(VART_OT_bake, name).__get__(self))

    def report(self, kind, text):
        self.reports.append((set(kind), text))


def _window_context():
    import types
    progress, headers = [], []
    wm = types.SimpleNamespace(progress_begin=lambda a, b: progress.append(("begin", b)),
                               progress_update=lambda v: progress.append(("update", v)),
                               progress_end=lambda: progress.append(("end",)),
                               event_timer_remove=lambda t: None)
    area = types.SimpleNamespace(header_text_set=headers.append)
    return types.SimpleNamespace(scene=bpy.context.scene, window_manager=wm,
                                 area=area), progress, headers


def test_esc_stops_a_bake_cleanly_and_the_progress_shows(vart_registered):
    """Issue 19, item 10: a long bake shows progress and Esc stops it with nothing keyed,
    the bridge released and the user's frame restored; left alone, it finishes."""
    import types
    obs = keyed_fourbar(40, 20)
    scene = bpy.context.scene
    scene.vart.check_after_bake = False  # the bake's steps alone (with the checks: below)
    scene.frame_set(7)
    keys = curve_counts(obs)
    timer, esc = types.SimpleNamespace(type='TIMER'), types.SimpleNamespace(type='ESC')

    ctx, progress, headers = _window_context()
    op = _ModalOp(1, 40)
    op._start(ctx)
    assert progress == [("begin", 40)] and op._done == 1
    assert op.modal(ctx, types.SimpleNamespace(type='MOUSEMOVE')) == {'RUNNING_MODAL'}
    assert op.modal(ctx, esc) == {'CANCELLED'}
    assert progress[-1] == ("end",) and headers[-1] is None
    assert "nothing was keyed" in op.reports[-1][1]
    assert scene.frame_current == 7
    assert curve_counts(obs) == keys  # nothing keyed

    ctx, progress, headers = _window_context()
    op = _ModalOp(1, 40)
    op._start(ctx)
    result = {'RUNNING_MODAL'}
    ticks = 0
    while result == {'RUNNING_MODAL'}:
        result, ticks = op.modal(ctx, timer), ticks + 1
    assert result == {'FINISHED'} and ticks >= 1
    assert ("update", 40) in progress and progress[-1] == ("end",)
    assert any("Baking: frame" in h for h in headers if h) or ticks == 1
    assert scene.vart.bake_summary.startswith("Baked frames 1-40")
    assert scene.frame_current == 7
    assert len(fcurves_of(obs["coupler"])) > keys["coupler"]  # now keyed


def test_check_after_bake_follows_the_bake_in_its_steps_and_esc_keeps_the_bake(
        vart_registered, monkeypatch):
    """Issue 30, item 3: with Check After Bake, Will It Run? runs in the bake's own steps
    (one progress bar over three times the frames: the bake, clearance, statics) and the
    bake's report says what fails (story 2 with leg 0's wheel on the ground, dragged 1.3 m);
    Esc during the checks keeps the keys of the bake."""
    import types

    from vart_addon.examples import stories
    timer, esc = types.SimpleNamespace(type='TIMER'), types.SimpleNamespace(type='ESC')
    monkeypatch.setattr(stories, "TRENCH_CLEARANCE", 0.0)
    assert bpy.ops.vart.add_example(example="trenching") == {'FINISHED'}
    scene = bpy.context.scene
    assert scene.vart.check_after_bake  # the default
    scene.frame_set(7)
    ctx, progress, _ = _window_context()
    op = _ModalOp(1, 48)
    op._start(ctx)
    assert progress == [("begin", 144)]
    while op._done < 60:  # into the clearance check
        op._done, _ = next(op._steps)
    assert op.modal(ctx, esc) == {'CANCELLED'}
    assert op.reports[-1][1] == "Baked 48 frames; Will It Run? stopped after the bake (not checked)"
    assert scene.frame_current == 7 and scene.vart.statics_summary == ""
    deck = scene.objects["deck"]
    assert len(fcurves_of(deck)) > 0  # baked
    ctx, progress, _ = _window_context()
    op = _ModalOp(1, 48)
    op._start(ctx)
    result = {'RUNNING_MODAL'}
    while result == {'RUNNING_MODAL'}:
        result = op.modal(ctx, timer)
    assert result == {'FINISHED'} and ("update", 144) in progress
    kinds = [k for k, _ in op.reports]
    texts = [t for _, t in op.reports]
    assert texts[-1].startswith("Will it run? The baked motion fails: Statics of 48 frames")
    assert "1300.0 mm (ground under leg0_wheel)" in texts[-1] and {'WARNING'} in kinds
    assert scene.vart.statics_summary and len(scene.vart.statics_rows) > 0



def test_a_bake_the_checks_cannot_read_stands_and_says_why(vart_registered):
    """A mechanism of virtual links only (no robot): the statics refuses it; the bake is
    kept and its report says why Will It Run? did not run."""
    import types
    obs = keyed_fourbar(10, 20)
    for ob in obs.values():
        S.update_link(ob, virtual=True)
    ctx, _, _ = _window_context()
    op = _ModalOp(1, 10)
    op._start(ctx)
    result = {'RUNNING_MODAL'}
    while result == {'RUNNING_MODAL'}:
        result = op.modal(ctx, types.SimpleNamespace(type='TIMER'))
    assert result == {'FINISHED'}
    assert op.reports[-1] == ({'WARNING'}, "Will it run? not checked: the statics needs a "
                              "robot: the linkage has no real link")
    assert len(fcurves_of(obs["coupler"])) > 0


@pytest.mark.parametrize("kind", ["VERTEX", "VERTEX_3"])
def test_a_link_hanging_from_a_link_through_a_vertex_parent_is_refused(kind):
    """Issue 19, item 12: the bake's refusal of a link parented through a vertex (or bone)
    parent, with nothing keyed and the frame kept."""
    from vart_addon.bridge import BridgeError
    obs = keyed_fourbar(5, 10)
    scene = bpy.context.scene
    coupler = obs["coupler"]
    coupler.parent_type = kind
    coupler.parent_vertices = (0, 1, 2)
    bpy.context.view_layer.update()
    scene.frame_set(3)
    curves = curve_counts(obs)
    with pytest.raises(BridgeError, match=f"link 'coupler' hangs from link 'crank' through a "
                                          f"{kind.lower()} parent"):
        BK.bake(scene, 1, 5, settings=TIGHT)
    assert curve_counts(obs) == curves
    assert scene.frame_current == 3


def test_a_bake_refusing_an_animated_structure_leaves_the_bridge_as_it_was():
    """Issue 19, item 11: the bake aborted because a joint's frame is keyed to change (the
    structure is animated): nothing keyed, the frame kept, and the bridge released: its
    linkage free of the bake's goals and in step with the scene, solving as before."""
    obs = keyed_fourbar(5, 10)
    scene = bpy.context.scene
    coupler = obs["coupler"]
    group = coupler["vart"]["joints"]["B"]
    path = q_data_path("B")[:-len('["q"]')] + '["pitch"]'  # a structure field, keyed to change
    coupler.keyframe_insert(data_path=path, frame=1)
    group["pitch"] = 0.5
    coupler.keyframe_insert(data_path=path, frame=3)
    group["pitch"] = 0.0
    scene.frame_set(1)
    bridge = SceneBridge(scene)
    bridge.sync()
    curves = curve_counts(obs)
    with pytest.raises(BK.BakeError, match="the mechanism's structure is animated"):
        BK.bake(scene, 1, 5, settings=TIGHT, bridge=bridge)
    assert scene.frame_current == 1
    assert curve_counts(obs) == curves
    assert bridge.linkage is None or (bridge.linkage.joint("A").target_q is None
                                      and bridge.sync() is False)
    assert bridge.solve().converged
