"""Trajectory export and import from Blender (real bpy): :mod:`vart_addon.io_trajectory`.

Scenes: the six-axis test arm imported from URDF (velocity limits, a continuous wrist, mimic
fingers), keyed and baked; the gantry (planar and floating joints: multi-DoF columns); the
Blender-parented four-bar of the bake tests (a closure joint). Exports parse back (with
``load_trajectory``) to the F-curves' values; imports key the file's values and, after the
bake, every link sits where the keyed joint values put it. Refusals write and change nothing.
"""
from __future__ import annotations

import math
import os
import pathlib

import bpy
import numpy as np
import pytest

import blender_scenes as BS  # noqa: E402
from repo_paths import DATA
from vart_addon import io_trajectory as TB  # noqa: E402
from vart_addon.animation import bake as BK  # noqa: E402
from vart_addon.animation import keying as KY  # noqa: E402
from vart_addon.bridge import SceneBridge  # noqa: E402
from vart_addon.bridge import animation as A  # noqa: E402
from vart_addon.bridge import schema as S  # noqa: E402
from vart_addon.formats.trajectory import model as TR  # noqa: E402
from vart_addon.formats.trajectory.files import (  # noqa: E402
    format_of,
    load_trajectory,
    save_trajectory,
)
from vart_addon.io_urdf.importer import import_urdf  # noqa: E402
from vart_addon.solver import Settings, Solver  # noqa: E402

ARM6 = DATA / "arm6" / "arm6.urdf"
GANTRY = DATA / "gantry.urdf"
TIGHT = Settings(tol=1e-10, max_iterations=200)
from vart_addon.formats.trajectory.files import FORMATS  # noqa: E402  (every format of the table)


@pytest.fixture(autouse=True)
def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    yield


# ---- helpers ------------------------------------------------------------------------------
def child_of(joint):
    for ob in bpy.context.scene.objects:
        g = ob.get("vart")
        if g is not None and joint in g.get("joints", {}):
            return ob
    raise KeyError(joint)


def key(joint, frames, values, index=0, group="Vart"):
    ob = child_of(joint)
    fc = A.ensure_fcurve(ob, S.q_data_path(joint), index, group)
    A.write_keys(fc, frames, values)
    return fc


def arm():
    obs = import_urdf(ARM6, fixed_base=True)
    bpy.context.view_layer.update()
    return obs


def baked_arm(frames=25):
    """The arm, three joints keyed over 1..frames (linear), baked."""
    obs = arm()
    key("shoulder_pan", [1, frames], [0.0, 1.0])
    key("elbow", [1, 10, frames], [0.0, -1.0, -0.4])
    key("wrist_3", [1, frames], [0.0, 1.0])
    key("left_finger_joint", [1, frames], [0.0, 0.03])
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, frames
    res = BK.bake(scene, 1, frames, settings=TIGHT)
    assert res.unmet == {}
    return obs


def value_at(col, frame):
    """A column's value at a frame as the F-curve gives it (else the stored value)."""
    ob = child_of(col.joint)
    fc = A.find_fcurve(ob, S.q_data_path(col.joint), col.index)
    if fc is None:
        return ob["vart"]["joints"][col.joint]["q"][col.index]
    return fc.evaluate(frame)


def load(path, scene=None):
    """Parse an exported file back; a .path (the robot's Klampt configurations) is read for
    the scene and its joint columns put in the scene's order."""
    if str(path).endswith(".path"):
        scene = scene or bpy.context.scene
        got = TB.read_trajectory(path, scene)
        names = [c.name for c in TB.columns(scene) if not c.virtual]
        return got.columns([got.joint_names.index(n) for n in names])
    return load_trajectory(path)


def exported_columns(scene, ext):
    """The real joint columns an export to ``ext`` writes: every one, but for a controller's
    goal (an actuated format) no mimic follower."""
    fmt = format_of(f"m{ext}")
    data = S.read_scene(ob for ob in scene.objects if S.is_link(ob))
    return [c for c in TB.columns(scene) if not c.virtual
            and not (fmt.actuated and data.joints[c.joint].mimic is not None)]


