"""The scene bridge on a four-bar built from cube objects (real bpy): analytic answer, Blender
parenting, writing only what moved, caching, locks, drags, tree flags, refusing bad data."""
from __future__ import annotations

import math
import re

import bpy
import numpy as np
import pytest
from mathutils import Matrix

from blender_scenes import cube, parent_keep, place, scene_snapshot  # noqa: E402  (shared)
from vart_addon.bridge import (
    BridgeError,
    SceneBridge,
    SchemaError,
    read_scene,
    schema,
    update_joint,
    update_link,
    write_joint,
    write_link,
)
from vart_addon.solver import Settings, se3

# A crank-rocker in the plane of frame G: ground pivots O2 = (0, 0), O4 = (4, 0); crank 1.5,
# coupler 3.5, rocker 2.5 (metres).
A_, B_, C_, D_ = 1.5, 3.5, 2.5, 4.0
G = se3.make_pose(se3.so3_exp(np.array([0.3, -0.2, 0.5])), [0.7, -1.2, 0.4])
TIGHT = Settings(tol=1e-12)


def planar(x, y, angle=0.0):
    return G @ se3.make_pose(se3.rot_z(angle), [x, y, 0.0])


def local(x, y=0.0):
    return se3.make_pose(None, [x, y, 0.0])


def analytic(theta2: float):
    """Crank angle -> (coupler angle, rocker angle) on the open branch (C above the line)."""
    bx, by = A_ * math.cos(theta2), A_ * math.sin(theta2)
    dx, dy = D_ - bx, -by
    L = math.hypot(dx, dy)
    a = (B_ ** 2 - C_ ** 2 + L ** 2) / (2 * L)
    h = math.sqrt(B_ ** 2 - a ** 2)
    ux, uy = dx / L, dy / L
    cx, cy = bx + a * ux - h * uy, by + a * uy + h * ux
    return math.atan2(cy - by, cx - bx), math.atan2(cy, cx - D_)


def angle_in_plane(T) -> float:
    R = (se3.inverse(G) @ np.asarray(T))[:3, :3]
    return math.atan2(R[1, 0], R[0, 0])


def world(ob) -> np.ndarray:
    return np.array(ob.matrix_world, dtype=float)


def empty(name: str):
    ob = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(ob)
    return ob


def build_fourbar(parented: bool = False, extras: bool = True) -> dict:
    """Four cubes (crank, coupler, rocker; the ground is the world) linked by the bridge's
    write functions. ``parented``: a Blender hierarchy Robot > crank > Mount > coupler > rocker
    (Robot and Mount are plain empties, not links). ``extras``: a link Base on a revolute to
    the world, a free link Loose, and a camera (not a link) parented to the rocker."""
    t2 = math.radians(90)
    t3, t4 = analytic(t2)
    obs = {"crank": cube("crank", (1.5, .2, .2)), "coupler": cube("coupler", (3.5, .2, .2)),
           "rocker": cube("rocker", (2.5, .2, .2))}
    if parented:
        robot, mount = empty("Robot"), empty("Mount")
        robot.matrix_world = Matrix(se3.make_pose(se3.rot_z(0.4), [2, 1, 0.5]).tolist()) \
            @ Matrix.Scale(0.5, 4)
        mount.location = (0.3, 0.2, 0.1)
        parent_keep(obs["crank"], robot)
        parent_keep(mount, obs["crank"])
        parent_keep(obs["coupler"], mount)
        parent_keep(obs["rocker"], obs["coupler"])
    bx, by = A_ * math.cos(t2), A_ * math.sin(t2)
    place(obs["crank"], planar(0, 0, t2))
    place(obs["coupler"], planar(bx, by, t3))
    place(obs["rocker"], planar(D_, 0, t4))
    for ob in obs.values():
        write_link(ob, mass=1.0, root_tree=False)
    write_joint(obs["crank"], "A", "revolute", None, T_parent_mob=planar(0, 0), q=[t2])
    write_joint(obs["coupler"], "B", "revolute", obs["crank"], T_parent_mob=local(A_),
                q=[t3 - t2])
    write_joint(obs["rocker"], "D", "revolute", None, T_parent_mob=planar(D_, 0), q=[t4])
    write_joint(obs["rocker"], "C", "revolute", obs["coupler"], T_parent_mob=local(B_),
                T_child_frame=local(C_), tree=False)
    if extras:
        obs["Base"] = cube("Base")
        place(obs["Base"], planar(-2, -1, 0.3))
        write_link(obs["Base"], root_tree=False)
        write_joint(obs["Base"], "E", "revolute", None, T_parent_mob=planar(-2, -1), q=[0.3])
        obs["Loose"] = cube("Loose")
        place(obs["Loose"], se3.make_pose(se3.rot_z(1.0), [5, 5, 1]))
        write_link(obs["Loose"])
        obs["Camera"] = empty("Camera")
        parent_keep(obs["Camera"], obs["rocker"])
    bpy.context.view_layer.update()
    return obs


