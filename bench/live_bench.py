#!/usr/bin/env python3
"""Live mode per frame change, end to end in bpy (``.venv/bin/python bench/live_bench.py``).

For each scene (the four hexapod stories and the modular tower, built by *Add Example*):

- **first pass**: live mode on at the first frame, then ``scene.frame_set`` through the range
  in order, as playback does: each frame change solves one new frame (frame_set, the solve
  warm-started from the frame before, the links and joint values written). Median and worst
  ms per frame change.
- **cached**: the same frames again: each is remembered, so a change costs the signature
  checks and writing the poses. Median and worst ms.
- **bake**: Bake Range (``vart_addon.animation.bake.bake``) of the same range from the same
  start, in frames per second, for comparison with the first pass.
- **floor**: the least any live mode pays per frame change to show a frame it solves:
  Blender's frame change with a frame-change handler that only writes the links' world
  matrices (prebuilt ``Matrix`` objects of each frame, as live mode showed them; live mode off),
  that is Blender evaluating the moved objects, plus the solve's own time (median of the first
  pass's solves, the same solve the bake runs). Everything else live mode does (noticing edits,
  choosing what moved, fitting and writing the joint values) comes on top of it.

Real time at 24 fps is 41.7 ms per frame. One BLAS thread. ``--only KEY`` runs one scene.
The last column is this process's CPU time (medians per frame change; the bake's mean per
frame): on a shared machine it moves far less than the wall clock, so compare runs with it.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import bpy  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import vart_addon  # noqa: E402
from vart_addon.animation import live  # noqa: E402
from vart_addon.animation.bake import bake  # noqa: E402
from vart_addon.shared.bridge_cache import bridge_for, solve_kw  # noqa: E402

SCENES = ("camera_tilt", "trenching", "inspection", "pinch", "tower")
REAL_TIME_MS = 1000.0 / 24


def fresh(key):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_addon.register()
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    return bpy.context.scene


def frame_changes(scene, frames) -> tuple[np.ndarray, np.ndarray]:
    """ms per ``frame_set`` to each of ``frames``: wall clock and this process's CPU time."""
    wall, cpu = [], []
    for f in frames:
        t, c = time.perf_counter(), time.process_time()
        scene.frame_set(f)
        wall.append((time.perf_counter() - t) * 1e3)
        cpu.append((time.process_time() - c) * 1e3)
    return np.array(wall), np.array(cpu)


def floor_changes(scene, frames) -> np.ndarray:
    """ms per frame change when a handler only writes each frame's link matrices (read from
    the scene as live mode shows them; called with live mode on, left off)."""
    obs = list(live.link_objects(scene).values())
    shown = {}
    for f in frames:
        scene.frame_set(f)
        shown[f] = [ob.matrix_world.copy() for ob in obs]
    scene.vart.live = False  # the links back where live mode started
    seed = [ob.matrix_world.copy() for ob in obs]

    def write(scene_, *_args):
        for ob, M in zip(obs, shown.get(scene_.frame_current, ())):
            ob.matrix_world = M

    bpy.app.handlers.frame_change_post.append(write)
    try:
        scene.frame_set(frames[0] - 1)
        return frame_changes(scene, frames)[0]
    finally:
        bpy.app.handlers.frame_change_post.remove(write)
        for ob, M in zip(obs, seed):
            ob.matrix_world = M
        bpy.context.view_layer.update()


def run(key) -> dict:
    scene = fresh(key)
    start, end = scene.frame_start, scene.frame_end
    t = time.perf_counter()
    scene.vart.live = True  # solves the first frame
    first_ms = (time.perf_counter() - t) * 1e3
    frames = range(start + 1, end + 1)
    first, first_cpu = frame_changes(scene, frames)
    cached, cached_cpu = frame_changes(scene, frames)
    unmet = "unmet" in scene.vart.status_summary
    solve_ms = np.median([e.status.ms for e in live.cache_of(scene).frames.values()])
    floor = floor_changes(scene, frames)  # turns live mode off: back where it started,
    c = time.process_time()               # where the bake starts too
    res = bake(scene, bridge=bridge_for(scene), **solve_kw(scene, bake=True))
    bake_cpu = (time.process_time() - c) * 1e3 / res.frames
    vart_addon.unregister()
    return dict(frames=end - start + 1, first_ms=first_ms, first=first, cached=cached,
                floor=float(np.median(floor)) + solve_ms, solve_ms=solve_ms,
                first_cpu=first_cpu, cached_cpu=cached_cpu, bake_cpu=bake_cpu,
                bake_fps=res.fps, bake_ms=res.total_ms / res.frames, unmet=unmet)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=SCENES)
    args = ap.parse_args(argv)
    print(f"bpy {bpy.app.version_string}, numpy {np.__version__}, BLAS threads "
          f"{os.environ.get('OPENBLAS_NUM_THREADS')}\n")
    print("| scene | frames | first pass ms/frame (median, worst) | first pass frames/s | "
          "cached ms/frame (median, worst) | bake ms/frame | bake frames/s | real time "
          "at 24 fps (first pass) | CPU ms/frame: first pass, cached, bake | floor ms/frame "
          "(of which the solve) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key in ([args.only] if args.only else SCENES):
        r = run(key)
        f, c = r["first"], r["cached"]
        print(f"| {key} | {r['frames']} | {np.median(f):.2f}, {f.max():.2f} | "
              f"{1e3 / f.mean():.0f} | {np.median(c):.2f}, {c.max():.2f} | "
              f"{r['bake_ms']:.2f} | {r['bake_fps']:.0f} | "
              f"{'yes' if f.max() < REAL_TIME_MS else 'no'} | "
              f"{np.median(r['first_cpu']):.2f}, {np.median(r['cached_cpu']):.2f}, "
              f"{r['bake_cpu']:.2f} | {r['floor']:.2f} ({r['solve_ms']:.2f}) |", flush=True)


if __name__ == "__main__":
    main()