MIMIC_FOLLOWERS = ["left_tip_joint", "right_finger_joint"]  # of left_finger_joint


def rigid(ob):
    M = np.array(ob.matrix_world, float)
    M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
    return M


def link_poses(scene):
    return {ob.name: rigid(ob) for ob in scene.objects if S.is_link(ob)}


def check_frame(scene, tol_pose=1e-5):
    """The links sit where the keyed joint values put them (closures hold)."""
    br = SceneBridge(scene)
    br.sync()
    st = Solver(br.linkage, Settings(tol=1e-12)).solve(max_iterations=0)
    assert st.level("invariant").error < 1e-5, st.level("invariant")
    fk = br.linkage.poses()
    for n, ob in br.objects().items():
        assert np.abs(fk[n] - rigid(ob)).max() < tol_pose, n


def snapshot(*paths):
    """Files (bytes or None), keys of every F-curve, link matrices and stored vart data."""
    files = {str(p): (pathlib.Path(p).read_bytes() if pathlib.Path(p).is_file() else
                      "dir" if pathlib.Path(p).is_dir() else None) for p in paths}
    obs = {}
    for ob in bpy.data.objects:
        raw = ob.get("vart")
        obs[ob.name] = (tuple(tuple(r) for r in ob.matrix_world),
                        repr(raw.to_dict() if hasattr(raw, "to_dict") else raw),
                        sorted((fc.data_path, fc.array_index, A.group_of(fc),
                                tuple(tuple(k.co) for k in fc.keyframe_points))
                               for fc in A.fcurves_of(ob)))
    return files, obs, len(bpy.data.actions), bpy.context.scene.frame_current


# ---- columns ------------------------------------------------------------------------------
def test_columns_have_kinds_limits_continuity_and_the_urdf_velocity_limits():
    arm()
    cols = {c.name: c for c in TB.columns(bpy.context.scene)}
    assert list(cols) == sorted(cols)  # sorted by joint name
    assert set(cols) == {"shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2",
                         "wrist_3", "left_finger_joint", "right_finger_joint",
                         "left_tip_joint"}  # fixed joints have no column
    pan, w3, finger = cols["shoulder_pan"], cols["wrist_3"], cols["left_finger_joint"]
    assert (pan.kind, pan.lower, pan.upper, pan.velocity, pan.continuous, pan.virtual) == \
        ("angular", -3.14159, 3.14159, 3.15, False, False)
    assert (w3.continuous, w3.lower, w3.upper, w3.velocity) == (True, -math.inf, math.inf, None)
    assert (finger.kind, finger.upper, finger.velocity) == ("linear", 0.04, 0.1)
    # a second import renames its joints (.001): they still find their URDF's limits
    arm()
    cols = {c.name: c for c in TB.columns(bpy.context.scene)}
    assert cols["shoulder_pan.001"].velocity == 3.15
    assert cols["left_finger_joint.001"].velocity == 0.1


def test_multi_dof_joints_give_one_column_per_dof_named_after_the_dof():
    import_urdf(GANTRY)
    cols = {c.name: c for c in TB.columns(bpy.context.scene)}
    assert [n for n in cols if n.startswith("slide")] == ["slide/tx", "slide/ty", "slide/rz"]
    assert [n for n in cols if n.startswith("fly")] == \
        ["fly/tx", "fly/ty", "fly/tz", "fly/wx", "fly/wy", "fly/wz"]
    assert [cols[f"slide/{d}"].kind for d in ("tx", "ty", "rz")] == \
        ["linear", "linear", "angular"]
    # an unlimited rotation about z is continuous; rotation vectors and lengths are not
    assert cols["slide/rz"].continuous and cols["probe_joint"].continuous
    assert not any(cols[n].continuous for n in ("slide/tx", "fly/wx", "fly/wz"))
    assert cols["x_axis"].velocity == 1.0 and cols["slide/rz"].velocity is None
    assert (cols["slide/tx"].index, cols["slide/rz"].index, cols["fly/wz"].index) == (0, 2, 5)


