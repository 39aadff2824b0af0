#!/usr/bin/env python3
"""CPU time of each *Object > Vart* operator on the hexapod, end to end in bpy
(``.venv/bin/python bench/operator_bench.py``; issue 35, item 5: a click should answer in under
0.3 s of CPU, or show progress and stop on Esc).

The scene is story 2 as *Add Example* builds it (the hexapod, its trench and pins, 48 frames
keyed), saved once and opened afresh for every case, its bridge synced before the clock starts
(as after any earlier click). Each case sets up the selection, active joint and 3D cursor a
user would, then calls the operator as its menu entry does (``execute``: dialogs take their
defaults or the values given). Per case: the median of ``--repeats`` runs of this process's CPU
time (``time.process_time``) and wall time, and the solve's summary when the operator solved.
*Operate Joint* on ``trench`` to +0.4 m and back to -0.9 m is the move of the issue (0.9-1.7 s
of CPU before it on a busy machine). Modal operators with a progress bar and Esc (Bake Range,
Drag, Will It Run?, the other checks, Run Study) are left out: their cost is the work they
show progress for (``bench/will_it_run_bench.py``, ``bench/blender_bench.py``).

``--repo PATH`` imports vart from another checkout (an older commit's tree), for before/after
figures on one machine: ``git archive <commit> | tar -x -C /tmp/old`` then ``--repo /tmp/old``.
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

HERE = pathlib.Path(__file__).resolve().parent

#: Over this, a blocking operator must show progress and stop on Esc (issue 35, item 5).
LIMIT_S = 0.3


def _cases():
    """``(label, setup)``: ``setup(scene, bpy, Matrix)`` prepares the scene and returns
    ``(operator name, keyword arguments)``."""
    def joint(name, op, **kw):
        def setup(scene, bpy, Matrix):
            scene.vart.active_joint = name
            return op, kw
        return setup

    def link(obj, op, cursor=None, also=(), **kw):
        def setup(scene, bpy, Matrix):
            ob = bpy.data.objects[obj]
            for o in scene.objects:
                o.select_set(False)
            for o in also:
                bpy.data.objects[o].select_set(True)
            ob.select_set(True)
            bpy.context.view_layer.objects.active = ob
            if cursor is not None:
                scene.cursor.matrix = Matrix.Translation(cursor(ob))
            return op, kw
        return setup

    def wheel_contact(ob):
        p = ob.matrix_world.translation.copy()
        p.z = 0.0
        return p

    def new_cube(op, **kw):
        def setup(scene, bpy, Matrix):
            mesh = bpy.data.meshes.new("bench_box")
            ob = bpy.data.objects.new("bench_box", mesh)
            scene.collection.objects.link(ob)
            for o in scene.objects:
                o.select_set(False)
            ob.select_set(True)
            bpy.context.view_layer.objects.active = ob
            return op, kw
        return setup

    return [
        ("Operate Joint trench +0.4 m", joint("trench", "operate_joint", value=(0.4,) + (0.0,) * 5)),
        ("Operate Joint trench +0.4 m, then -0.9 m (the second)", None),
        ("Operate Joint leg3_knee_pitch +10 deg", joint("leg3_knee_pitch", "operate_joint",
                                                       value=(10.0,) + (0.0,) * 5)),
        ("Solve", joint("trench", "solve")),
        ("Make Links (a new mesh)", new_cube("make_links")),
        ("Add Virtual Link", link("deck", "add_virtual_link", name="bench_link")),
        ("Add Virtual Joint (leg 0's pin)", link("leg0_wheel", "add_joint", cursor=wheel_contact,
                                                 joint_type="revolute", virtual=True,
                                                 name="bench_pin")),
        ("Add Joint (deck to camera, fixed)", link("camera", "add_joint", also=("deck",),
                                                   joint_type="fixed", name="bench_fixed")),
        ("Remove Joint leg5_pin", joint("leg5_pin", "remove_joint")),
        ("Joint Frame from Cursor (trench)", joint("trench", "set_joint_frame_from_cursor")),
        ("Change Joint Type leg5_pin -> spherical", joint("leg5_pin", "change_joint_type",
                                                          joint_type="spherical")),
        ("Invert Joint scoop_roll", joint("scoop_roll", "invert_joint")),
        ("Make Tree Joint scoop_roll", joint("scoop_roll", "make_tree_joint")),
        ("Make Closure Joint leg2_hip_yaw", joint("leg2_hip_yaw", "make_closure_joint")),
        ("Rename Joint leg5_pin", joint("leg5_pin", "rename_joint", new_name="bench_renamed")),
        ("Merge Joint camera_mount", joint("camera_mount", "merge_joint")),
        ("Make Ground Link (leg5_wheel)", link("leg5_wheel", "make_ground_link")),
        ("Split Link (deck)", link("deck", "split_link")),
        ("Set Mass (deck)", link("deck", "set_mass", mass=300.0)),
        ("Lock Joint leg3_knee_pitch", joint("leg3_knee_pitch", "lock", target='JOINT')),
        ("Lock Link (deck)", link("deck", "lock", target='LINK')),
        ("Unlock Joint trench_depth", joint("trench_depth", "unlock", target='JOINT')),
        ("Set Target leg3_knee_pitch", joint("leg3_knee_pitch", "set_target")),
        ("Clear Target trench", joint("trench", "clear_target")),
        ("Set Posture leg3_knee_pitch", joint("leg3_knee_pitch", "set_posture")),
        ("Set Limits leg3_knee_pitch", joint("leg3_knee_pitch", "set_limits",
                                             lower=(-90.0,) * 6, upper=(90.0,) * 6)),
        ("Set Stiffness leg3_knee_pitch", joint("leg3_knee_pitch", "set_stiffness",
                                                stiffness=100.0)),
        ("Key Pose", joint("trench", "key_pose")),
        ("Key Joint trench", joint("trench", "key_joint")),
        ("Make Sublinkage (leg 3's links)", link("leg3_hip", "make_sublinkage", also=(
            "leg3_thigh", "leg3_shin", "leg3_ankle", "leg3_foot", "leg3_wheel"),
            name="bench_leg3", disposition="driven")),
    ]


def run(repo: pathlib.Path, repeats: int) -> list:
    sys.path.insert(0, str(repo))
    import bpy
    from mathutils import Matrix

    import vart_addon
    from vart_addon.shared.bridge_cache import bridge_for

    bpy.ops.wm.read_factory_settings(use_empty=True)
    vart_addon.register()
    assert bpy.ops.vart.add_example(example="trenching") == {'FINISHED'}
    blend = pathlib.Path(tempfile.mkdtemp()) / "story2.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))

    def fresh():
        bpy.ops.wm.open_mainfile(filepath=str(blend))
        vart_addon.register()
        scene = bpy.context.scene
        c = time.process_time()
        bridge_for(scene).sync()
        syncs.append(time.process_time() - c)
        return scene

    syncs: list[float] = []  # the first click after opening the file pays this on top

    def timed(scene, op, kw):
        fn = getattr(bpy.ops.vart, op)
        scene.vart.status_summary = ""
        t, c = time.perf_counter(), time.process_time()
        try:
            result = fn('EXEC_DEFAULT', **kw)
        except RuntimeError as e:  # refused: the case is set up wrong
            result = {f"refused: {str(e).strip()}"}
        cpu, wall = time.process_time() - c, time.perf_counter() - t
        return cpu, wall, result, scene.vart.status_summary

    rows = []
    cases = _cases()
    for k, (label, setup) in enumerate(cases):
        cpus, walls, last = [], [], None
        for _ in range(repeats):
            scene = fresh()
            if setup is None:  # the move back, after the move out
                op, kw = cases[k - 1][1](scene, bpy, Matrix)
                timed(scene, op, kw)
                op, kw = "operate_joint", {"value": (-0.9,) + (0.0,) * 5}
            else:
                op, kw = setup(scene, bpy, Matrix)
            cpu, wall, result, summary = timed(scene, op, kw)
            cpus.append(cpu)
            walls.append(wall)
            last = (result, summary)
        rows.append((label, statistics.median(cpus), statistics.median(walls), *last))
        print(f"{label:56s} {rows[-1][1]:7.3f} s CPU {rows[-1][2]:7.3f} s wall  "
              f"{','.join(last[0])} {last[1]}", flush=True)
    print(f"{'(first click after opening the file: reading the scene)':56s} "
          f"{statistics.median(syncs):7.3f} s CPU")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=pathlib.Path, default=HERE.parent,
                    help="the vart checkout to import (default: this one)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per case (median)")
    args = ap.parse_args(argv)
    rows = run(args.repo.resolve(), args.repeats)
    slow = [r for r in rows if r[1] > LIMIT_S]
    print(f"\n{len(rows)} cases; over {LIMIT_S} s of CPU: "
          + (", ".join(f"{r[0]} ({r[1]:.2f} s)" for r in slow) if slow else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
