"""The clearance check (issue 20, item 1) in real bpy: a post driven down through the ground
and a slider driven through a wall are reported at the frames where their baked poses put
them through (computed here from the baked matrices, not from the check's BVH trees), with
their depth; a pair joined by a joint is not; a ground object replaces the plane z = 0; the
operator reports, stores its summary and marks the first frame of each contact; bad input
changes nothing; the stories' tyres in the ground are reported."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

import blender_scenes as BS
from vart_addon.animation.bake import bake
from vart_addon.bridge import animation as A
from vart_addon.bridge import q_data_path
from vart_addon.bridge import schema as S
from vart_addon.checks import clearance as CL
from vart_addon.solver import se3

LAST = 11
HALF = 0.1  # half the side of the 0.2 m cubes (m)


def keyed(ob, joint, values):
    """Key joint ``joint`` of ``ob`` at frames 1 and LAST."""
    for f, q in zip((1, LAST), values):
        ob["vart"]["joints"][joint]["q"] = [q]
        A.key_channels(ob, q_data_path(joint), f)


def build():
    """``post`` (prismatic along z from 0.55 down to -0.45 m) with ``cap`` fixed on it
    (overlapping it: jointed, so never a contact); ``wall`` fixed to the world at x = 0,
    z = 1; ``slider`` (prismatic along x, from -1.05 to 0.95 m, at z = 1) passing through
    the wall. Baked over frames 1-LAST. Returns the objects."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, LAST
    post, cap = BS.cube("post", (0.2,) * 3), BS.cube("cap", (0.1, 0.1, 0.3))
    wall, slider = BS.cube("wall", (0.2, 2.0, 2.0)), BS.cube("slider", (0.2,) * 3)
    BS.place(post, se3.make_pose(None, [0, 0, 0.55]))
    BS.place(cap, se3.make_pose(None, [0, 0, 0.65]))
    BS.place(wall, se3.make_pose(None, [0, 3, 1]))
    BS.place(slider, se3.make_pose(se3.so3_exp(np.array([0.0, np.pi / 2, 0.0])), [-1.05, 3, 1]))
    for ob in (post, cap, wall, slider):
        S.write_link(ob)
    S.write_joint(post, "lift", "prismatic", None, q=[0.55])
    S.write_joint(cap, "cap_fix", "fixed", post, T_parent_mob=se3.make_pose(None, [0, 0, 0.1]))
    S.write_joint(wall, "wall_fix", "fixed", None, T_parent_mob=se3.make_pose(None, [0, 3, 1]))
    S.write_joint(slider, "slide", "prismatic", None,
                  T_parent_mob=se3.make_pose(se3.so3_exp(np.array([0.0, np.pi / 2, 0.0])), [0, 3, 1]), q=[-1.05])
    keyed(post, "lift", (0.55, -0.45))
    keyed(slider, "slide", (-1.05, 0.95))
    bake(scene, 1, LAST)
    return {ob.name: ob for ob in (post, cap, wall, slider)}


def baked_positions(ob) -> dict:
    """Frame -> the object's baked world position (what the F-curves put there)."""
    scene, out = bpy.context.scene, {}
    for f in range(1, LAST + 1):
        scene.frame_set(f)
        out[f] = np.array(ob.matrix_world.translation)
    scene.frame_set(1)
    return out


@pytest.fixture
def built(scene):
    return build()


def test_a_link_through_the_ground_is_reported_at_its_frames_with_its_depth(built):
    z = {f: p[2] for f, p in baked_positions(built["post"]).items()}
    res = CL.check_clearance(bpy.context.scene)
    # the post's bottom is HALF below its centre, the cap's 0.05 m (it sits 0.1 m higher,
    # 0.3 m tall); each is reported where it is below z = 0, with how far
    for name, below in (("post", HALF), ("cap", 0.05)):
        depth = {f: below - zf for f, zf in z.items() if below - zf > CL.TOLERANCE}
        assert 2 <= len(depth) < LAST  # some frames clear, some not
        got = res.depth[(name, CL.GROUND)]
        assert sorted(got) == sorted(depth), name
        for f, d in depth.items():
            assert got[f] == pytest.approx(d, abs=1e-5)
    assert {p for p in res.depth if CL.GROUND in p} == {("post", CL.GROUND), ("cap", CL.GROUND)}
    assert bpy.context.scene.frame_current == 1