def test_velocity_limits_of_a_urdf_that_cannot_be_read_again_are_a_note():
    obs = arm()
    obs.collection["vart_urdf"] = {"file": "/nowhere/arm6.urdf", "text": ""}
    notes = []
    cols = TB.columns(bpy.context.scene, notes=notes)
    assert all(c.velocity is None for c in cols)
    assert len(notes) == 1 and "/nowhere/arm6.urdf" in notes[0]


# ---- export -------------------------------------------------------------------------------
@pytest.mark.parametrize("ext", FORMATS)
def test_a_baked_motion_exports_and_parses_back_to_the_fcurve_values(ext, tmp_path):
    baked_arm()
    scene = bpy.context.scene
    scene.frame_set(7)
    path = tmp_path / f"motion{ext}"
    before = snapshot()
    res = TB.export_trajectory(scene, path, every_frame=True)
    after = snapshot()
    assert after[1:] == before[1:]  # the scene is untouched (and the frame kept)
    assert (res.frame_start, res.frame_end, res.violations) == (1, 25, [])
    got = load(path)
    cols = exported_columns(scene, ext)
    assert list(got.joint_names) == [c.name for c in cols]
    if ext == ".csv":
        assert got.kinds == tuple(c.kind for c in cols)
    fps = scene.render.fps / scene.render.fps_base
    np.testing.assert_allclose(got.times, (np.arange(1, 26) - 1) / fps, atol=1e-9)
    want = np.array([[value_at(c, f) for c in cols] for f in range(1, 26)])
    np.testing.assert_allclose(got.positions, want, atol=1e-6, rtol=0)
    # the written trajectory is what the file holds (for a .path: Klampt configurations)
    raw = load_trajectory(path) if ext == ".path" else got
    np.testing.assert_allclose(res.written.positions, raw.positions, atol=1e-12)
    # the mimic fingers and the bake's own values are there: every joint moved as baked
    # (a controller's goal names their leader only: the controller commands that one)
    if format_of(path).actuated:
        assert not set(MIMIC_FOLLOWERS) & set(got.joint_names)
        assert any("left out: 2 mimic joints" in n for n in res.notes), res.notes
    else:
        k = got.joint_names.index("left_tip_joint")
        np.testing.assert_allclose(got.positions[:, k], 5.0 * want[:, cols.index(
            next(c for c in cols if c.name == "left_finger_joint"))] + 0.05, atol=1e-6)
    # the scene, stepped frame by frame, gives the same values as the F-curves
    by_scene = TB.sample_trajectory(scene, 1, 25, source="scene")
    by_curves = TB.sample_trajectory(scene, 1, 25, source="fcurves")
    np.testing.assert_allclose(by_scene.positions, by_curves.positions, atol=1e-7)
    assert scene.frame_current == 7


def test_decimated_waypoints_keep_every_joint_within_the_threshold(tmp_path):
    baked_arm(frames=40)
    scene = bpy.context.scene
    full = TR.unwrap(TR.select(TB.sample_trajectory(scene)))
    scene.frame_end = 40
    frame_motion = np.abs(np.diff(full.positions, axis=0)).max(axis=0)
    for angle, length in ((math.radians(2.0), 0.02), (math.radians(7.0), 0.004)):
        path = tmp_path / "dec.csv"
        res = TB.export_trajectory(scene, path, frame_start=1, frame_end=40, angle_step=angle,
                                   length_step=length)
        got = load(path)
        thr = np.where(np.array(full.kinds) == "angular", angle, length)
        idx = np.searchsorted(full.times, got.times)
        np.testing.assert_allclose(full.times[idx], got.times, atol=1e-12)
        assert idx[0] == 0 and idx[-1] == full.n_times - 1
        assert 2 < got.n_times < full.n_times
        np.testing.assert_allclose(got.positions, full.positions[idx], atol=1e-12)
        assert res.written.n_times == got.n_times
        for a, b in zip(idx[:-1], idx[1:]):
            moved = np.abs(full.positions[b] - full.positions[a])
            assert (moved <= thr + frame_motion + 1e-12).all()
            # the samples skipped stay within the threshold of the earlier waypoint
            skipped = np.abs(full.positions[a + 1:b] - full.positions[a])
            assert (skipped < thr).all()
    # every frame: one waypoint per frame
    TB.export_trajectory(scene, tmp_path / "all.csv", every_frame=True)
    assert load(tmp_path / "all.csv").n_times == 40