@pytest.fixture(autouse=True)
def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    yield


def drive_crank(obs, bridge, theta2=math.radians(60)):
    update_joint(obs["crank"], "A", target_q=[theta2], target_mask=[True])
    status = bridge.solve(TIGHT)
    assert status.converged, status
    return bridge.write_back()


def q(ob, joint) -> float:
    return ob["vart"]["joints"][joint]["q"][0]


# ---- the analytic four-bar ---------------------------------------------------------------
@pytest.mark.parametrize("parented", [False, True], ids=["unparented", "parented"])
def test_fourbar_gives_the_analytic_rocker_angle(parented):
    obs = build_fourbar(parented)
    bridge = SceneBridge()
    t2 = math.radians(60)
    drive_crank(obs, bridge, t2)
    t3, t4 = analytic(t2)
    # properties are float64: the solver's precision
    assert q(obs["crank"], "A") == pytest.approx(t2, abs=1e-9)
    assert q(obs["rocker"], "D") == pytest.approx(t4, abs=1e-9)
    assert q(obs["coupler"], "B") == pytest.approx(t3 - t2, abs=1e-9)
    assert q(obs["rocker"], "C") == pytest.approx(t4 - t3, abs=1e-9)  # closure: fitted q
    # matrix_world is float32 in Blender: compare at its precision
    assert angle_in_plane(world(obs["rocker"])) == pytest.approx(t4, abs=1e-6)
    assert angle_in_plane(world(obs["coupler"])) == pytest.approx(t3, abs=1e-6)
    np.testing.assert_allclose(world(obs["rocker"])[:3, 3], planar(D_, 0)[:3, 3], atol=1e-6)
    # the float64 poses in the bridge are exact
    T4 = bridge.linkage.pose("rocker")
    assert angle_in_plane(T4) == pytest.approx(t4, abs=1e-9)
    np.testing.assert_allclose(T4, planar(D_, 0, t4), atol=1e-9)
    # scale kept
    np.testing.assert_allclose(np.linalg.norm(world(obs["rocker"])[:3, :3], axis=0),
                               [2.5, .2, .2], atol=1e-6)


def test_parented_and_unparented_give_the_same_world_matrices():
    results = []
    for parented in (False, True):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        obs = build_fourbar(parented)
        drive_crank(obs, SceneBridge())
        results.append({n: world(obs[n]) for n in ("crank", "coupler", "rocker", "Camera")})
    for n in results[0]:
        np.testing.assert_allclose(results[1][n], results[0][n], atol=2e-6, err_msg=n)


def test_only_links_that_moved_are_written():
    obs = build_fourbar()
    bridge = SceneBridge()
    bridge.sync()
    before = {n: world(ob) for n, ob in obs.items()}
    updated = []

    def on_update(scene, depsgraph):
        updated.extend(u.id.name for u in depsgraph.updates
                       if isinstance(u.id, bpy.types.Object) and u.is_updated_transform)

    bpy.app.handlers.depsgraph_update_post.append(on_update)
    try:
        report = drive_crank(obs, bridge)
        assert sorted(report.links) == ["coupler", "crank", "rocker"]
        assert sorted(report.joints) == ["A", "B", "C", "D"]
        assert "Base" not in updated and "Loose" not in updated
        assert {"crank", "coupler", "rocker"} <= set(updated)
        for n in ("Base", "Loose"):
            assert np.array_equal(world(obs[n]), before[n])
        # the same target again: nothing moves, nothing is written, nothing is re-evaluated
        updated.clear()
        report = drive_crank(obs, bridge)
        assert report.links == [] and report.joints == [] and updated == []
        assert bridge.rebuilds == 1
    finally:
        bpy.app.handlers.depsgraph_update_post.remove(on_update)


