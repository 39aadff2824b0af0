#!/usr/bin/env python3
"""Trajectory export time (``.venv/bin/python bench/export_bench.py``): the tower example
(*Add Example > Modular Tower*: 90 four-bar cells, 270 real revolute tree joints, 90 real
closures, on a real fixed joint to the ground) keyed over its frames, baked over ``--frames``
frames (default 1000; its keys stay at their last pose after frame 96), then
:func:`vart_addon.io_trajectory.export_trajectory` to .csv, .json and .path timed whole
(sampling, derivatives, limit checks, waypoints, the Klampt layout, the atomic write), plus
a uniform re-timing to .json. Prints the median of ``--repeats`` runs per file, in seconds.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import pathlib  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import bpy  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    import vart_addon
    from vart_addon import io_trajectory as TB
    from vart_addon.animation import bake as BK
    from vart_addon.formats.trajectory.timing import Limits

    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_addon.register()
    scene = bpy.context.scene
    assert bpy.ops.vart.add_example(example="tower") == {'FINISHED'}
    scene.frame_start, scene.frame_end = 1, args.frames
    t0 = time.perf_counter()
    BK.bake(scene, 1, args.frames)
    print(f"bake of {args.frames} frames: {time.perf_counter() - t0:.1f} s")
    runs = [(".csv", {}), (".json", {}), (".path", {}),
            (".json", {"retime": "uniform", "limits": Limits(velocity=1.0)})]
    with tempfile.TemporaryDirectory() as tmp:
        for ext, kw in runs:
            times = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                res = TB.export_trajectory(scene, os.path.join(tmp, "m" + ext), **kw)
                times.append(time.perf_counter() - t0)
            what = ext + (" (uniform re-timing)" if kw else "")
            print(f"export {what:30s} {statistics.median(times):6.3f} s  "
                  f"({res.written.n_times} waypoints x {res.written.n_joints} values)")
    vart_addon.unregister()


if __name__ == "__main__":
    main()