def test_continuous_joints_are_unwrapped_and_never_wrapped_to_pi(tmp_path):
    arm()
    scene = bpy.context.scene
    wraps = [0.0, 2.5, -2.0, -0.5, 1.0, 2.9, -3.0]  # +- pi jumps between frames
    key("wrist_3", range(1, 8), wraps)
    key("elbow", range(1, 8), [0.0, 2.5, -2.0, 0.0, 1.0, 2.5, -2.5])  # limited: as it is
    path = tmp_path / "cont.json"
    TB.export_trajectory(scene, path, frame_start=1, frame_end=7, every_frame=True, require_bake=False)
    got = load(path)
    w3 = got.positions[:, got.joint_names.index("wrist_3")]
    want = np.unwrap(np.array(wraps, np.float32).astype(float))
    np.testing.assert_allclose(w3, want, atol=1e-6)
    assert w3[-1] > 3 * math.pi  # never wrapped back into +-pi
    assert (np.abs(np.diff(w3)) <= math.pi).all()
    elbow = got.positions[:, got.joint_names.index("elbow")]
    np.testing.assert_allclose(elbow, [0.0, 2.5, -2.0, 0.0, 1.0, 2.5, -2.5], atol=1e-6)


def test_virtual_joints_are_left_out_unless_asked_for(tmp_path):
    arm()
    scene = bpy.context.scene
    base = next(ob for ob in scene.objects if ob.name == "base_link")
    S.write_joint(base, "tilt", "revolute", None, virtual=True, q=[0.25])
    bpy.context.view_layer.update()
    TB.export_trajectory(scene, tmp_path / "real.csv", frame_start=1, frame_end=3, require_bake=False)
    assert "tilt" not in load(tmp_path / "real.csv").joint_names
    res = TB.export_trajectory(scene, tmp_path / "all.csv", frame_start=1, frame_end=3,
                               include_virtual=True, require_bake=False)
    got = load_trajectory(tmp_path / "all.csv")
    assert "tilt" in got.joint_names and res.written.n_joints == 10
    np.testing.assert_allclose(got.positions[:, got.joint_names.index("tilt")], 0.25)


def test_limit_violations_are_reported_by_joint_and_time_and_the_file_is_written(tmp_path):
    arm()
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    key("elbow", [1, 11], [2.05, 3.05])          # above 2.6 from frame 7 on
    key("shoulder_pan", [1, 3], [0.0, 1.0])      # 12 rad/s > 3.15
    path = tmp_path / "over.csv"
    res = TB.export_trajectory(scene, path, frame_start=1, frame_end=12, require_bake=False)
    assert path.is_file()
    pos = [v for v in res.violations if v.kind == "position"]
    vel = [v for v in res.violations if v.kind == "velocity"]
    assert {v.joint for v in pos} == {"elbow"} and {v.joint for v in vel} == {"shoulder_pan"}
    assert min(v.time for v in pos) == pytest.approx(6 / fps)
    assert all(v.limit == 2.6 and v.value > 2.6 for v in pos)
    assert {round(v.time * fps) for v in vel} == {0, 1}
    assert all(v.limit == 3.15 and v.value == pytest.approx(0.5 * fps, rel=1e-6) for v in vel)
    lines = res.violation_lines()
    assert any(ln.startswith("elbow: position above 2.6 rad") for ln in lines)
    assert any(ln.startswith("shoulder_pan: velocity over 3.15 rad/s") for ln in lines)
    assert "limit violations on 2 joints" in res.summary()
    # refuse_violations: nothing written, an existing file untouched
    path.write_text("keep me")
    with pytest.raises(TB.TrajectoryError, match="not exported: .*elbow: position above"):
        TB.export_trajectory(scene, path, frame_start=1, frame_end=12, refuse_violations=True, require_bake=False)
    assert path.read_text() == "keep me"