def stored_q(bridge) -> dict:
    return {n: j.q for n, j in bridge.data.joints.items()}


def read_q(bridge) -> dict:
    return {n: j.q for n, j in read_scene(bridge.objects().values()).joints.items()}


def test_the_records_follow_the_values_written_and_a_rollback_puts_them_back():
    """``bridge.data`` after writes is what reading the scene gives (the written q are
    patched into the records only when asked for); a rollback brings back the records of its
    checkpoint; a closure fit handed to write_back (a frame live mode remembers) is what is
    written."""
    obs = build_fourbar()
    bridge = SceneBridge()
    drive_crank(obs, bridge, math.radians(60))
    assert stored_q(bridge) == read_q(bridge)
    at_60 = read_q(bridge)
    cp = bridge.checkpoint()
    report = drive_crank(obs, bridge, math.radians(80))
    assert sorted(report.joints) == ["A", "B", "C", "D"]
    assert stored_q(bridge) == read_q(bridge) != at_60
    assert list(report.closure_q) == ["C"]
    again = bridge.write_back(closure_q=report.closure_q)
    assert again.joints == [] and again.links == []  # the same values: nothing written
    bridge.write_back(closure_q={"C": report.closure_q["C"] + 0.25})
    assert q(obs["rocker"], "C") == report.closure_q["C"][0] + 0.25
    assert stored_q(bridge) == read_q(bridge)
    bridge.rollback(cp)
    assert stored_q(bridge) == at_60


def test_a_fresh_bridge_writes_nothing_on_a_consistent_scene():
    obs = build_fourbar(parented=True)
    drive_crank(obs, SceneBridge())
    bridge = SceneBridge()
    status = bridge.solve(TIGHT)
    assert status.converged
    report = bridge.write_back()
    assert report.links == [] and report.joints == [] and report.flags == []


# ---- the cache -------------------------------------------------------------------------------
def test_sync_rebuilds_only_when_the_structure_changes():
    obs = build_fourbar()
    bridge = SceneBridge()
    assert bridge.sync() is True
    assert bridge.sync() is False
    update_joint(obs["crank"], "A", target_q=[0.5], target_mask=[True])  # a goal: patched
    assert bridge.sync() is False
    assert bridge.linkage.joint("A").target_q.tolist() == [0.5]
    update_joint(obs["crank"], "A", target_mask=[False])
    assert bridge.sync() is False and bridge.linkage.joint("A").target_q is None
    update_link(obs["Base"], mass=3.0)
    assert bridge.sync() is False and bridge.linkage.link("Base").mass == 3.0
    assert bridge.rebuilds == 1
    update_joint(obs["Base"], "E", T_parent_mob=tuple(planar(-2, -1.5).reshape(16)))
    assert bridge.sync() is True
    obs["Loose"].name = "Free"
    assert bridge.sync() is True and "Free" in bridge.linkage.links
    assert bridge.rebuilds == 3


def test_sync_objects_patches_the_goals_of_those_objects_or_asks_for_a_sync():
    """What a bake with animated goal fields does each frame: re-read only those objects."""
    obs = build_fourbar()
    bridge = SceneBridge()
    bridge.sync()
    update_joint(obs["crank"], "A", target_q=[0.5], target_mask=[True])
    update_link(obs["Base"], mass=3.0)  # not among the objects named: not read
    assert bridge.sync_objects(["crank"]) is False
    assert bridge.linkage.joint("A").target_q.tolist() == [0.5]
    assert bridge.linkage.link("Base").mass == 0.0 and bridge.rebuilds == 1
    assert bridge.data.joints["A"].target_q == (0.5,)
    update_joint(obs["crank"], "A", T_parent_mob=tuple(planar(0, 0.5).reshape(16)))
    assert bridge.sync_objects(["crank"]) is True  # the structure changed: nothing patched
    assert bridge.data.joints["A"].target_q == (0.5,) and bridge.rebuilds == 1
    assert bridge.sync() is True


