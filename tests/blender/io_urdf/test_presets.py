"""Virtual articulation presets (JSON) in real Blender: a set-up of virtual links and joints,
locks, targets, postures and springs built on an imported robot is saved, and applied to
another scene of the same robot; the stored properties come back equal. Loading refuses a
robot that lacks the named links, a preset applied twice, and files that are not presets,
each with a clear message and the scene unchanged."""
from __future__ import annotations

import json
import math

import bpy
import numpy as np
import pytest

from repo_paths import DATA
from vart_addon.bridge import SceneBridge, edits, read_scene
from vart_addon.io_urdf import IoError
from vart_addon.io_urdf.importer import import_urdf
from vart_addon.io_urdf.presets import FORMAT, load_preset, preset_data, save_preset
from vart_addon.solver import se3

ARM6 = DATA / "arm6" / "arm6.urdf"
ROVER = DATA / "rover" / "rover_description" / "urdf" / "rover.urdf"
SETUP_JOINTS = ("tilt", "probe_ball", "reach")
GOAL_JOINTS = ("elbow", "wrist_1", "shoulder_lift", "wrist_3")


def everything() -> dict:
    bpy.context.view_layer.update()
    out = {"objects": sorted(ob.name for ob in bpy.data.objects)}
    for ob in bpy.data.objects:
        raw = ob.get("vart")
        out[ob.name] = (repr(raw.to_dict() if hasattr(raw, "to_dict") else raw),
                        tuple(x for row in ob.matrix_world for x in row))
    return out


def same_record(a, b):
    """Two JointData/LinkData equal: world-posed fields (re-expressed through the robot's
    poses on the way) to 1e-9, everything else exactly."""
    for f in a.__dataclass_fields__:
        x, y = getattr(a, f), getattr(b, f)
        if f in ("T_parent_mob", "lock_pose"):
            np.testing.assert_allclose(x, y, atol=1e-9, err_msg=f"{a.name}: {f}")
        else:
            assert x == y, (a.name, f)