def test_refusals_write_nothing_and_leave_an_existing_file_untouched(tmp_path):
    scene = bpy.context.scene
    old = tmp_path / "old.csv"
    old.write_text("old content\n")
    with pytest.raises(TB.TrajectoryError, match="nothing to export: the scene has no links"):
        TB.export_trajectory(scene, old, require_bake=False)
    # only virtual joints: nothing to export
    a = bpy.data.objects.new("a", None)
    scene.collection.objects.link(a)
    S.write_link(a, virtual=True)
    S.write_joint(a, "v", "prismatic", None, virtual=True)
    before = snapshot(old)
    with pytest.raises(TB.TrajectoryError, match="nothing to export: all 1 joints are virtual"):
        TB.export_trajectory(scene, old, require_bake=False)
    TB.export_trajectory(scene, tmp_path / "v.csv", include_virtual=True, frame_end=3, require_bake=False)
    assert snapshot(old)[0] == before[0]
    S.remove_link(a)
    baked_arm(frames=5)
    before = snapshot(old, tmp_path / "missing" / "x.csv", tmp_path / "adir.csv")
    (tmp_path / "adir.csv").mkdir()
    before = snapshot(old, tmp_path / "missing" / "x.csv", tmp_path / "adir.csv")
    with pytest.raises(TB.TrajectoryError, match="empty frame range: frame 4 is before frame 5"):
        TB.export_trajectory(scene, old, frame_start=5, frame_end=4)
    with pytest.raises(TB.TrajectoryError, match="cannot write trajectory .*missing"):
        TB.export_trajectory(scene, tmp_path / "missing" / "x.csv")
    with pytest.raises(TB.TrajectoryError, match="cannot write trajectory .*adir.csv"):
        TB.export_trajectory(scene, tmp_path / "adir.csv")
    with pytest.raises(TB.TrajectoryError, match="unknown trajectory format '.txt'"):
        TB.export_trajectory(scene, tmp_path / "x.txt")
    with pytest.raises(TB.TrajectoryError, match="angle_step must be a positive"):
        TB.export_trajectory(scene, old, angle_step=0.0)
    with pytest.raises(TB.TrajectoryError, match="frame_start must be a whole frame"):
        TB.export_trajectory(scene, old, frame_start=1.5)
    assert snapshot(old, tmp_path / "missing" / "x.csv", tmp_path / "adir.csv") == before
    assert sorted(os.listdir(tmp_path)) == ["adir.csv", "old.csv", "v.csv"]  # no temp files
    assert os.listdir(tmp_path / "adir.csv") == []


# ---- import -------------------------------------------------------------------------------
def clear_animation(scene):
    for ob in scene.objects:
        ob.animation_data_clear()


