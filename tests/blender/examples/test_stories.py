"""The four ATHLETE stories (README.md, "The four stories") end to end in real bpy, headless:
each is added by ``vart.add_example`` (built with vart's own operators), baked by
``vart.bake``, and then checked frame by frame from the baked values
(:func:`vart_addon.examples.check_baked`): every closure joint's invariant residual at most
1e-6 (m, rad), every real joint within its limits, and every wheel on the ground upright on its
contact point (a virtual revolute about the vertical: it may steer, not lean, slide or lift);
plus what the story is about."""
import math

import bpy
import numpy as np
import pytest

from vart_addon import examples as X
from vart_addon.bridge import SceneBridge
from vart_addon.bridge import schema as S
from vart_addon.solver import se3
from vart_addon.solver.sublinkages import members

TOL = 1e-6
N = X.STORY_FRAMES


def joints():
    return S.read_scene(ob for ob in bpy.context.scene.objects if S.is_link(ob)).joints


def pose(name):
    return X.pose(bpy.data.objects[name])


def at(frame, *names):
    bpy.context.scene.frame_set(frame)
    return [pose(n) for n in names]


def build_and_bake(key):
    """Add story ``key``, check what every story has, bake, check the baked values."""
    scene = bpy.context.scene
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    assert (scene.frame_start, scene.frame_end, scene.frame_current) == (1, N, 1)
    js = joints()
    added = [j for j in js.values() if j.virtual and j.type != "fixed"]
    assert added and scene.vart.active_joint in js
    lk = SceneBridge(scene)
    lk.sync()
    for j in lk.linkage.joints.values():  # built assembled
        if not j.is_tree:
            assert np.abs(j.jtype.residual(lk.linkage.relative_pose(j))).max() < TOL
    assert bpy.ops.vart.bake() == {'FINISHED'}
    assert "unmet" not in scene.vart.status_summary, scene.vart.status_summary
    check = X.check_baked(scene, 1, N)
    assert check.frames == N and check.closures > 0
    assert check.closure_error <= TOL, check
    assert check.limit_excess == 0.0, check
    assert check.pose_error < 1e-5, check  # the links' keyed transforms agree (float32)
    upright_on_contact(js)
    return js, lk.linkage


def pins(js):
    return sorted(n for n, j in js.items() if n.endswith("_pin"))


def upright_on_contact(js):
    """Each pinned wheel (``legK_pin``: a virtual revolute from the world, its axis vertical
    through the wheel's lowest point) stays upright, its axle horizontal, on the same contact
    point at every baked frame."""
    wheels = {p: p.replace("_pin", "_wheel") for p in pins(js)}
    assert wheels
    for p, wheel in wheels.items():
        j = js[p]
        assert (j.type, j.virtual, j.parent, j.child) == ("revolute", True, None, wheel)
        mob = np.asarray(j.T_parent_mob, float).reshape(4, 4)
        assert np.abs(mob[:3, 2] - (0.0, 0.0, 1.0)).max() < 1e-6 and abs(mob[2, 3]) < 1e-6
    start = {}
    for f in range(1, N + 1):
        for p, wheel in wheels.items():
            T, = at(f, wheel)
            assert abs(T[2, 1]) < 1e-5, (p, f)                  # the axle (y) is horizontal
            bottom = T[:3, 3] - (0.0, 0.0, X.WHEEL_RADIUS)
            assert abs(bottom[2]) < 1e-5, (p, f)                  # on the ground
            start.setdefault(p, bottom)
            assert np.linalg.norm(bottom - start[p]) < 1e-5, (p, f)  # on the same point


@pytest.mark.parametrize("key", ["camera_tilt", "camera_tilt_legs"])
def test_story_1_camera_tilt(vart_registered, key):
    """Story 1, and the same on the hexapod whose legs are driven sublinkages (the deck solved
    first, then each leg): every goal met either way."""
    js, lk = build_and_bake(key)
    legs = {f"leg{k}": "driven" for k in range(6)} if key == "camera_tilt_legs" else {}
    assert {s.name: s.disposition for s in lk.sublinkages.values()} == legs
    for name in legs:  # each leg's links and joints, its wheel's pin with them
        links, leg_joints = members(lk, name)
        assert sorted(links) == sorted(f"{name}_{p}" for p in ("hip", "thigh", "shin",
                                                                 "ankle", "foot", "wheel"))
        assert f"{name}_pin" in leg_joints and "tilt" not in leg_joints
    tilt = js["tilt"]
    assert (tilt.type, tilt.virtual, tilt.parent, tilt.child) == ("revolute", True, None,
                                                                   "deck")
    assert lk.joints["tilt"].is_tree  # the deck hangs from the world by it
    assert pins(js) == [f"leg{k}_pin" for k in range(6)]
    assert not any(lk.joints[p].is_tree for p in pins(js))
    cam0, deck0 = at(1, "camera", "deck")
    cam1, deck1 = at(N, "camera", "deck")
    # the camera turned 20 degrees down about its own horizontal axis, without moving
    assert np.linalg.norm(cam1[:3, 3] - cam0[:3, 3]) < 1e-5
    look0, look1 = -cam0[:3, 1], -cam1[:3, 1]       # it looks along its -y
    assert math.degrees(math.acos(np.clip(look0 @ look1, -1, 1))) == pytest.approx(20, abs=1e-3)
    assert look1[2] < look0[2]                       # down
    assert math.degrees(math.acos(deck0[:3, 2] @ deck1[:3, 2])) == pytest.approx(20, abs=1e-3)
    # the wheels stayed upright where they touch (build_and_bake): the legs steered them
    steer = [abs(joints()[p].q[0]) for p in pins(js)]
    assert max(steer) > math.radians(10)