def test_a_patched_linkage_solves_like_a_rebuilt_one():
    obs = build_fourbar()
    bridge = SceneBridge()
    drive_crank(obs, bridge)
    update_joint(obs["rocker"], "D", target_q=[2.0], target_mask=[True])
    update_joint(obs["crank"], "A", target_mask=[False])
    update_joint(obs["coupler"], "B", lower=[-3.0], upper=[3.0])
    patched = bridge.solve(TIGHT)
    assert bridge.rebuilds == 1 and patched.converged
    fresh = SceneBridge()
    assert fresh.solve(TIGHT).converged
    for n in ("crank", "coupler", "rocker"):
        np.testing.assert_allclose(bridge.linkage.pose(n), fresh.linkage.pose(n), atol=1e-9)


def test_a_stored_tree_q_set_by_hand_moves_its_subtree():
    obs = build_fourbar()
    bridge = SceneBridge()
    bridge.sync()
    obs["Base"]["vart"]["joints"]["E"]["q"] = [0.9]
    bridge.solve()
    assert bridge.write_back().links == ["Base"]
    assert angle_in_plane(world(obs["Base"])) == pytest.approx(0.9, abs=1e-6)


def test_objects_moved_in_blender_are_taken_or_snapped_back():
    obs = build_fourbar()
    bridge = SceneBridge()
    drive_crank(obs, bridge)
    # a free link moved by the user: the scene is the truth
    obs["Loose"].location = (7.0, 0.0, 0.0)
    bridge.sync()
    assert bridge.linkage.pose("Loose")[:3, 3] == pytest.approx([7, 0, 0], abs=1e-6)
    # a link carried by a tree joint: its joint's q is the truth, the object snaps back
    good = world(obs["Base"])
    obs["Base"].location.x += 1.0
    bridge.solve()
    assert "Base" in bridge.write_back().links
    np.testing.assert_allclose(world(obs["Base"]), good, atol=1e-6)


# ---- locks, drags, tree flags ----------------------------------------------------------------
def test_a_locked_link_holds_and_unlocking_frees_it():
    obs = build_fourbar()
    bridge = SceneBridge()
    bridge.sync()
    before = bridge.linkage.pose("crank")
    bridge.lock_link(obs["crank"])
    stored = obs["crank"]["vart"]["link"]
    assert stored["locked"] is True
    np.testing.assert_allclose(np.array(stored["lock_pose"]).reshape(4, 4), before, atol=1e-12)
    assert bridge.linkage.root("crank").locked
    update_joint(obs["rocker"], "D", target_q=[2.0], target_mask=[True])
    status = bridge.solve(TIGHT)
    assert status.unmet == ["target of joint 'D'"]
    bridge.write_back()
    np.testing.assert_allclose(bridge.linkage.pose("crank"), before, atol=1e-9)
    bridge.unlock_link(obs["crank"])
    assert obs["crank"]["vart"]["link"]["locked"] is False
    assert bridge.solve(TIGHT).converged
    bridge.write_back()
    assert q(obs["rocker"], "D") == pytest.approx(2.0, abs=1e-9)


def test_dragging_a_link_moves_it_to_the_target():
    obs = build_fourbar()
    bridge = SceneBridge()
    T = se3.make_pose(se3.rot_z(-0.5), [1.0, 2.0, 3.0])
    bridge.sync()
    bridge.set_link_target("Loose", T)
    bridge.sync()  # a bridge-held target survives syncs
    assert bridge.solve(TIGHT, sync=False).converged  # as a modal drag would, per event
    assert bridge.write_back().links == ["Loose"]
    np.testing.assert_allclose(world(obs["Loose"]), T, atol=1e-6)
    bridge.clear_link_target("Loose")
    assert bridge.linkage.root("Loose").target_q is None


