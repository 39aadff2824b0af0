"""Live mode (issue 21) in real bpy: keyed motion shown frame by frame without a bake, the
same as the bake at every frame of the four stories, remembered frames forgotten exactly as
far as an edit reaches, unmet goals marked, errors kept out of playback, a headless render
of the solved poses."""
from __future__ import annotations

import math

import bpy
import numpy as np
import pytest

from repo_paths import load_script
from vart_addon import examples as X
from vart_addon.animation import live
from vart_addon.animation.frame_step import FrameSolver
from vart_addon.bridge import animation as A
from vart_addon.bridge import schema as S
from vart_addon.bridge import sublinkages as SL
from vart_addon.shared.bridge_cache import bridge_for, solve_kw

N = X.STORY_FRAMES
STORIES = ("camera_tilt", "trenching", "inspection", "pinch")
#: float32 matrices and keys: poses agree to about 1e-7 relative (metres, a few metres)
POSE_TOL = 1e-5


def add(key):
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    return bpy.context.scene


def state(scene) -> tuple[dict, dict]:
    """Every link's rigid world pose and every joint's stored q, as the scene shows them."""
    poses, qs = {}, {}
    for ob in scene.objects:
        if S.is_link(ob):
            M = np.array(ob.matrix_world, dtype=float)
            M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
            poses[ob.name] = M
            for jn, g in ob[S.KEY].get("joints", {}).items():
                qs[jn] = np.array(g["q"], dtype=float)
    return poses, qs


def at(scene, frame):
    scene.frame_set(frame)
    return state(scene)


def gap(a: tuple, b: tuple) -> float:
    """Largest difference of two :func:`state` (pose entries, m or rotation; q, m or rad)."""
    worst = max((float(np.abs(a[0][n] - b[0][n]).max()) for n in a[0]), default=0.0)
    return max(worst, max((float(np.abs(a[1][n] - b[1][n]).max()) for n in a[1]
                           if a[1][n].size), default=0.0))


def tilt_curve():
    return A.q_fcurves(bpy.data.objects["deck"], "tilt")[0]


def test_scrubbing_after_keying_shows_the_keyed_motion(vart_registered):
    scene = add("camera_tilt")
    assert scene.vart.live is False  # off by default
    cam1 = np.array(bpy.data.objects["camera"].matrix_world)[:3, :3]
    scene.frame_set(48)
    assert np.allclose(np.array(bpy.data.objects["camera"].matrix_world)[:3, :3], cam1), \
        "without live mode nothing moves before a bake (the issue's symptom)"
    scene.frame_set(1)
    scene.vart.live = True
    first = at(scene, 1)[0]
    pins = {}  # each wheel's pinned point: (in the wheel's frame, in the world)
    for k in range(6):
        T = first[f"leg{k}_wheel"]
        p = np.append(X.contact(bpy.data.objects[f"leg{k}_wheel"]), 1.0)
        pins[k] = (np.linalg.solve(T, p), p[:3])
    for frame, degrees in ((24, 20 * 23 / 47), (48, 20.0), (1, 0.0), (36, 20 * 35 / 47)):
        poses, qs = at(scene, frame)
        R = poses["camera"][:3, :3]
        turned = math.degrees(math.acos(np.clip((np.trace(R @ cam1.T) - 1) / 2, -1, 1)))
        assert turned == pytest.approx(degrees, abs=1e-3), frame
        assert math.degrees(qs["tilt"][0]) == pytest.approx(degrees, abs=1e-3)
        for k, (local, world) in pins.items():  # the pinned wheels stay put
            assert np.abs((poses[f"leg{k}_wheel"] @ local)[:3] - world).max() < 1e-5
        assert scene.vart.status_summary.startswith(f"Live, frame {frame}: Converged")


