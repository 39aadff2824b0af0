#!/usr/bin/env python3
"""The modular tower end to end in bpy, by size (``.venv/bin/python bench/tower_blender_bench.py``).

Issue 22's figures in Blender:

- **drag**: the tower of ``--cells`` cells (3 tree joints and 1 closure each; 900 cells =
  2,700 tree joints) built as *Add Example > Tower* builds it (``examples.tower.build_tower``,
  without its keyed pull), its top rung dragged by a
  :class:`vart_addon.drag.session.DragSession` ``--pull`` metres sideways over ``--updates``
  updates. One update = set the target, solve warm-started (the scene's default settings:
  50 ms budget), write the links that moved (``matrix_world``). Per size: median and p95 ms
  per update, its solve and write parts, and what writing every link costs (``write_back``
  after turning the lowest joint, which moves every link above it).
- **bake**: *Add Example > Tower* (MSim's 90 cells, the top's location keyed) and *Tower
  (abstracted)* baked over their range (``vart_addon.animation.bake.bake``), frames per second.

One BLAS thread, as bench/run.py. Figures move with the machine's load: compare in one run.
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
from vart_addon.animation.bake import bake  # noqa: E402
from vart_addon.bridge import SceneBridge  # noqa: E402
from vart_addon.drag.session import DragSession  # noqa: E402
from vart_addon.examples.tower import build_tower  # noqa: E402
from vart_addon.shared.bridge_cache import bridge_for, solve_kw  # noqa: E402
from vart_addon.solver import Settings  # noqa: E402

#: the scene's default solver settings (vart_addon.properties): 100 iterations, 50 ms
SCENE_SETTINGS = Settings(max_iterations=100, max_ms=50.0, lambda_max=0.05)


def fresh():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_addon.register()


def drag(cells: int, updates: int, pull: float) -> dict:
    """Drag the top rung of a ``cells``-cell tower; per-update figures."""
    fresh()
    built = build_tower(bpy.context, cells=cells, pull=False)
    t = time.perf_counter()
    bridge = SceneBridge(bpy.context.scene)
    bridge.solve(Settings())
    bridge.write_back()
    setup = time.perf_counter() - t
    top = built.links[f"rung{cells}"].name
    s = DragSession(bridge, SCENE_SETTINGS)
    T0 = s.begin_link(top)
    solve, write, converged = [], [], 0
    for i in range(1, updates + 1):
        T = np.array(T0, float)
        T[0, 3] += pull * i / updates
        st = s.update(T)
        solve.append(st.ms)
        write.append(s.times[-1] - st.ms)
        converged += st.converged
    total = np.array(s.times)
    s.cancel()
    # what writing every link costs: the lowest joint turned (every link above it moves)
    lk = bridge.linkage
    lk.set_q("c1_left_low", lk.joint("c1_left_low").q + 1e-3)
    t = time.perf_counter()
    rep = bridge.write_back(evaluate=False, values=False)
    all_ms = (time.perf_counter() - t) * 1e3
    vart_addon.unregister()
    return dict(cells=cells, joints=3 * cells, links=len(lk.links), setup=setup,
                median=float(np.median(total)), p95=float(np.percentile(total, 95)),
                solve=float(np.median(solve)), write=float(np.median(write)),
                converged=converged, updates=updates, all_links=len(rep.links),
                all_ms=all_ms)


def bake_example(key: str) -> tuple[int, float, float]:
    """(frames, frames per second, ms per frame) of Bake Range on *Add Example > key*."""
    fresh()
    assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
    scene = bpy.context.scene
    scene.frame_set(scene.frame_start)
    res = bake(scene, bridge=bridge_for(scene), **solve_kw(scene, bake=True))
    vart_addon.unregister()
    return res.frames, res.fps, res.total_ms / res.frames


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", type=int, nargs="+", default=[90, 300, 900])
    ap.add_argument("--updates", type=int, default=30)
    ap.add_argument("--pull", type=float, default=0.3, help="metres along x")
    ap.add_argument("--skip-bake", action="store_true")
    args = ap.parse_args(argv)
    print(f"bpy {bpy.app.version_string}, numpy {np.__version__}\n")
    print("| cells | tree joints | links | ms/update median | p95 | solve | write | "
          "converged | write all links (ms, links) | scene to solver (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c in args.cells:
        r = drag(c, args.updates, args.pull)
        print(f"| {r['cells']} | {r['joints']} | {r['links']} | {r['median']:.1f} | "
              f"{r['p95']:.1f} | {r['solve']:.1f} | {r['write']:.1f} | "
              f"{r['converged']}/{r['updates']} | {r['all_ms']:.1f}, {r['all_links']} | "
              f"{r['setup']:.1f} |", flush=True)
    if not args.skip_bake:
        print("\n| example | frames | bake frames/s | ms/frame |\n|---|---|---|---|")
        for key in ("tower", "tower_abstract"):
            n, fps, ms = bake_example(key)
            print(f"| {key} | {n} | {fps:.0f} | {ms:.1f} |", flush=True)


if __name__ == "__main__":
    main()