def test_inconsistent_tree_flags_are_resolved_and_written_back():
    obs = build_fourbar(extras=False)
    update_joint(obs["rocker"], "C", tree=True)  # every joint flagged: one must be a closure
    update_link(obs["crank"], root_tree=True)     # and the crank is reached from the world
    bridge = SceneBridge()
    drive_crank(obs, bridge)
    data = read_scene(bpy.context.scene.objects)
    assert sorted(n for n, j in data.joints.items() if not j.tree) == ["D"]
    assert data.links["crank"].root_tree is False
    assert bridge.sync() is False and bridge.rebuilds == 1
    t3, t4 = analytic(math.radians(60))
    assert q(obs["rocker"], "D") == pytest.approx(t4, abs=1e-9)


def test_a_tree_rooted_at_a_link_carries_joints_backwards():
    """Chain L1 -J12-> L2 -J23-> L3 with L3 hanging from the world: both joints are traversed
    child to parent, and a stored q moves the parent side."""
    obs = {n: cube(n) for n in ("L1", "L2", "L3")}
    place(obs["L3"], se3.make_pose(se3.rot_z(0.2), [3, 0, 0]))
    write_link(obs["L1"], root_tree=False)
    write_link(obs["L2"], root_tree=False)
    write_link(obs["L3"], root_tree=True)
    T3 = world(obs["L3"])
    # J23: mob frame at x=1 in L2, child frame at origin of L3, q = 0.3
    T2 = T3 @ se3.inverse(local(1) @ se3.make_pose(se3.rot_z(0.3), None))
    T1 = T2 @ se3.inverse(local(1) @ se3.make_pose(se3.rot_z(-0.4), None))
    place(obs["L2"], T2)
    place(obs["L1"], T1)
    write_joint(obs["L2"], "J12", "revolute", obs["L1"], T_parent_mob=local(1), q=[-0.4])
    write_joint(obs["L3"], "J23", "revolute", obs["L2"], T_parent_mob=local(1), q=[0.3])
    bridge = SceneBridge()
    bridge.sync()
    lk = bridge.linkage
    assert lk.tree_edge["L3"].is_root
    assert lk.joint("J23").tree_dir == -1 and lk.joint("J12").tree_dir == -1
    for n in obs:
        np.testing.assert_allclose(lk.pose(n), world(obs[n]), atol=1e-6)
    update_joint(obs["L2"], "J12", q=[0.5])
    bridge.solve()
    assert bridge.write_back().links == ["L1"]
    np.testing.assert_allclose(world(obs["L3"]), T3, atol=1e-7)


# ---- bad input: refused, scene unchanged --------------------------------------------------------
snapshot = scene_snapshot  # every object's world matrix, parent and vart properties


def _set(obj, *path_and_value):
    def f(obs):
        *path, value = path_and_value
        g = obs[obj]["vart"]
        for k in path[:-1]:
            g = g[k]
        g[path[-1]] = value(obs) if callable(value) else value
    return f


def _delete_with_operator(obs):
    with bpy.context.temp_override(selected_objects=[obs["crank"]], active_object=obs["crank"]):
        bpy.ops.object.delete()


def _duplicate_name(obs):
    obs["Loose"]["vart"]["joints"]["C"] = obs["rocker"]["vart"]["joints"]["C"].to_dict()


def _garbage(obs):
    obs["rocker"]["vart"] = "garbage"


def _scaled_frame(obs):
    m = list(obs["rocker"]["vart"]["joints"]["C"]["T_child_frame"])
    m[0] = 2.0
    obs["rocker"]["vart"]["joints"]["C"]["T_child_frame"] = m


def _nan_frame(obs):
    m = list(obs["coupler"]["vart"]["joints"]["B"]["T_parent_mob"])
    m[3] = float("nan")
    obs["coupler"]["vart"]["joints"]["B"]["T_parent_mob"] = m