@pytest.mark.parametrize("key", STORIES)
def test_live_equals_the_bake_at_every_frame_in_any_order(vart_registered, key):
    """Live's solved poses (float64) and written joint values against the bake's keys
    (float32 values and Euler angles: about 1e-7 relative, a few 1e-6 near gimbal lock)."""
    scene = add(key)
    scene.vart.live = True
    order = np.random.default_rng(21).permutation(np.arange(1, N + 1)).tolist()
    assert order[0] != 1
    shown = {f: at(scene, f) for f in order}  # the first jump solves through 1..order[0]
    assert gap(shown[1], shown[N]) > 0.05  # it moved
    assert live.markers(scene) == {}
    cache = live.cache_of(scene)
    solved = {f: e.q for f, e in cache.frames.items()}
    live.forget_all()  # as an undo does: the frames go, the chain's start stays
    for f in range(1, N + 1):
        scene.frame_set(f)
    # order is moot (to rounding: numpy's BLAS rounds the last bit by memory alignment)
    assert max(float(np.abs(solved[f] - cache.frames[f].q).max()) for f in solved) < 1e-12
    model = cache.solver.model
    poses = {f: model.fk(q) for f, q in solved.items()}
    scene.vart.live = False  # back where live mode started: the bake starts there too
    assert bpy.ops.vart.bake() == {'FINISHED'}
    assert "unmet" not in scene.vart.status_summary
    worst_pose = worst_q = 0.0
    for f in range(1, N + 1):
        baked_poses, baked_qs = at(scene, f)
        for n, T in baked_poses.items():
            worst_pose = max(worst_pose, float(np.abs(T - poses[f][model.index[n]]).max()))
        worst_q = max(worst_q, gap(({}, shown[f][1]), ({}, baked_qs)))
    assert worst_pose < POSE_TOL and worst_q < POSE_TOL, (worst_pose, worst_q)