def test_links_crossing_are_reported_and_jointed_ones_are_not(built):
    x = {f: p[0] for f, p in baked_positions(built["slider"]).items()}
    crossing = sorted(f for f, xf in x.items() if abs(xf) < 2 * HALF)
    assert crossing and len(crossing) < LAST
    res = CL.check_clearance(bpy.context.scene)
    pairs = {p for p in res.depth if CL.GROUND not in p}
    assert pairs == {("slider", "wall")}  # post / cap overlap, but a joint joins them
    got = res.depth[("slider", "wall")]
    assert sorted(got) == crossing
    for f in crossing:  # the deepest slider corner inside the wall: to the nearer face
        assert got[f] == pytest.approx(HALF - abs(abs(x[f]) - HALF), abs=1e-5)


def test_a_ground_object_replaces_the_plane(built):
    bpy.ops.mesh.primitive_plane_add(size=4.0, location=(0, 0, 0.2))
    floor = bpy.context.active_object
    z = {f: p[2] for f, p in baked_positions(built["post"]).items()}
    res = CL.check_clearance(bpy.context.scene, ground=floor.name)
    got = res.depth[("post", CL.GROUND)]
    expect = {f: 0.2 + HALF - zf for f, zf in z.items() if 0.2 + HALF - zf > CL.TOLERANCE}
    assert 2 <= len(expect) < LAST
    assert sorted(got) == sorted(expect)
    for f, d in expect.items():
        assert got[f] == pytest.approx(d, abs=1e-5)


def test_bad_input_is_refused_naming_it(built):
    scene = bpy.context.scene
    with pytest.raises(CL.ClearanceError, match="'nowhere' does not exist"):
        CL.check_clearance(scene, ground="nowhere")
    bpy.ops.object.empty_add()
    with pytest.raises(CL.ClearanceError, match="not a mesh"):
        CL.check_clearance(scene, ground=bpy.context.active_object.name)
    with pytest.raises(CL.ClearanceError, match="empty frame range"):
        CL.check_clearance(scene, 5, 4)
    with pytest.raises(CL.ClearanceError, match="tolerance"):
        CL.check_clearance(scene, tolerance=-1.0)


def test_the_check_steps_frame_by_frame_and_stops_cleanly(built):
    """What the operator runs over timer ticks (Esc closes it): the same result as the whole
    check, one frame per step; closed half way, the scene is back on its frame."""
    scene = bpy.context.scene
    scene.frame_set(4)
    steps = CL.check_clearance_steps(scene)
    done = []
    while True:
        try:
            done.append(next(steps))
        except StopIteration as stop:
            res = stop.value
            break
    assert done == [(k, LAST) for k in range(1, LAST + 1)]
    assert res.depth == CL.check_clearance(scene).depth and scene.frame_current == 4
    steps = CL.check_clearance_steps(scene)
    next(steps), next(steps)
    assert scene.frame_current == 2
    steps.close()
    assert scene.frame_current == 4
    with pytest.raises(CL.ClearanceError, match="empty frame range"):
        next(CL.check_clearance_steps(scene, 5, 4))


def test_the_operator_reports_stores_and_marks(vart_registered):
    build()
    scene = bpy.context.scene
    scene.timeline_markers.new("mine", frame=3)
    assert bpy.ops.vart.check_clearance() == {'FINISHED'}
    res = CL.check_clearance(scene)
    assert scene.vart.clearance_summary.startswith("Clearance of frames 1-11")
    assert "post / ground" in scene.vart.clearance_summary
    assert "slider / wall" in scene.vart.clearance_summary
    marks = sorted((m.frame, m.name) for m in scene.timeline_markers)
    want = sorted([(3, "mine")] + [(f, f"contact: {a} / {b}") for f, a, b in res.first_frames()])
    assert marks == want and len(want) == 4  # post, cap: ground; slider / wall
    assert bpy.ops.vart.check_clearance() == {'FINISHED'}  # markers replaced, not doubled
    assert len(scene.timeline_markers) == 4
    before = scene.vart.clearance_summary
    with pytest.raises(RuntimeError, match="'nowhere' does not exist"):
        bpy.ops.vart.check_clearance(ground="nowhere")
    assert scene.vart.clearance_summary == before and len(scene.timeline_markers) == 4


