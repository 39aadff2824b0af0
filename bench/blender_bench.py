#!/usr/bin/env python3
"""Drag and bake end to end in bpy (``.venv/bin/python bench/blender_bench.py``).

Scenes (tests/helpers/blender_scenes.py): the benchmark hexapod P1 (50 links, 42 tree DoF, 6 feet
pinned by spherical closures) and the ladder P3 (452 links, 270 revolute joints, 90 revolute
closures), written into a Blender scene through the bridge's schema functions.

- **drag**: a :class:`vart_addon.drag.session.DragSession` on the hexapod's ``deck_handle`` follows the
  120 poses of P1's drag path; one update = set the target, solve warm-started (the scene's
  default settings: time budget 50 ms), write the changed links and joint values. Figures:
  median / p95 ms per update, and its solve and write parts.
- **bake**: :func:`vart_addon.animation.bake.bake` of N frames, timed whole (frame_set, solve, collect,
  bulk keyframe writing), in frames per second, through a bridge already synced (as the
  operator's cached one: the linkage's one-time build is not a bake cost). Hexapod: the virtual tilt joint ``base_rx``
  keyed 0 -> 20 degrees (story 1). Ladder: the handle's location keyed at every 10th point
  of P3's path (a link target on its position, as P3's drag).

One BLAS thread, as bench/run.py (set before numpy is imported). ``--frames N`` (default
120), ``--repeats R`` for the bakes (the median is printed), ``--skip-ladder``;
``--balance M``: the hexapod's drag and bake with a *Balance* goal on its deck (margin ``M``
m, the support of its six pinned feet), ``--torque E``: a *Torque Limit* of ``E`` (N m) on
every 1-DoF tree joint of the hexapod, each for its cost against a run without.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import bpy  # noqa: E402
import numpy as np  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
# A script: the repository (vart_addon), bench/ (vart_bench) and the test helpers' scene
# builders (tests/helpers/blender_scenes.py, shared with the Blender tests).
sys.path[:0] = [str(HERE.parent), str(HERE), str(HERE.parent / "tests" / "helpers")]

import blender_scenes as BS  # noqa: E402
from vart_addon.animation import bake as BK  # noqa: E402
from vart_addon.bridge import SceneBridge, q_data_path  # noqa: E402
from vart_addon.bridge import animation as A  # noqa: E402
from vart_addon.drag.session import DragSession  # noqa: E402
from vart_addon.solver import Settings  # noqa: E402

#: the scene's default solver settings (vart_addon.properties): 100 iterations, 50 ms
SCENE_SETTINGS = Settings(max_iterations=100, max_ms=50.0, lambda_max=0.05)


#: ``--balance``: the margin (m) of a balance goal on the hexapod's deck, None: no goal;
#: ``--torque``: the effort (N m) of a torque limit on each of its 1-DoF tree joints.
BALANCE: list = [None]
TORQUE: list = [None]


def fresh():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def hexapod():
    """The hexapod scene (:func:`blender_scenes.hexapod_scene`), with ``--balance``'s goal."""
    from vart_addon.bridge import schema
    prob, obs = BS.hexapod_scene()
    if BALANCE[0] is not None:
        schema.update_link(obs["deck"], balance=True, balance_margin=BALANCE[0])
    if TORQUE[0] is not None:
        for ob in obs.values():
            for j in schema.read_object(ob)[1]:
                if j.tree and j.dof == 1:
                    schema.update_joint(ob, j.name, torque_limit=True,
                                        torque_limit_effort=TORQUE[0])
    return prob, obs


def settle(bridge):
    bridge.solve(Settings())
    bridge.write_back()


def bench_drag(frames: int) -> dict:
    fresh()
    prob, obs = hexapod()
    bridge = SceneBridge(bpy.context.scene)
    settle(bridge)
    link = prob.drag["frame"]
    s = DragSession(bridge, SCENE_SETTINGS)
    s.begin_link(link)
    solve_ms, write_ms, worst = [], [], 0.0
    pins = {h["frame"]: np.array(h["world"]) for h in prob.hard}
    n = min(frames, prob.n_frames)
    for f in range(n):
        st = s.update(prob.target_pose(f))
        solve_ms.append(st.ms)
        write_ms.append(s.times[-1] - st.ms)
        for foot, w in pins.items():
            worst = max(worst, float(np.linalg.norm(bridge.linkage.pose(foot)[:3, 3] - w)))
    total = np.array(s.times)
    s.cancel()
    return dict(updates=n, median=float(np.median(total)), p95=float(np.percentile(total, 95)),
                solve=float(np.median(solve_ms)), write=float(np.median(write_ms)),
                feet=worst)