@pytest.mark.parametrize("ext", FORMATS)
def test_import_keys_the_file_values_and_the_links_follow_after_the_bake(ext, tmp_path):
    baked_arm()
    scene = bpy.context.scene
    before = {}
    for f in range(1, 26):
        scene.frame_set(f)
        before[f] = link_poses(scene)
    path = tmp_path / f"motion{ext}"
    TB.export_trajectory(scene, path, every_frame=True)
    clear_animation(scene)
    for jn in ("shoulder_pan", "elbow", "wrist_3"):  # somewhere else than the file
        S.update_joint(child_of(jn), jn, q=[0.3])
    scene.frame_set(1)
    res = TB.import_trajectory(scene, path, start_frame=11)
    assert scene.frame_current == 1
    traj = res.trajectory
    fps = scene.render.fps / scene.render.fps_base
    assert (res.first_frame, res.last_frame) == (11, 35)
    # the mimic followers are in the file, but follow the solve; a goal leaves them out
    goal = format_of(path).actuated
    assert res.missing_in_scene == [] and res.not_in_file == (MIMIC_FOLLOWERS if goal else [])
    assert res.follow_solve == ([] if goal else MIMIC_FOLLOWERS)
    assert res.bake is not None and res.bake_error == "" and res.bake.unmet == {}
    assert (res.bake.frame_start, res.bake.frame_end) == (11, 35)
    assert len(res.keyed) == 7 and res.keys == 7 * 25
    for name in res.keyed:
        fc = A.find_fcurve(child_of(name), S.q_data_path(name), 0)
        co = np.array([tuple(k.co) for k in fc.keyframe_points])
        np.testing.assert_allclose(co[:, 0], 11 + traj.times * fps, atol=1e-4)
        np.testing.assert_allclose(co[:, 1], traj.positions[:, traj.joint_names.index(name)],
                                   atol=1e-6)
        assert A.group_of(fc) == KY.JOINT_GROUP
        assert {k.interpolation for k in fc.keyframe_points} == {'LINEAR'}
    # the links follow: every frame where the keyed values put them, as they were baked
    for f in (11, 12, 20, 29, 35):
        scene.frame_set(f)
        check_frame(scene)
        now = link_poses(scene)
        for n, T in before[f - 10].items():
            assert np.abs(now[n] - T).max() < 1e-5, (f, n)
    assert "Imported" in res.summary() and "baked 25 frames" in res.summary()


def test_import_of_waypoints_between_frames_keys_them_there_and_bakes_every_frame(tmp_path):
    arm()
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    t = np.array([0.0, 0.3, 0.55, 1.0])
    traj = TR.Trajectory(["elbow", "shoulder_pan"], t, [[0, 0], [0.5, -0.2], [1.0, 0.1],
                                                        [0.2, 0.4]])
    path = tmp_path / "w.json"
    from vart_addon.formats.trajectory.files import save_trajectory
    save_trajectory(traj, path)
    res = TB.import_trajectory(scene, path, start_frame=1)
    fc = A.find_fcurve(child_of("elbow"), S.q_data_path("elbow"), 0)
    np.testing.assert_allclose([k.co[0] for k in fc.keyframe_points], 1 + t * fps, atol=1e-4)
    assert (res.bake.frame_start, res.bake.frame_end) == (1, 1 + math.ceil(fps))
    for f in (1, 5, 9, 14, 25):
        scene.frame_set(f)
        q = child_of("elbow")["vart"]["joints"]["elbow"]["q"][0]
        assert q == pytest.approx(np.interp((f - 1) / fps, t, [0, 0.5, 1.0, 0.2]), abs=1e-6)
        check_frame(scene)
    assert "shoulder_lift" in res.not_in_file and len(res.not_in_file) == 7


