"""``make demo`` in miniature (real bpy, headless): demo/demo.py with 6 frames and a small
picture, into a temporary folder. The full demo is the same code with 48 frames."""
import pathlib

import bpy
import numpy as np

from repo_paths import load_script


def load_demo():
    return load_script("demo/demo.py", "vart_demo")


def test_demo_builds_bakes_exports_and_renders(tmp_path, capsys):
    demo = load_demo()
    f = demo.main(["--frames", "6", "--out", str(tmp_path), "--size", "240x160"])
    assert f["ok"] and f["frames"] == 6
    assert f["closures"] == 6 and f["closure_error"] <= 1e-6 and f["limit_excess"] == 0.0
    assert 2 <= f["waypoints"] <= 6 and f["joints"] == 36  # (6 frames: too fast for the
    # URDF's velocity limits; the 48 of make demo are within them)
    names = sorted(pathlib.Path(p).name for p in f["paths"])
    assert names == ["camera_tilt.blend", "camera_tilt.csv", "camera_tilt.json",
                     "camera_tilt.path", "demo.png"]
    for p in f["paths"]:
        assert pathlib.Path(p).stat().st_size > 0
    csv = (tmp_path / "camera_tilt.csv").read_text().splitlines()
    assert csv[0].startswith("time_s,") and "tilt" not in csv[0]  # real joints only
    assert len(csv) == 1 + f["waypoints"]
    img = bpy.data.images.load(str(tmp_path / "demo.png"))
    assert tuple(img.size) == (2 * 240 + 6, 160)  # both poses side by side
    px = np.empty(img.size[0] * img.size[1] * 4, np.float32)
    img.pixels.foreach_get(px)
    bpy.data.images.remove(img)
    px = px.reshape(160, 2 * 240 + 6, 4)
    for half in (px[:, :240], px[:, 246:]):  # the camera's red line of sight in each
        red = half[..., 0] - np.maximum(half[..., 1], half[..., 2]) > 0.2  # nothing else is
        assert red.sum() >= 5, red.sum()
    out = capsys.readouterr().out
    for line in ("frames baked:", "bake time:", "largest closure error:",
                 "waypoints written:", "camera_tilt.csv"):
        assert line in out
    assert not hasattr(bpy.types.Scene, "vart")  # the demo unregistered what it registered