def close(a, b):
    """Nested JSON data equal, floats to 1e-9."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(close, a, b))
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-9
    return a == b


def rigid(ob):
    M = np.array(ob.matrix_world, dtype=float)
    M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
    return M


def build_setup(scene):
    """arm6 with: virtual links Probe (carried by a virtual spherical joint from tool0) and
    Target (free); virtual joints tilt (world -> base_link, revolute, tree), probe_ball and
    reach (cartesian-3 Target -> left_tip, a closure); a lock, a target, a posture and a
    spring on real joints; the left finger locked in the world."""
    obs = import_urdf(ARM6, q={"elbow": 0.5, "shoulder_lift": -0.3, "left_finger_joint": 0.02})
    bpy.context.view_layer.update()
    lk0 = SceneBridge(scene)
    lk0.sync()
    T_tool = lk0.linkage.pose("tool0")
    edits.add_virtual_link("Probe", T_tool @ se3.make_pose(np.eye(3), [0, 0, 0.1]),
                           scene.collection)
    edits.add_virtual_link("Target", se3.make_pose(se3.so3_exp(np.array([0, 0, 0.5])),
                                                   [0.4, 0.2, 0.3]), scene.collection)

    def mutate(lk):
        lk.add_joint("tilt", "revolute", None, "base_link",
                     world_frame=se3.make_pose(se3.so3_exp(np.array([math.pi / 2, 0, 0])),
                                               [0, 0, 0.05]), virtual=True, lower=[-0.5],
                     upper=[0.5])
        lk.add_joint("probe_ball", "spherical", "tool0", "Probe", world_frame=lk.pose("Probe"),
                     virtual=True)
        lk.add_joint("reach", "cartesian-3", "Target", "left_tip",
                     world_frame=lk.pose("left_tip"), virtual=True)
        lk.lock_joint("elbow")
        lk.set_target("wrist_1", [0.3])
        lk.set_posture("shoulder_lift")
        lk.set_stiffness("wrist_3", 5.0, [0.1])
        lk.lock_link("left_finger")
    edits.edit(mutate, scene)
    data = read_scene(scene.objects)
    assert data.joints["tilt"].tree and not data.joints["reach"].tree
    assert data.links["Probe"].virtual and not data.links["base_link"].root_tree
    return obs


@pytest.fixture
def setup_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    build_setup(bpy.context.scene)
    return bpy.context.scene


def test_round_trip(setup_scene, tmp_path):
    scene = setup_scene
    src = read_scene(scene.objects)
    poses = {n: rigid(bpy.data.objects[n]) for n in ("Probe", "Target")}
    path = tmp_path / "setup.json"
    d = save_preset(path, scene=scene)
    assert json.loads(path.read_text()) == d
    assert d["format"] == FORMAT and d["version"] == 1
    assert set(d["virtual_links"]) == {"Probe", "Target"}
    assert d["virtual_links"]["Probe"]["anchor"] == "tool0"
    assert d["virtual_links"]["Target"]["anchor"] == "left_tip"
    assert set(d["joints"]) == set(SETUP_JOINTS)
    assert set(d["real_joints"]) == set(GOAL_JOINTS) and set(d["real_links"]) == {"left_finger"}
    assert d["robot"]["links"] == ["base_link", "left_finger", "left_tip", "tool0"]
    assert d["joints"]["tilt"]["parent"] is None and d["joints"]["reach"]["lower"] == [None] * 3

    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    import_urdf(ARM6, q={"elbow": 0.5, "shoulder_lift": -0.3, "left_finger_joint": 0.02})
    res = load_preset(path, scene=scene)
    assert set(res.links) == {"Probe", "Target"} and sorted(res.joints) == sorted(SETUP_JOINTS)
    assert sorted(res.real_joints) == sorted(GOAL_JOINTS) and res.real_links == ["left_finger"]
    got = read_scene(scene.objects)
    assert set(got.links) == set(src.links) and set(got.joints) == set(src.joints)
    for n in SETUP_JOINTS + GOAL_JOINTS:
        same_record(got.joints[n], src.joints[n])
    for n in ("Probe", "Target", "left_finger", "base_link"):
        same_record(got.links[n], src.links[n])
    for n, T in poses.items():
        np.testing.assert_allclose(rigid(bpy.data.objects[n]), T, atol=1e-5, err_msg=n)
    assert bpy.data.objects["Probe"].type == 'EMPTY'
    # and saving again gives the same preset
    assert close(preset_data(scene), d)


def test_the_robot_may_stand_elsewhere(setup_scene, tmp_path):
    """Virtual links follow their anchor link: the preset applies to the same robot placed
    and posed differently."""
    d = preset_data(setup_scene)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    base = se3.make_pose(se3.so3_exp(np.array([0, 0, 1.0])), [2, 1, 0])
    import_urdf(ARM6, q={"elbow": 0.5, "shoulder_lift": -0.3, "left_finger_joint": 0.02},
                base_pose=base, place_on_ground=False)
    bpy.context.view_layer.update()
    real_before = {ob.name: rigid(ob) for ob in scene.objects if "vart" in ob.keys()}
    load_preset(d, scene=scene)
    b = SceneBridge(scene)
    b.sync()
    lk = b.linkage
    T = np.array(d["virtual_links"]["Target"]["T_anchor_link"]).reshape(4, 4)
    np.testing.assert_allclose(rigid(bpy.data.objects["Target"]), lk.pose("left_tip") @ T,
                               atol=1e-5)
    np.testing.assert_allclose(
        se3.inverse(lk.pose("tool0")) @ lk.pose("Probe"),
        np.array(d["virtual_links"]["Probe"]["T_anchor_link"]).reshape(4, 4), atol=1e-6)
    # the joint to the world and the lock moved with the robot: nothing jumped on loading
    for n, T in real_before.items():
        np.testing.assert_allclose(rigid(bpy.data.objects[n]), T, atol=1e-5, err_msg=n)
    data = read_scene(scene.objects)
    np.testing.assert_allclose(np.reshape(data.links["left_finger"].lock_pose, (4, 4)),
                               lk.pose("left_finger"), atol=1e-5)
    tilt = data.joints["tilt"]
    np.testing.assert_allclose(np.reshape(tilt.T_parent_mob, (4, 4)),
                               base @ se3.make_pose(se3.so3_exp(np.array([math.pi / 2, 0, 0])),
                                                    [0, 0, 0.05]), atol=1e-6)


def test_solve_after_loading(setup_scene, tmp_path):
    d = preset_data(setup_scene)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    import_urdf(ARM6)
    res = load_preset(d, scene=scene, solve=True)
    assert res.status is not None
    data = read_scene(scene.objects)
    assert data.joints["elbow"].locked and data.joints["elbow"].lock_q == (0.5,)


# ---- refusals ---------------------------------------------------------------------------------
def test_a_robot_that_lacks_the_links_is_refused(setup_scene, tmp_path):
    path = tmp_path / "setup.json"
    save_preset(path, scene=setup_scene)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    import_urdf(ROVER)
    before = everything()
    with pytest.raises(IoError, match="the scene's robot lacks links 'left_finger', 'left_tip', "
                                      "'tool0' that the preset needs; nothing changed"):
        load_preset(path)
    assert everything() == before
    # a robot with the links but not the joints
    d = json.loads(path.read_text())
    d["virtual_links"] = d["joints"] = d["real_links"] = {}
    d["robot"] = {"links": [], "joints": []}
    d["real_joints"] = {"elbow": d["real_joints"]["elbow"]}
    with pytest.raises(IoError, match="lacks joint 'elbow'"):
        load_preset(d)
    assert everything() == before


def test_applying_twice_is_refused(setup_scene):
    d = preset_data(setup_scene)
    before = everything()
    with pytest.raises(IoError, match=r"the scene already has joints 'probe_ball', 'reach', "
                                      r"'tilt' \(is the preset applied already\?\)"):
        load_preset(d)
    assert everything() == before


@pytest.mark.parametrize("text, message", [
    ("{ not json", "not a vart preset (not JSON"),
    ('{"format": "something-else"}', 'not a vart preset (no "format": "vart-preset")'),
    ('[1, 2]', "not a vart preset"),
    ('{"format": "vart-preset", "version": 99}', "preset version 99 is newer"),
    ('{"format": "vart-preset", "version": 1, "joints": []}', '"joints" must be an object'),
])
def test_files_that_are_not_presets(setup_scene, tmp_path, text, message):
    path = tmp_path / "p.json"
    path.write_text(text)
    before = everything()
    with pytest.raises(IoError) as e:
        load_preset(path)
    assert message in str(e.value) and str(e.value).startswith("p.json: ")
    with pytest.raises(IoError, match="cannot read preset"):
        load_preset(tmp_path / "absent.json")
    assert everything() == before


def test_a_bad_entry_undoes_everything(setup_scene):
    """Virtual links are created and real joints changed before a later entry fails: all of it
    is undone."""
    d = preset_data(setup_scene)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    import_urdf(ARM6)
    before = everything()
    bad = json.loads(json.dumps(d))
    bad["joints"]["reach"]["type"] = "hinge"
    with pytest.raises(IoError, match="unknown joint type 'hinge'.*nothing changed"):
        load_preset(bad)
    assert everything() == before
    bad = json.loads(json.dumps(d))
    bad["real_joints"]["wrist_3"]["rest_q"] = [0.1, 0.2]
    with pytest.raises(IoError, match="wrist_3.*rest_q"):
        load_preset(bad)
    assert everything() == before
    bad = json.loads(json.dumps(d))
    bad["virtual_links"]["Probe"]["T_anchor_link"] = [0] * 15
    with pytest.raises(IoError, match="virtual link 'Probe': T_anchor_link: expected 16 numbers"):
        load_preset(bad)
    assert everything() == before


def test_a_taken_virtual_link_name_is_renamed(setup_scene):
    d = preset_data(setup_scene)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    import_urdf(ARM6)
    other = bpy.data.objects.new("Probe", None)
    scene.collection.objects.link(other)
    res = load_preset(d)
    assert res.links["Probe"].name == "Probe.001" and "vart" not in other.keys()
    data = read_scene(scene.objects)
    assert data.joints["probe_ball"].child == "Probe.001"


def test_the_operators(opkit, tmp_path, capsys):
    build_setup(bpy.context.scene)
    path = tmp_path / "ops.json"
    assert bpy.ops.vart.save_preset(filepath=str(path)) == {'FINISHED'}
    bpy.ops.wm.read_factory_settings(use_empty=True)
    assert bpy.ops.vart.import_urdf(filepath=str(ARM6)) == {'FINISHED'}
    assert bpy.ops.vart.load_preset(filepath=str(path)) == {'FINISHED'}
    out = capsys.readouterr()
    assert "applied preset ops.json: 2 virtual links, 3 joints, goals on 4 real joints and " \
           "1 real links" in out.out + out.err
    before = everything()
    with pytest.raises(RuntimeError, match="Error: the scene already has joints"):
        bpy.ops.vart.load_preset(filepath=str(path))
    assert everything() == before
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    with pytest.raises(RuntimeError, match="Error: .*cannot write"):
        bpy.ops.vart.save_preset(filepath=str(blocker / "x.json"))