@pytest.mark.parametrize("key", ["camera_tilt", "trenching", "inspection", "pinch"])
def test_the_stories_are_clear(vart_registered, key):
    """The issue measured tyres 1.6 mm (story 1) and 13.8 mm (story 2) below the ground, the
    wheels leaning up to 25 degrees about spherical pins. The stories now stand each wheel
    upright on its contact point (a virtual revolute about the vertical): no tyre goes into
    the ground and no link into another, at any frame of the four bakes."""
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    res = CL.check_clearance(bpy.context.scene)
    assert res.frames == 48 and res.links >= 37
    assert res.contacts() == [], res.summary()
    assert res.summary().endswith("No contact")


def test_parts_modelled_overlapping_around_a_small_link_are_left_out_and_listed(scene):
    """``body`` - ``hub`` - ``arm``: the arm is modelled sunk into the body around the small hub
    (as the hexapod's thighs are into its deck): it touches at the zero configuration, so the
    pair is left out and listed; with ``ignore_touching=False`` it is reported at every frame.
    A virtual ``rock`` (a pillar) partly in the ground is scenery (no ground contact), but the arm swinging
    into it is a contact."""
    body, hub = BS.cube("body", (0.4,) * 3), BS.cube("hub", (0.05,) * 3)
    arm, rock = BS.cube("arm", (0.6, 0.1, 0.1)), BS.cube("rock", (0.2, 0.2, 2.0))
    BS.place(body, se3.make_pose(None, [0, 0, 1]))
    BS.place(hub, se3.make_pose(None, [0.25, 0, 1]))
    BS.place(arm, se3.make_pose(None, [0.45, 0, 1]))  # reaches 0.15 into the body
    BS.place(rock, se3.make_pose(None, [0.25, 0.45, 0.5]))  # a pillar, partly below z = 0
    for ob in (body, hub, arm):
        S.write_link(ob)
    S.write_link(rock, virtual=True)
    S.write_joint(body, "body_fix", "fixed", None, T_parent_mob=se3.make_pose(None, [0, 0, 1]))
    S.write_joint(hub, "hub_fix", "fixed", body, T_parent_mob=se3.make_pose(None, [0.25, 0, 0]))
    S.write_joint(arm, "swing", "revolute", hub, T_parent_mob=se3.make_pose(None, [0, 0, 0]),
                  T_child_frame=se3.make_pose(None, [-0.2, 0, 0]), q=[0.0])
    S.write_joint(rock, "rock_fix", "fixed", None,
                  T_parent_mob=se3.make_pose(None, [0.25, 0.45, 0.5]))
    keyed(arm, "swing", (0.0, np.pi / 2))  # about z: the arm sweeps toward +y, into the rock
    bake(bpy.context.scene, 1, LAST)
    res = CL.check_clearance(bpy.context.scene, 1, LAST)
    assert res.ignored == [("arm", "body")]
    assert "1 pairs that touch at the robot's zero configuration left out" in res.summary()
    pairs = {c.a + "/" + c.b for c in res.contacts()}
    assert "arm/body" not in pairs and "rock/ground" not in pairs
    assert "arm/rock" in pairs
    assert CL.check_clearance(bpy.context.scene, 1, LAST, ignore_touching=False).depth[
        ("arm", "body")].keys() == set(range(1, LAST + 1))


def test_a_link_fixed_to_the_world_on_the_ground_is_mounted_not_a_contact(scene):
    """Fixed case (issue 33): an arm's base fixed to the world with its mesh reaching 3 mm
    below z = 0 (UR5's) was a ground contact on every frame, so *Will it run?* failed every
    fixed-base arm. A link a fixed joint holds to the world is mounted; a link on any other
    joint to the world is still checked."""
    base, pinned = BS.cube("base", (0.2,) * 3), BS.cube("pinned", (0.2,) * 3)
    BS.place(base, se3.make_pose(None, [0, 0, 0.09]))  # 1 cm below the ground
    BS.place(pinned, se3.make_pose(None, [1, 0, 0.09]))
    for ob in (base, pinned):
        S.write_link(ob)
    S.write_joint(base, "mount", "fixed", None, T_parent_mob=se3.make_pose(None, [0, 0, 0.09]))
    S.write_joint(pinned, "pin", "spherical", None,
                  T_parent_mob=se3.make_pose(None, [1, 0, 0.09]))
    sc = bpy.context.scene
    sc.frame_start = sc.frame_end = 1
    res = CL.check_clearance(sc)
    assert set(res.depth) == {("pinned", CL.GROUND)}