def test_a_remembered_frame_is_written_as_it_was_first_shown(vart_registered):
    """Showing a remembered frame again writes the closures' q it fitted the first time
    (``LiveFrame.closure_q``): every pose and joint value as then (within the write
    tolerance: a value that changed by less than 1e-12 is not rewritten, and float32
    matrices round; one frame's step is ~7e-3 rad here)."""
    scene = add("camera_tilt")
    scene.vart.live = True
    first = {f: at(scene, f) for f in range(1, N + 1)}
    cache = live.cache_of(scene)
    fitted = [jn for jn, j in cache.solver.lk.joints.items() if j.dof and not j.is_tree]
    assert fitted and all(cache.frames[f].closure_q is not None for f in range(1, N + 1))
    lk = cache.solver.lk
    for f in (N, 1, N // 2, 2, N // 2 + 1):
        again = at(scene, f)
        assert gap(again, first[f]) < 1e-6, f
        lk.model().q_to_joints(cache.frames[f].q)  # each closure's fit, joint by joint
        assert max(float(np.abs(lk.joint_q(lk.joints[jn]) - again[1][jn]).max())
                   for jn in fitted) < 1e-9, f


def test_a_remembered_frame_is_served_from_memory_when_a_vart_goal_is_animated(
        vart_registered, monkeypatch):
    """Fixed gap (issue 35): frames whose animated input is a vart goal (here the crank's
    target, keyed) were never shown again from memory after the links' properties were read
    again, so a signature that kept the goal's animated value (it differs from frame to
    frame: each such read would forget every frame) went unnoticed. With an edit noticed
    before each frame change (``schema.touched``, as a script that writes ``ob["vart"]``
    calls it; nothing changed here), going back to a solved frame writes it from memory, as
    it was first shown; a change of the goal's keys still forgets from where it changes."""
    from vart_addon.examples.common import key_value
    scene = add("fourbar")
    crank = next(ob for ob in scene.objects if S.is_link(ob) and "A" in ob[S.KEY]["joints"])
    crank.animation_data_clear()  # the example's keyed q: the goal is the only input
    q0 = float(crank[S.KEY]["joints"]["A"]["q"][0])
    S.update_joint(crank, "A", target_q=[q0], target_mask=[True])
    key_value(crank, "A", "target_q", [(1, [q0]), (20, [q0 + 1.0])])
    scene.vart.live = True
    first = {f: at(scene, f) for f in range(1, 21)}
    assert first[20][1]["A"][0] == pytest.approx(q0 + 1.0, abs=1e-6)  # it follows the goal
    solved = []
    real = live._solve_through
    monkeypatch.setattr(live, "_solve_through",
                        lambda *a, **k: solved.append(a[2]) or real(*a, **k))
    for f in (5, 15, 1, 20, 12):
        S.touched()  # an edit noticed: the links' properties are read again
        assert gap(at(scene, f), first[f]) < 1e-6, f
    assert solved == []  # every one from memory
    fc = next(fc for fc in A.fcurves_of(crank) if fc.data_path.endswith('["target_q"]'))
    fc.keyframe_points[-1].co[1] = q0 + 0.5  # the goal's last key edited
    fc.update()
    assert at(scene, 20)[1]["A"][0] == pytest.approx(q0 + 0.5, abs=1e-6)
    assert solved == [20]


def test_bake_curves_are_muted_while_live_and_a_bake_while_live_starts_where_live_did(
        vart_registered):
    scene = add("camera_tilt")
    scene.vart.live = True
    shown = {f: at(scene, f) for f in (48, 20)}
    assert bpy.ops.vart.bake() == {'FINISHED'}  # live stays on
    baked = [fc for ob in scene.objects if S.is_link(ob) for fc in A.fcurves_of(ob)
             if A.group_of(fc) == A.BAKE_GROUP]
    assert baked and scene.vart.live
    scene.frame_set(48)
    assert all(fc.mute for fc in baked)  # muted, not deleted
    assert gap(state(scene), shown[48]) < POSE_TOL
    scene.vart.live = False
    assert not any(fc.mute for fc in baked)
    for f in (20, 48):
        assert gap(at(scene, f), shown[f]) < POSE_TOL


@pytest.mark.parametrize("key", ["slider_crank", "stewart"])
def test_live_off_after_a_tree_flag_edited_into_a_cycle_puts_the_links_back(vart_registered,
                                                                             key):
    """Fixed defect (issue 35): a closure's tree flag set while live mode is on (a cycle; the
    slider-crank's resolves to the same spanning tree, the Stewart platform's to another)
    made the scene as live mode had moved it the chain's new start, and turning live mode
    off left links 0.28 m (slider-crank) and 0.12 m (platform) from where the chain started
    (1.74 m in the issue's case). The start's link poses now carry into the new tree."""
    scene = add(key)
    start = at(scene, 1)
    scene.vart.live = True
    moved = at(scene, 20)
    assert gap((moved[0], {}), (start[0], {})) > 0.05  # live mode moved the links
    ob, joint = next((ob, n) for ob in scene.objects if S.is_link(ob)
                     for n, g in ob[S.KEY]["joints"].items() if not g.get("tree", True))
    ob[S.KEY]["joints"][joint]["tree"] = True
    ob.update_tag()
    at(scene, 30)
    scene.vart.live = False
    assert gap((state(scene)[0], {}), (start[0], {})) < POSE_TOL


def test_editing_a_key_forgets_exactly_the_frames_it_changes(vart_registered):
    scene = add("camera_tilt")
    fc = tilt_curve()
    k = fc.keyframe_points.insert(30, fc.evaluate(30))  # keys at 1, 30, 48 (linear)
    k.interpolation = 'LINEAR'
    fc.update()
    scene.vart.live = True
    scene.frame_set(N)
    cache = live.cache_of(scene)
    assert sorted(cache.frames) == list(range(1, N + 1))
    kept = {f: cache.frames[f] for f in range(1, 31)}
    last = next(p for p in fc.keyframe_points if p.co[0] == N)
    last.co[1] += math.radians(5)  # frames 31..48 change, 1..30 do not
    fc.update()
    scene.frame_set(10)  # a remembered frame: shown, and the edit seen
    assert sorted(cache.frames) == list(range(1, 31))
    assert all(cache.frames[f] is kept[f] for f in kept)
    poses, qs = at(scene, N)
    assert math.degrees(qs["tilt"][0]) == pytest.approx(25.0, abs=1e-3)
    assert sorted(cache.frames) == list(range(1, N + 1))
    # a goal, a setting, a structure change: every frame
    S.update_joint(bpy.data.objects["leg0_wheel"], "leg0_pin", locked=True,
                   lock_q=tuple(qs["leg0_pin"]))
    scene.frame_set(5)
    assert sorted(cache.frames) == list(range(1, 6))
    scene.vart.damping = 0.06
    scene.frame_set(3)
    assert sorted(cache.frames) == list(range(1, 4))
    wheel = bpy.data.collections.new("Wheel")  # a sublinkage (issue 22): every frame too
    scene.collection.children.link(wheel)
    SL.write_disposition(wheel, "simultaneous")
    wheel.objects.link(bpy.data.objects["leg0_wheel"])
    scene.frame_set(2)
    assert sorted(cache.frames) == list(range(1, 3))


def test_a_file_load_an_undo_and_another_scene_forget_what_was_solved(vart_registered,
                                                                         tmp_path):
    scene = add("camera_tilt")
    scene.vart.live = True
    scene.frame_set(12)
    assert sorted(live.cache_of(scene).frames) == list(range(1, 13))
    # another scene's bridge (any operator there) replaces this one's
    other = bpy.data.scenes.new("other")
    bridge_for(other)
    scene.frame_set(4)
    assert sorted(live.cache_of(scene).frames) == list(range(1, 5))
    live.on_undo_redo()  # what undo_post and redo_post run
    assert live.cache_of(scene).frames == {}
    scene.frame_set(12)
    path = str(tmp_path / "live.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    scene = bpy.context.scene
    assert scene.vart.live is True  # saved with the scene
    assert live.cache_of(scene).frames == {}
    scene.frame_set(24)
    assert scene.vart.status_summary.startswith("Live, frame 24: Converged")


def test_unmet_goals_are_marked_per_frame_as_the_bake_reports_them(vart_registered):
    scene = add("camera_tilt")
    last = next(p for p in tilt_curve().keyframe_points if p.co[0] == N)
    last.co[1] = math.radians(90)  # far beyond what six pinned legs allow
    tilt_curve().update()
    scene.vart.live = True
    scene.frame_set(N)  # no error raised into the frame change
    marked = live.markers(scene)
    assert marked and "unmet" in scene.vart.status_summary
    assert all("tilt" in name for name in marked.values())
    scene.vart.live = False
    assert live.markers(scene) == {}
    from vart_addon.animation.bake import bake
    res = bake(scene, bridge=bridge_for(scene), **solve_kw(scene, bake=True))
    assert set(res.unmet) == set(marked)


def test_an_error_in_the_handler_goes_to_the_status_not_into_playback(vart_registered,
                                                                       monkeypatch):
    scene = add("camera_tilt")
    scene.vart.live = True

    def boom(self, frame, prev):
        raise RuntimeError("solver exploded")
    monkeypatch.setattr(FrameSolver, "solve", boom)
    scene.frame_set(30)  # must not raise
    assert scene.vart.status_summary == "Live, frame 30: not solved: solver exploded"
    assert scene.frame_current == 30
    monkeypatch.undo()
    scene.frame_set(31)
    assert scene.vart.status_summary.startswith("Live, frame 31: Converged")


def test_the_handlers_are_added_once_and_removed_on_unregister(vart_registered):
    h = bpy.app.handlers
    lists = (h.frame_change_post, h.load_post, h.undo_post, h.redo_post)

    def count():
        return [sum(getattr(fn, "__module__", "") == live.__name__ for fn in hs)
                for hs in lists]
    assert count() == [1, 1, 1, 1]
    live.register()
    assert count() == [1, 1, 1, 1]
    vart_registered.register()  # the add-on enabled again
    assert count() == [1, 1, 1, 1]
    vart_registered.unregister()
    assert count() == [0, 0, 0, 0]
    vart_registered.register()  # for the fixture's own unregister


def test_rendering_an_animation_headless_renders_the_solved_poses(vart_registered, tmp_path):
    """Workbench renders of frames 1 and 48: without live mode and without a bake they are the
    same picture; with live mode they differ, and frame 48 is the baked frame 48."""
    scene = add("camera_tilt")
    cam = bpy.data.objects.new("cam", bpy.data.cameras.new("cam"))
    scene.collection.objects.link(cam)
    cam.matrix_world = load_script("demo/demo.py", "vart_demo").look_from((5.0, -4.0, 2.5),
                                                                          (0.0, 0.0, 0.8))
    scene.camera = cam
    r = scene.render
    r.engine = 'BLENDER_WORKBENCH'
    r.resolution_x, r.resolution_y, r.resolution_percentage = 96, 72, 100
    r.image_settings.file_format = 'PNG'
    scene.frame_step = N - 1  # frames 1 and 48: the render jumps straight to 48
    rendered: dict = {}

    def at_render(sc, *_):
        rendered[sc.frame_current] = np.array(bpy.data.objects["deck"].matrix_world)
    bpy.app.handlers.render_post.append(at_render)

    def render(tag) -> dict:
        r.filepath = str(tmp_path / f"{tag}_")
        bpy.ops.render.render(animation=True)
        out = {}
        for f in (1, N):
            img = bpy.data.images.load(str(tmp_path / f"{tag}_{f:04d}.png"))
            px = np.empty(96 * 72 * 4, np.float32)
            img.pixels.foreach_get(px)
            bpy.data.images.remove(img)
            out[f] = px
        return out
    try:
        scene.frame_set(1)
        still = render("off")
        assert np.array_equal(still[1], still[N])
        scene.vart.live = True
        shown = render("live")
        assert np.abs(shown[1] - shown[N]).max() > 0.5
        deck_live = dict(rendered)
        scene.frame_set(N)
        deck_shown = np.array(bpy.data.objects["deck"].matrix_world)
        scene.vart.live = False
        assert bpy.ops.vart.bake() == {'FINISHED'}
        baked = render("baked")
    finally:
        bpy.app.handlers.render_post.remove(at_render)
    assert np.abs(baked[N] - shown[N]).max() <= 1 / 255
    assert np.abs(deck_live[N] - deck_shown).max() < 1e-6  # the deck at render time: solved
    assert np.abs(deck_live[1] - deck_live[N]).max() > 0.05
