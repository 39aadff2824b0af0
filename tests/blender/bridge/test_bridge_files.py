"""vart data in .blend files (real bpy): save and reload, a fresh Blender without the extension,
appending into another file (with and without the parent links)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import bpy
import numpy as np
import pytest

from vart_addon.bridge import SceneBridge, SchemaError, read_scene, write_joint, write_link
from vart_addon.solver import se3


@pytest.fixture(autouse=True)
def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    yield


def new(name: str, mesh: bool = True):
    data = None
    if mesh:
        data = bpy.data.meshes.new(name)
        data.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [], [(0, 1, 2)])
    ob = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(ob)
    return ob


def pose(x, y, z, angle=0.0):
    return se3.make_pose(se3.rot_z(angle), [x, y, z])


def build_rich_scene() -> dict:
    """A chain Deck > Arm > Wrist > Tool and a virtual link Probe, using every kind of field:
    locks, limits (finite and infinite), targets, posture, spring, mimic, virtual, helical pitch,
    a 3-DoF and a 0-DoF joint, a closure."""
    obs = {n: new(n, mesh=(n != "Probe")) for n in ("Deck", "Arm", "Wrist", "Tool", "Probe")}
    write_link(obs["Deck"], mass=120.0, com=(0.1, 0.0, 0.3), locked=True,
               lock_pose=pose(0, 0, 1, 0.2))
    write_link(obs["Arm"], mass=3.5, root_tree=False)
    write_link(obs["Wrist"], root_tree=False)
    write_link(obs["Tool"], root_tree=False)
    write_link(obs["Probe"], virtual=True, root_tree=False)
    write_joint(obs["Arm"], "shoulder", "revolute", obs["Deck"], T_parent_mob=pose(0.5, 0, 0),
                q=[0.3], lower=[-1.5], upper=[1.5], target_q=[0.4], posture_q=[0.0],
                stiffness=2.0, rest_q=[0.1])
    write_joint(obs["Wrist"], "wrist", "spherical", obs["Arm"], T_parent_mob=pose(1, 0, 0),
                q=[0.1, -0.2, 0.05], locked=True, lock_q=[0.1, -0.2, 0.05],
                target_q=[0.0, 0.0, 0.3], target_mask=[False, False, True])
    write_joint(obs["Tool"], "mount", "fixed", obs["Wrist"],
                T_child_frame=pose(0, 0, -0.1, 0.5))
    write_joint(obs["Probe"], "screw", "helical", obs["Tool"], q=[1.0], pitch=0.01,
                virtual=True)
    write_joint(obs["Probe"], "slide", "prismatic", None, T_parent_mob=pose(2, 0, 0),
                tree=False, virtual=True, mimic=("shoulder", -0.5, 0.2), lower=[-np.inf],
                upper=[0.9])
    bpy.context.view_layer.update()
    return obs


def plain(v):
    """JSON-able copy of a to_dict() value; ID pointers become {"ID": name}."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, bpy.types.ID):
        return {"ID": v.name}
    return v


def vart_props() -> dict:
    return {ob.name: plain(ob["vart"].to_dict()) for ob in bpy.data.objects if "vart" in ob.keys()}


def test_save_and_reload_reads_identical_data(tmp_path):
    build_rich_scene()
    before = read_scene(bpy.context.scene.objects)
    matrices = {ob.name: np.array(ob.matrix_world) for ob in bpy.data.objects}
    path = str(tmp_path / "rich.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    assert not bpy.data.objects
    bpy.ops.wm.open_mainfile(filepath=path)
    after = read_scene(bpy.context.scene.objects)
    assert after == before
    assert after.joints["slide"].lower == (-np.inf,)  # infinities survive the file
    g = bpy.data.objects["Arm"]["vart"]["joints"]["shoulder"]
    assert g["q"].typecode == "d" and g["tree"] is True  # types survive too
    assert g["parent"] == bpy.data.objects["Deck"]
    for name, M in matrices.items():
        assert np.array_equal(np.array(bpy.data.objects[name].matrix_world), M)


def test_a_fresh_blender_without_the_extension_keeps_the_properties(tmp_path):
    build_rich_scene()
    expected = json.loads(json.dumps(vart_props()))
    path = str(tmp_path / "rich.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    script = (
        "import bpy, json, sys\n"
        "bpy.ops.wm.open_mainfile(filepath=sys.argv[1])\n"
        "def plain(v):\n"
        "    if isinstance(v, dict): return {k: plain(x) for k, x in v.items()}\n"
        "    if isinstance(v, (list, tuple)): return [plain(x) for x in v]\n"
        "    if isinstance(v, bpy.types.ID): return {'ID': v.name}\n"
        "    return v\n"
        "out = {o.name: plain(o['vart'].to_dict())\n"
        "       for o in bpy.data.objects if 'vart' in o.keys()}\n"
        "mods = sorted(m for m in sys.modules if 'vart' in m)\n"
        "addons = sorted(a for a in bpy.context.preferences.addons.keys() if 'vart' in a)\n"
        "print('VART-JSON' + json.dumps({'data': out, 'modules': mods, 'addons': addons}))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", script, path], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("VART-JSON"))
    got = json.loads(line[len("VART-JSON"):])
    assert got["modules"] == [] and got["addons"] == []  # vart is not there at all
    assert got["data"] == expected
    assert got["data"]["Arm"]["joints"]["shoulder"]["parent"] == {"ID": "Deck"}


def test_appending_a_link_brings_its_parent_links_and_keeps_its_joints(tmp_path):
    build_rich_scene()
    before = read_scene(bpy.context.scene.objects)
    path = str(tmp_path / "rich.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    result = bpy.ops.wm.append(filepath=f"{path}/Object/Tool", directory=f"{path}/Object/",
                               filename="Tool")
    assert result == {'FINISHED'}
    scene_names = sorted(ob.name for ob in bpy.context.scene.objects)
    assert scene_names == ["Arm", "Deck", "Tool", "Wrist"]  # the parents came along (pointers)
    after = read_scene(bpy.context.scene.objects)
    for name in scene_names:
        assert after.links[name] == before.links[name]
    assert after.joints == {n: j for n, j in before.joints.items() if j.child in scene_names}
    bridge = SceneBridge()
    assert bridge.sync() and set(bridge.linkage.joints) == {"shoulder", "wrist", "mount"}


def test_appending_a_link_without_its_parent_is_reported_clearly(tmp_path):
    build_rich_scene()
    path = str(tmp_path / "rich.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    with bpy.data.libraries.load(path, link=False) as (src, dst):
        dst.objects = ["Tool"]
    tool = dst.objects[0]
    bpy.context.scene.collection.objects.link(tool)  # the parents are in bpy.data only
    assert tool["vart"]["joints"]["mount"]["type"] == "fixed"  # the joint itself is kept
    with pytest.raises(SchemaError) as e:
        SceneBridge().sync()
    assert str(e.value) == ('object \'Tool\': ["vart"]["joints"]["mount"]["parent"]: the parent '
                            "object 'Wrist' is not in this scene (deleted, or not appended "
                            "with this object)")
    bpy.data.objects.remove(bpy.data.objects["Wrist"])  # now the pointer is gone altogether
    assert tool["vart"]["joints"]["mount"]["parent"] is None
    with pytest.raises(SchemaError, match="parent object 'Wrist' no longer exists"):
        read_scene(bpy.context.scene.objects)
    assert tool["vart"]["joints"]["mount"]["parent_name"] == "Wrist"