J = ("joints",)
CORRUPTIONS = [
    ("q string", _set("rocker", *J, "D", "q", "abc"), "rocker", '["joints"]["D"]["q"]',
     "expected 1 float, got the string 'abc'"),
    ("q size", _set("crank", *J, "A", "q", [0.1, 0.2]), "crank", '["joints"]["A"]["q"]',
     "expected 1 float, got 2"),
    ("q inf", _set("crank", *J, "A", "q", [float("inf")]), "crank", '["A"]["q"]',
     "must be finite"),
    ("nan frame", _nan_frame, "coupler", '["B"]["T_parent_mob"]', "entry 3: must be finite"),
    ("non-rigid frame", _scaled_frame, "rocker", '["C"]["T_child_frame"]', "not a rigid"),
    ("unknown type", _set("rocker", *J, "C", "type", "revolutee"), "rocker", '["C"]["type"]',
     "unknown joint type 'revolutee'"),
    ("removed parent", lambda obs: bpy.data.objects.remove(obs["crank"]), "coupler",
     '["B"]["parent"]', "'crank' no longer exists"),
    ("deleted parent", _delete_with_operator, "coupler", '["B"]["parent"]',
     "'crank' is not in this scene"),
    ("parent is child", _set("coupler", *J, "B", "parent", lambda obs: obs["coupler"]),
     "coupler", '["B"]["parent"]', "cannot connect a link to itself"),
    ("parent not a link", _set("coupler", *J, "B", "parent", lambda obs: obs["Camera"]),
     "coupler", '["B"]["parent"]', "'Camera' is not a link"),
    ("duplicate name", _duplicate_name, "rocker", '["joints"]["C"]', "duplicate joint name"),
    ("garbage group", _garbage, "rocker", '["vart"]', "expected a group, got the string"),
    ("negative mass", _set("Base", "link", "mass", -1.0), "Base", '["link"]["mass"]',
     "must be >= 0"),
    ("bool as float", _set("rocker", *J, "C", "pitch", True), "rocker", '["C"]["pitch"]',
     "expected a float, got a bool"),
    ("limits crossed", lambda obs: (_set("Base", *J, "E", "lower", [1.0])(obs),
                                    _set("Base", *J, "E", "upper", [0.5])(obs)),
     "Base", '["E"]["lower"]', "lower limit 1.0 must be below upper limit 0.5"),
    ("lower limit +inf", _set("Base", *J, "E", "lower", [float("inf")]), "Base",
     '["E"]["lower"]', "must be below upper"),
    ("tree q outside limits", _set("Base", *J, "E", "upper", [0.1]), "Base", '["E"]["q"]',
     "outside the joint's limits"),
    ("unknown key", _set("Base", *J, "E", "lowr", [0.0]), "Base", '["E"]["lowr"]',
     "unknown key"),
    ("mask not bools", _set("crank", *J, "A", "target_mask", [1.5]), "crank",
     '["A"]["target_mask"][0]', "expected a bool"),
    ("mimic leader missing", _set("Base", *J, "E", "mimic", {"leader": "nope"}), "Base",
     '["E"]["mimic"]["leader"]', "no joint named 'nope'"),
    ("newer version", _set("Loose", "version", 99), "Loose", '["vart"]["version"]',
     "newer vart"),
    ("joints not a group", _set("Loose", "joints", 3), "Loose", '["vart"]["joints"]',
     "expected a group"),
    ("type changed to 3 DoF", _set("rocker", *J, "C", "type", "spherical"), "rocker",
     '["C"]["q"]', "expected 3 floats, got 1"),
]


@pytest.mark.parametrize("corrupt,obj,key,problem", [c[1:] for c in CORRUPTIONS],
                         ids=[c[0] for c in CORRUPTIONS])
def test_bad_properties_are_refused_and_change_nothing(corrupt, obj, key, problem):
    obs = build_fourbar()
    bridge = SceneBridge()
    drive_crank(obs, bridge)
    corrupt(obs)
    before = snapshot()
    for b in (bridge, SceneBridge()):  # a warm cache and a fresh bridge
        with pytest.raises(SchemaError) as e:
            b.solve(TIGHT)
            b.write_back()
        msg = str(e.value)
        assert msg.startswith(f"object {obj!r}: ["), msg
        assert key in msg and problem in msg, msg
        assert e.value.obj == obj
        assert snapshot() == before