def test_story_2_trenching(vart_registered):
    js, lk = build_and_bake("trenching")
    assert (js["trench"].type, js["trench_depth"].type) == ("prismatic", "prismatic")
    assert (js["scoop_pitch"].type, js["scoop_roll"].type) == ("revolute", "revolute")
    assert js["deck_flat"].type == "cartesian-3" and js["deck_flat"].parent is None
    chain = [js[n] for n in ("trench", "trench_depth", "scoop_pitch", "scoop_roll")]
    assert all(j.virtual for j in chain)
    virtual_links = {j.child for j in chain[:3]}
    assert virtual_links == {"trench_slide", "trench_depth_link", "scoop_carrier"}
    assert js["scoop_roll"].child == "leg0_foot" and not lk.joints["scoop_roll"].is_tree
    assert js["trench_depth"].locked and js["scoop_pitch"].locked
    assert pins(js) == [f"leg{k}_pin" for k in range(1, 6)]
    scene = bpy.context.scene
    qs = []
    for f in (1, N):
        scene.frame_set(f)
        qs.append(joints()["trench"].q[0])
    assert qs == pytest.approx(list(X.TRENCH), abs=1e-6)
    (scoop0, d0), (scoop1, d1) = at(1, "leg0_foot", "deck"), at(N, "leg0_foot", "deck")
    travel = scoop1[:3, 3] - scoop0[:3, 3]
    assert np.linalg.norm(travel) == pytest.approx(X.TRENCH[1] - X.TRENCH[0], abs=1e-5)
    assert abs(travel[2]) < 1e-5                        # at a constant depth
    assert np.abs(d1[:3, :3] - d0[:3, :3]).max() < 1e-6  # the deck stayed flat...
    lean = d1[:3, 3] - d0[:3, 3]
    assert lean @ travel / np.linalg.norm(travel) > 0.2  # ...and leaned toward the trench


def test_story_3_object_inspection(vart_registered):
    js, lk = build_and_bake("inspection")
    insp = js["inspect"]
    assert (insp.type, insp.virtual, insp.parent, insp.child) == ("spherical", True, "rock",
                                                                   "inspection_camera")
    assert not lk.joints["inspect"].is_tree
    rock = bpy.data.objects["rock"]
    assert S.read_object(rock)[0].virtual and S.read_object(rock)[0].locked
    assert js["deck_flat"].type == "cartesian-3"
    cam_center = se3.inverse(lk.joints["inspect"].T_child_frame)[:3, 3]
    radius = np.linalg.norm(cam_center)
    assert radius == pytest.approx(0.6, abs=1e-6)
    angles = []
    for f in list(range(1, N, 7)) + [N]:
        cam, r, deck = at(f, "inspection_camera", "rock", "deck")
        d = r[:3, 3] - cam[:3, 3]
        assert np.linalg.norm(d) == pytest.approx(radius, abs=1e-5)    # constant distance
        assert (-cam[:3, 2]) @ d / np.linalg.norm(d) == pytest.approx(1.0, abs=1e-6)  # aimed
        assert np.abs(deck[:3, :3] - np.eye(3)).max() < 1e-6            # deck flat
        angles.append(math.degrees(math.atan2(-d[1], -d[0])))
    turned = (angles[-1] - angles[0] + 180.0) % 360.0 - 180.0
    assert abs(turned) == pytest.approx(40, abs=0.5)                   # orbited 40 degrees
    # dragging the camera off the sphere: the spherical joint holds, the drag yields
    bpy.context.scene.frame_set(1)
    bpy.ops.vart.drag(link="inspection_camera", translation=(0.0, 0.0, 0.4))
    cam, r = pose("inspection_camera"), pose("rock")
    assert np.linalg.norm(r[:3, 3] - cam[:3, 3]) == pytest.approx(radius, abs=1e-5)


def test_story_4_bimanual_pinch(vart_registered):
    js, lk = build_and_bake("pinch")
    dist, angle = js["pinch_distance"], js["pinch_angle"]
    assert (dist.type, dist.parent, dist.child) == ("prismatic", "leg0_foot", "pinch_object")
    assert (angle.type, angle.parent, angle.child) == ("revolute", "pinch_object", "leg1_foot")
    assert dist.virtual and angle.virtual and angle.locked and not lk.joints[
        "pinch_angle"].is_tree
    assert pins(js) == [f"leg{k}_pin" for k in range(2, 6)]
    (a0, b0, d0), (a1, b1, d1) = (at(f, "leg0_foot", "leg1_foot", "deck") for f in (1, N))
    gap0, gap1 = (np.linalg.norm(b[:3, 3] - a[:3, 3]) for a, b in ((a0, b0), (a1, b1)))
    assert gap1 - gap0 == pytest.approx(X.PINCH, abs=1e-5)   # pinched by 0.6 m
    assert np.abs(d1[:3, :3] - d0[:3, :3]).max() < 1e-6         # the deck stays level
    assert js["deck_flat"].type == "cartesian-3" and js["deck_flat"].parent is None
    deck = S.read_object(bpy.data.objects["deck"])[0]
    assert deck.balance and deck.balance_margin == X.PINCH_BALANCE  # kept by Balance
    R0, R1 = a0[:3, :3].T @ b0[:3, :3], a1[:3, :3].T @ b1[:3, :3]
    assert np.abs(R1 - R0).max() < 1e-5                         # the pinch angle held
    assert min(a1[2, 3], b1[2, 3]) > 0.4                        # the limbs are raised