def test_import_onto_a_baked_scene_replaces_the_baked_curves_and_rebakes(tmp_path):
    obs, t2 = BS.parented_fourbar(TIGHT)
    scene = bpy.context.scene
    crank = obs["crank"]
    A.key_channels(crank, S.q_data_path("A"), 1)
    crank["vart"]["joints"]["A"]["q"] = [t2 + math.radians(30)]
    A.key_channels(crank, S.q_data_path("A"), 13)
    BK.bake(scene, 1, 13, settings=TIGHT)
    fcB = A.find_fcurve(obs["coupler"], S.q_data_path("B"), 0)
    assert A.group_of(fcB) == BK.BAKE_GROUP
    before = {}
    for f in range(1, 14):
        scene.frame_set(f)
        before[f] = link_poses(scene)
    path = tmp_path / "fourbar.csv"
    TB.export_trajectory(scene, path, frame_start=1, frame_end=13, every_frame=True)
    got = load(path)
    # the closure C is real but the exported URDF (a tree) has no C: a controller would
    # refuse a goal naming it (issue 32, item 6), so it is left out
    assert got.joint_names == ("A", "B", "D")
    # import it back over the baked curves: B and D become inputs, the loop closes again
    res = TB.import_trajectory(scene, path, start_frame=1, settings=TIGHT)
    assert res.follow_solve == [] and sorted(res.keyed) == ["A", "B", "D"]  # C: closed by the solve
    assert A.group_of(fcB) == KY.JOINT_GROUP
    assert len(fcB.keyframe_points) == 13
    assert res.bake.unmet == {} and len(res.bake.kept) == 3
    for f in (1, 6, 13):
        scene.frame_set(f)
        check_frame(scene)
        for n, T in link_poses(scene).items():
            assert np.abs(T - before[f][n]).max() < 1e-5


def test_import_without_bake_keys_only_the_file_joints(tmp_path):
    arm()
    scene = bpy.context.scene
    path = tmp_path / "two.csv"
    path.write_text("time_s,elbow [rad],ghost [rad]\n0,0.1,0\n0.5,0.2,0\n")
    before = {n: len(A.fcurves_of(bpy.data.objects[n])) for n in ("forearm", "upper_arm")}
    res = TB.import_trajectory(scene, path, start_frame=5, bake=False)
    assert res.bake is None and res.keyed == ["elbow"] and res.missing_in_scene == ["ghost"]
    assert len(res.not_in_file) == 8 and "shoulder_pan" in res.not_in_file
    assert any("ghost" in w for w in res.warnings())
    assert any("not in the file" in w for w in res.warnings())
    assert len(A.fcurves_of(bpy.data.objects["forearm"])) == before["forearm"] + 1
    assert len(A.fcurves_of(bpy.data.objects["upper_arm"])) == before["upper_arm"]


def test_import_refusals_change_nothing(tmp_path):
    scene = bpy.context.scene
    csv = tmp_path / "t.csv"
    csv.write_text("time_s,elbow [rad]\n0,0.1\n1,0.2\n")
    with pytest.raises(TB.TrajectoryError, match="no links"):
        TB.import_trajectory(scene, csv)
    arm()
    key("elbow", [1, 5], [0.0, 0.5])
    cases = {
        "ghost.csv": ("time_s,ghost [rad],phantom [m]\n0,1,2\n1,2,3\n",
                      "nothing to import: none of its 2 joint values is a joint of this scene"),
        "mimic.csv": ("time_s,left_tip_joint [rad]\n0,0.1\n1,0.2\n",
                      "closure or mimic joints"),
        "units.csv": ("time_s,elbow [m]\n0,0.1\n1,0.2\n",
                      "column 'elbow' is in \\[m\\] but joint 'elbow' of the scene is angular"),
        "count.path": ("0\t2 0.1 0.2\n1\t2 0.2 0.3\n", "milestones have 2 values, but the robot's "
                       "Klampt configuration has 17 entries and the scene has 9 real joint "
                       "values"),
        "bad.json": ('{"joint_names": ["elbow"], "points": [}', "bad.json: line 1"),
        "bad.csv": ("time_s,elbow [rad]\n0,abc\n", "'abc' is not a number"),
        "x.txt": ("whatever", "unknown trajectory format '.txt'"),
        # fixed defect (issue 19, defect 4): 1e300 was keyed as float32's max, the bake
        # failed and Import still finished with 900 keys
        "huge.csv": ("time_s,elbow [rad]\n0,0.1\n1,1e300\n",
                     r"column 'elbow' at t=1.0 s: 1e\+300 rad is beyond the 1e\+06 a scene "
                     "can hold; nothing was keyed"),
        "limits.csv": ("time_s,elbow [rad]\n0,0.1\n1,2.7\n2,2.8\n",
                       r"column 'elbow' at t=1.0 s: 2.7 rad is outside the joint's limits "
                       r"\[-2.6, 2.6\] \(2 samples\); nothing was keyed"),
    }
    before = snapshot()
    for name, (text, msg) in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(TB.TrajectoryError, match=msg):
            TB.import_trajectory(scene, tmp_path / name)
        assert snapshot() == before, name
    with pytest.raises(TB.TrajectoryError, match="cannot read trajectory .*nothing.csv"):
        TB.import_trajectory(scene, tmp_path / "nothing.csv")
    traj = TR.Trajectory(["elbow"], [0.0, 1e9], [[0.0], [1.0]])
    with pytest.raises(TB.TrajectoryError, match="beyond Blender's limits"):
        TB.apply_trajectory(scene, traj)
    assert snapshot() == before