def test_the_message_names_object_and_key_path_exactly():
    obs = build_fourbar(extras=False)
    obs["crank"]["vart"]["joints"]["A"]["q"] = [0.1, 0.2]
    with pytest.raises(SchemaError) as e:
        read_scene(bpy.context.scene.objects)
    assert str(e.value) == 'object \'crank\': ["vart"]["joints"]["A"]["q"]: expected 1 float, got 2'
    assert e.value.path == ("vart", "joints", "A", "q")


def test_a_non_finite_solution_is_never_written():
    obs = build_fourbar()
    bridge = SceneBridge()
    bridge.solve()
    bridge.linkage.joint("B").q = np.array([np.nan])  # what a broken solver could leave
    before = snapshot()
    with pytest.raises(BridgeError, match="not finite.*nothing was written"):
        bridge.write_back()
    assert snapshot() == before
    assert bridge.linkage is None  # the poisoned cache is dropped
    drive_crank(obs, bridge)  # and the next solve starts clean from the scene


def test_write_back_refuses_when_links_changed_since_sync():
    obs = build_fourbar()
    bridge = SceneBridge()
    bridge.solve()
    schema.remove_link(obs["Loose"])
    with pytest.raises(BridgeError, match="changed since the last sync"):
        bridge.write_back()


def test_a_link_without_joints_is_free_and_the_world_is_the_ground():
    build_fourbar()
    bridge = SceneBridge()
    bridge.sync()
    lk = bridge.linkage
    root = lk.tree_edge["Loose"]
    assert root.is_root and root.jtype.name == "general" and root.parent is None
    assert lk.joint("A").parent is None and lk.joint("D").parent is None  # the ground


def test_an_empty_scene_syncs_solves_and_writes_nothing():
    bridge = SceneBridge()
    assert bridge.sync() is True
    assert bridge.solve().converged
    assert bridge.write_back() == type(bridge.write_back())()


@pytest.mark.parametrize("scale,problem", [((1, -1, 1), "negative (mirrored) scale"),
                                           ((1, 0, 1), "zero scale")])
def test_a_mirrored_or_flat_link_is_refused(scale, problem):
    obs = build_fourbar()
    obs["Loose"].scale = scale
    bpy.context.view_layer.update()
    before = snapshot()
    with pytest.raises(BridgeError, match=re.escape(f"object 'Loose': {problem}")):
        SceneBridge().solve()
    assert snapshot() == before


def test_a_link_under_a_rotated_unevenly_scaled_parent_is_refused_as_sheared():
    """Fixed defect (issue 19, defect 5): such a link solved "Converged" while its
    ``matrix_world`` was 0.59 m from the solver's pose and 0.77 from orthonormal."""
    obs = build_fourbar()
    holder = bpy.data.objects.new("Holder", None)
    bpy.context.scene.collection.objects.link(holder)
    holder.rotation_euler = (0.0, 0.0, 0.6)
    holder.scale = (1.0, 3.0, 1.0)
    bpy.context.view_layer.update()
    loose = obs["Loose"]
    loose.parent = holder
    loose.rotation_euler = (0.0, 0.0, 0.5)  # rotated inside the stretched parent: sheared
    bpy.context.view_layer.update()
    before = snapshot()
    with pytest.raises(BridgeError, match=r"object 'Loose': its world matrix is sheared"):
        SceneBridge().solve()
    assert snapshot() == before
    holder.scale = (2.0, 2.0, 2.0)  # uniform: a rigid frame again
    bpy.context.view_layer.update()
    assert SceneBridge().solve().converged


def test_a_link_parented_in_blender_to_a_moving_link_keeps_its_own_world_pose():
    """Blender parenting is not kinematics: a free link parented to the crank must stay put
    in the world when the crank turns (so it is written, with a new local transform)."""
    obs = build_fourbar(parented=True)
    sensor = cube("Sensor")
    place(sensor, se3.make_pose(se3.rot_z(0.7), [1, -3, 2]))
    parent_keep(sensor, obs["crank"])
    write_link(sensor)
    bpy.context.view_layer.update()
    before = world(sensor)
    report = drive_crank(obs, SceneBridge())
    assert "Sensor" in report.links
    np.testing.assert_allclose(world(sensor), before, atol=1e-6)
