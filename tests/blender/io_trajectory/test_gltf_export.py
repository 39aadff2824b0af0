"""The baked motion as one glTF animation (issue 32, item 7): a story exported re-imports in
Blender to the baked poses, as one clip, and the Khronos glTF validator (npm, installed by
make test in tools/gltf_validator) finds no error in the file."""
from __future__ import annotations

import json
import shutil
import subprocess

import bpy
import numpy as np
import pytest

from repo_paths import REPO

VALIDATOR = REPO / "tools" / "gltf_validator"


def gltf_json(path) -> dict:
    """The JSON of a .gltf file, or of a .glb's first chunk."""
    data = path.read_bytes()
    if path.suffix == ".gltf":
        return json.loads(data)
    length = int.from_bytes(data[12:16], "little")  # header 12 bytes, then chunk 0: JSON
    return json.loads(data[20:20 + length])


def baked(key="camera_tilt"):
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    scene = bpy.context.scene
    scene.vart.check_after_bake = False
    assert bpy.ops.vart.bake() == {'FINISHED'}
    links = [ob for ob in scene.objects if "vart" in ob.keys()]
    poses = {}
    for f in (1, 17, 48):
        scene.frame_set(f)
        poses[f] = {ob.name: np.array(ob.matrix_world) for ob in links}
    return scene, poses


#: Exports the saved scene with the operator and imports the file back, in a Python of its
#: own: Blender 4.2's bpy module crashes when its process exits after a glTF export or import
#: (a plain cube exported does it), so the export runs where that exit does not end the tests.
EXPORT_AND_IMPORT = """
import json, os, sys
sys.path.insert(0, {repo!r})
import bpy
import numpy as np
import vart_addon
bpy.ops.wm.open_mainfile(filepath={blend!r})
vart_addon.register()
assert bpy.ops.vart.export_gltf(filepath={path!r}) == {{'FINISHED'}}
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath={path!r})
scene, poses = bpy.context.scene, {{}}
for f in {frames!r}:
    scene.frame_set(f)
    poses[f] = {{ob.name: np.array(ob.matrix_world).tolist() for ob in scene.objects}}
print("POSES" + json.dumps(poses))
sys.stdout.flush()
os._exit(0)
"""


@pytest.mark.parametrize("ext", [".glb", ".gltf"])
def test_a_story_is_one_clip_that_re_imports_to_its_baked_poses(vart_registered, tmp_path,
                                                                 ext):
    import sys
    scene, poses = baked()
    blend = tmp_path / "story.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), copy=True)
    path = tmp_path / f"story{ext}"
    code = EXPORT_AND_IMPORT.format(repo=str(REPO), blend=str(blend), path=str(path),
                                    frames=sorted(poses))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("POSES")), None)
    assert line is not None, out.stdout[-2000:] + out.stderr[-2000:]
    back = json.loads(line[len("POSES"):])
    doc = gltf_json(path)
    assert len(doc["animations"]) == 1  # one clip (the defaults wrote one per link)
    moved = {ch["target"]["node"] for ch in doc["animations"][0]["channels"]}
    names = {doc["nodes"][i]["name"] for i in moved}
    assert set(poses[1]) <= names  # every link in it
    worst = max(float(np.abs(np.array(back[str(f)][name]) - M).max())
                for f, want in poses.items() for name, M in want.items())
    assert worst < 1e-5
    node = shutil.which("node")
    assert node is not None and (VALIDATOR / "node_modules").is_dir(), \
        "make test installs the glTF validator (Node.js and npm needed)"
    out = subprocess.run([node, str(VALIDATOR / "validate.js"), str(path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["errors"] == 0, report["messages"]
    assert report["animations"] == 1


def test_nothing_baked_or_a_wrong_extension_is_refused(vart_registered, tmp_path):
    import blender_scenes as BS
    from vart_addon.bridge import schema as S
    S.write_link(BS.cube("block"), mass=1.0)  # a link, nothing animated
    with pytest.raises(RuntimeError, match="nothing is animated"):
        bpy.ops.vart.export_gltf(filepath=str(tmp_path / "x.glb"))
    from vart_addon.io_trajectory.gltf_export import export_gltf
    from vart_addon.io_trajectory.joint_columns import TrajectoryError
    with pytest.raises(TrajectoryError, match="must end in .glb or .gltf"):
        export_gltf(tmp_path / "x.obj")
    assert not list(tmp_path.iterdir())
