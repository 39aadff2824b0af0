"""The scene as a model file (issue 23, item 2) in real bpy: Export Vart Model writes the
four-bar (with gravity, masses and a spring) that a Python without Blender reads and solves
to the poses the scene's bridge solves to; a scene the bridge refuses writes nothing."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import bpy
import numpy as np

from repo_paths import REPO
from vart_addon.bridge import schema
from vart_addon.shared.bridge_cache import bridge_for, solve_kw
from vart_addon.solver import model_file as MF

SOLVE_IN_PLAIN_PYTHON = """
import json, sys
from vart_addon.solver import Solver, model_file
lk, settings = model_file.read(sys.argv[1])
Solver(lk, settings).solve()
assert not [m for m in sys.modules if m.split(".")[0] in ("bpy", "mathutils")]
print(json.dumps({n: T.tolist() for n, T in lk.poses().items()}))
"""


def test_exported_model_solves_like_the_scene(vart_registered, tmp_path):
    scene = bpy.context.scene
    assert bpy.ops.vart.add_example(example="fourbar") == {'FINISHED'}
    scene.vart.gravity_enabled = True
    links = [ob for ob in scene.objects if "vart" in ob.keys()]
    for ob in links:  # masses: gravity then moves the mechanism
        schema.update_link(ob, mass=1.0, com=(0.3, 0.0, 0.0))
    ob_a = next(ob for ob in links if "A" in ob["vart"].get("joints", {}))
    schema.update_joint(ob_a, "A", stiffness=20.0)
    before = {ob.name: np.array(ob.matrix_world) for ob in links}
    path = str(tmp_path / "fourbar.json")
    assert bpy.ops.vart.export_model(filepath=path) == {'FINISHED'}
    doc = json.loads(open(path).read())
    assert doc["format"] == "vart-model" and doc["gravity"] == [0.0, 0.0, -9.81]
    assert doc["settings"]["max_ms"] is None
    # the scene's own solve, as Solve does it
    bridge = bridge_for(scene)
    bridge.sync()
    kw = solve_kw(scene, one_shot=True)
    bridge.linkage.set_gravity(kw["gravity"])
    bridge.solve(kw["settings"], sync=False)
    expected = bridge.linkage.poses()
    assert max(np.abs(expected[n] - T).max() for n, T in before.items()) > 1e-3  # it moved
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", SOLVE_IN_PLAIN_PYTHON, path], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert set(got) == set(expected)
    assert max(np.abs(np.array(got[n]) - expected[n]).max() for n in got) < 1e-9
    # and read here: the same linkage as the bridge's
    lk2, _ = MF.read(path)
    assert list(lk2.joints) == list(bridge.linkage.joints)


def test_a_bad_scene_writes_nothing(vart_registered, tmp_path):
    assert bpy.ops.vart.add_example(example="fourbar") == {'FINISHED'}
    ob = next(o for o in bpy.context.scene.objects if "vart" in o.keys()
              and o["vart"].get("joints"))
    name = next(iter(ob["vart"]["joints"].keys()))
    ob["vart"]["joints"][name]["type"] = "hinge"
    path = tmp_path / "bad.json"
    try:
        bpy.ops.vart.export_model(filepath=str(path))
    except RuntimeError as e:
        assert "hinge" in str(e)
    assert not path.exists()
