#!/usr/bin/env python3
"""Will it run? The clearance check of the four stories, timed (``.venv/bin/python
bench/will_it_run_bench.py``).

Each story is added (*Add Example*) and baked over its 48 frames; then
:func:`vart_addon.checks.clearance.check_clearance` runs over those frames (the plane z = 0,
every link pair not jointed directly), ``--repeats`` times (default 5); the median wall time
is printed with the number of links, pairs and contacts found. The issue asks for under 2 s
per story. Then the MuJoCo replay of the same frames
(:func:`vart_addon.checks.replay.replay_scene_steps`): the median time of the simulation
itself (``ReplayResult.wall_s``: model compile, settling into the first frame, stepping with
the actuator forces kept at every step, the inverse dynamics at every step, the contacts at
every frame) and of the whole call (robot, trajectory read from the keys, model, simulation),
and how much faster than real time the simulation runs, settling included and not (issue 20
asks for 10x for the hexapod; issue 30 for 10x with forces at every step).
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]

import bpy  # noqa: E402

import vart_addon  # noqa: E402
from vart_addon.checks.clearance import check_clearance  # noqa: E402

STORIES = ("camera_tilt", "trenching", "inspection", "pinch")


def story(key: str):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_addon.register()
    try:
        assert bpy.ops.vart.add_example(example=key) == {'FINISHED'}
        assert bpy.ops.vart.bake() == {'FINISHED'}
        yield bpy.context.scene
    finally:
        vart_addon.unregister()


def replay(scene):
    from vart_addon.checks.replay import replay_scene_steps
    steps = replay_scene_steps(scene)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--story", choices=STORIES, action="append")
    args = ap.parse_args()
    print(f"{'story':<12} {'frames':>6} {'links':>5} {'pairs':>5} {'contacts':>8} "
          f"{'median s':>9} {'frames/s':>9}")
    for key in args.story or STORIES:
        for scene in story(key):
            times = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                res = check_clearance(scene)
                times.append(time.perf_counter() - t0)
            t = statistics.median(times)
            print(f"{key:<12} {res.frames:>6} {res.links:>5} {res.pairs:>5} "
                  f"{len(res.contacts()):>8} {t:>9.3f} {res.frames / t:>9.0f}")
            sim, whole = [], []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                rep = replay(scene)
                whole.append(time.perf_counter() - t0)
                sim.append(rep.wall_s)
            s = statistics.median(sim)
            print(f"{'':<12} replay: simulated {rep.sim_s:.2f} s (+ {rep.settle_s:.2f} s "
                  f"settling) in {s:.3f} s ({(rep.sim_s + rep.settle_s) / s:.1f}x real time; "
                  f"{rep.sim_s / s:.1f}x without the settling), {rep.steps} steps; whole "
                  f"call {statistics.median(whole):.3f} s; "
                  f"{'stays up' if rep.stays_up else 'falls'}")


if __name__ == "__main__":
    main()
