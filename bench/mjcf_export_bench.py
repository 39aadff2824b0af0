#!/usr/bin/env python3
"""MJCF export of the hexapod, timed (``.venv/bin/python bench/mjcf_export_bench.py``).

Story 1 is added (*Add Example*) and baked; then
:func:`vart_addon.checks.mjcf_export.export_mjcf` writes the robot at frame 20 (with the
story's pins and tilt as equalities) into a temporary folder, ``--repeats`` times (default 5).
Printed: the median wall time of the whole call (robot and meshes read from the scene, the
posed model compiled, STL files and XML written), the XML's size and the meshes' total size.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]

import bpy  # noqa: E402

import vart_addon  # noqa: E402
from vart_addon.checks.mjcf_export import export_mjcf  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_addon.register()
    try:
        assert bpy.ops.vart.add_example(example="camera_tilt") == {'FINISHED'}
        assert bpy.ops.vart.bake() == {'FINISHED'}
        scene = bpy.context.scene
        times = []
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "athlete.xml")
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                res = export_mjcf(path, scene, frame=20, virtual_closures=True)
                times.append(time.perf_counter() - t0)
            meshes = sum(os.path.getsize(p) for p in res.file.mesh_files)
        print(f"hexapod MJCF export: {statistics.median(times) * 1e3:.0f} ms (median of "
              f"{args.repeats}); XML {res.file.xml_bytes / 1e3:.1f} kB, "
              f"{len(res.file.mesh_files)} STL meshes {meshes / 1e3:.0f} kB, "
              f"{len(res.closures)} closures")
    finally:
        vart_addon.unregister()


if __name__ == "__main__":
    main()