def bake_hexapod(frames: int) -> BK.BakeResult:
    fresh()
    prob, obs = hexapod()
    bridge = SceneBridge(bpy.context.scene)  # as the operator's cached bridge: built once
    settle(bridge)
    deck = obs["deck"]
    g = deck["vart"]["joints"]["base_rx"]
    q0 = g["q"][0]
    A.key_channels(deck, q_data_path("base_rx"), 1)
    g["q"] = [q0 + math.radians(20)]
    A.key_channels(deck, q_data_path("base_rx"), frames)
    scene = bpy.context.scene
    scene.frame_set(1)
    return BK.bake(scene, 1, frames, settings=Settings(max_ms=None), bridge=bridge)


def bake_ladder(frames: int) -> BK.BakeResult:
    fresh()
    prob, obs = BS.ladder_scene()
    bridge = SceneBridge(bpy.context.scene)
    settle(bridge)
    handle = obs[prob.drag["frame"]]
    n = min(frames, prob.n_frames)
    for f in list(range(0, n, 10)) + [n - 1]:
        p = prob.path[f]
        M = handle.matrix_world.copy()
        M.translation = (float(p[0]), float(p[1]), float(p[2]))
        handle.matrix_world = M
        A.key_channels(handle, "location", f + 1)
    scene = bpy.context.scene
    scene.frame_set(1)
    return BK.bake(scene, 1, n, settings=Settings(max_ms=None), bridge=bridge)


def median_bake(fn, frames, repeats):
    runs = [fn(frames) for _ in range(repeats)]
    runs.sort(key=lambda r: r.total_ms)
    return runs[len(runs) // 2]


def report_bake(name, r: BK.BakeResult):
    other = r.total_ms - r.solve_ms
    print(f"| {name} | {r.frames} | {r.fps:.1f} | {r.total_ms / r.frames:.2f} | "
          f"{r.solve_ms / r.frames:.2f} | {other / r.frames:.2f} | {r.curves} | "
          f"{len(r.unmet)} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--skip-ladder", action="store_true")
    ap.add_argument("--balance", type=float, default=None)
    ap.add_argument("--torque", type=float, default=None)
    args = ap.parse_args(argv)
    BALANCE[0], TORQUE[0] = args.balance, args.torque
    if not BS.available():
        sys.exit(f"no benchmark problems in {BS.vb.DEFAULT_PROBLEMS}")
    print(f"bpy {bpy.app.version_string}, numpy {np.__version__}, BLAS threads "
          f"{os.environ.get('OPENBLAS_NUM_THREADS')}")
    d = bench_drag(args.frames)
    print("\n## Drag (hexapod P1, deck_handle along P1's path)\n")
    print("| updates | median ms/update | p95 ms | solve ms (median) | write ms (median) | "
          "worst foot error m |")
    print("|---|---|---|---|---|---|")
    print(f"| {d['updates']} | {d['median']:.2f} | {d['p95']:.2f} | {d['solve']:.2f} | "
          f"{d['write']:.2f} | {d['feet']:.1e} |")
    print("\n## Bake\n")
    print("| scene | frames | frames/s | ms/frame | solve ms/frame | rest ms/frame "
          "(frame_set, collect, keys) | F-curves | frames with unmet goals |")
    print("|---|---|---|---|---|---|---|---|")
    t = time.perf_counter()
    report_bake("hexapod (base_rx 0 -> 20 deg)", median_bake(bake_hexapod, args.frames,
                                                              args.repeats))
    if not args.skip_ladder:
        report_bake("ladder P3 (handle location keyed)",
                    median_bake(bake_ladder, args.frames, args.repeats))
    print(f"\n({time.perf_counter() - t:.1f} s for the bakes)")


if __name__ == "__main__":
    main()