def test_a_path_file_of_joint_columns_still_reads_the_virtual_ones_too(tmp_path):
    """A .path of the scene's joint columns (what vart wrote before the Klampt layout) reads
    by its count: every column, virtual ones included."""
    arm()
    scene = bpy.context.scene
    base = bpy.data.objects["base_link"]
    S.write_joint(base, "tilt", "revolute", None, virtual=True, q=[0.0])
    key("tilt", [1, 3], [0.0, 0.2])
    path = tmp_path / "all.path"
    every = TR.select(TB.sample_trajectory(scene, 1, 3), include_virtual=True)
    save_trajectory(every, path)
    traj = TB.read_trajectory(path, scene)
    assert "tilt" in traj.joint_names and traj.n_joints == 10
    assert traj.kinds[traj.joint_names.index("left_finger_joint")] == "linear"

def test_sampling_gives_what_blender_applies_muted_curves_and_nla_included():
    arm()
    scene = bpy.context.scene
    fc = key("elbow", [1, 5], [0.0, 0.4])
    fc.mute = True
    S.update_joint(child_of("elbow"), "elbow", q=[0.25])
    k = [c.name for c in TB.columns(scene)].index("elbow")
    for source in ("fcurves", "scene", "auto"):
        got = TB.sample_trajectory(scene, 1, 5, source=source)
        np.testing.assert_allclose(got.positions[:, k], 0.25)
    fc.mute = False
    # the action as an NLA strip from frame 11 (held before it): the F-curves alone no
    # longer tell the motion
    ad = child_of("elbow").animation_data
    ad.nla_tracks.new().strips.new("elbow", 11, ad.action)
    ad.action = None
    auto = TB.sample_trajectory(scene, 9, 16)
    by_scene = TB.sample_trajectory(scene, 9, 16, source="scene")
    np.testing.assert_array_equal(auto.positions, by_scene.positions)
    np.testing.assert_allclose(auto.positions[:, k], [0, 0, 0, .1, .2, .3, .4, .4],
                               atol=1e-6)
    assert scene.frame_current == 1
    with pytest.raises(TB.TrajectoryError, match="source must be one of"):
        TB.sample_trajectory(scene, 1, 5, source="guess")


def test_an_export_of_frames_no_bake_covers_is_refused_saying_what_to_do(tmp_path):
    arm()
    scene = bpy.context.scene
    key("elbow", [1, 10], [0.0, -1.0])
    path = tmp_path / "m.csv"
    with pytest.raises(TB.TrajectoryError, match=r"frames 1-10 of 1-10 are not baked.*Bake "
                       r"Range over 1-10"):
        TB.export_trajectory(scene, path, frame_start=1, frame_end=10)
    assert not path.exists()
    BK.bake(scene, 1, 6, settings=TIGHT)
    with pytest.raises(TB.TrajectoryError, match="frames 7-10 of 1-10 are not baked"):
        TB.export_trajectory(scene, path, frame_start=1, frame_end=10)
    assert not path.exists()
    TB.export_trajectory(scene, path, frame_start=1, frame_end=6)  # baked: written
    assert load(path).n_times > 1
