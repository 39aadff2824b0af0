#!/usr/bin/env python3
"""The clearance check of a humanoid, timed (``.venv/bin/python bench/clearance_bench.py``).

example-robot-data's ``talos_reduced.urdf`` (52 links with geometry, 159,000 triangles) is
imported; three joints are keyed over 48 frames (the left and right elbows 0 -> -1.2 and
-1.0 rad, the torso's yaw 0 -> 0.3 rad) and the range is baked; then
:func:`vart_addon.checks.clearance.check_clearance` runs over it ``--repeats`` times (default
3). Printed per scene: the link pairs checked, the pairs left out (touching at the zero
configuration, and ignored), the contacts found, the median wall and CPU time.
``--module`` runs another module's ``check_clearance`` on the same scenes (an older
``clearance.py`` saved as ``vart_addon/checks/clearance_old.py``: before and after on one
machine).

Scenes (``--scene``, default all that this version of vart can build):

- ``origin``: the robot as an import without options leaves it at issue 32: its root link at
  the origin (the legs in the ground), every pair checked;
- ``ground``: placed on the ground (*Place on Ground*, issue 32.3);
- ``srdf``: on the ground, with the SRDF's ``disable_collisions`` pairs ignored (issue 32.4);
- ``origin_srdf``: at the origin as ``origin``, with the SRDF's pairs ignored (``origin`` and
  this one differ by the SRDF alone).

Before and after on one machine: an older commit checked out beside this one (``git worktree
add /tmp/old <commit>``) with this script copied into its ``bench/`` runs its own vart (the
scenes it can build: at issue 32's start, ``origin`` alone); alternate the two runs, with
``OPENBLAS_NUM_THREADS=1``.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import pathlib
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests" / "helpers")]

import bpy  # noqa: E402

import vart_addon  # noqa: E402
from pinocchio_check import ROBOTS  # noqa: E402
from vart_addon.animation.bake import bake  # noqa: E402
from vart_addon.bridge import animation as A  # noqa: E402
from vart_addon.bridge import q_data_path  # noqa: E402
from vart_addon.io_urdf.importer import import_urdf  # noqa: E402

TALOS = ROBOTS / "talos_data" / "robots" / "talos_reduced.urdf"
#: URDF joint -> its values at frames 1 and 48 (rad).
KEYS = {"arm_left_4_joint": (0.0, -1.2), "arm_right_4_joint": (0.0, -1.0),
        "torso_1_joint": (0.0, 0.3)}
FRAMES = 48


def _options() -> dict:
    """The import options of each scene this version of the importer knows."""
    known = inspect.signature(import_urdf).parameters
    out = {"origin": {"place_on_ground": False, "srdf": False} if "srdf" in known else {}}
    if "place_on_ground" in known:
        out["ground"] = {"place_on_ground": True}
        if "srdf" in known:
            out["ground"]["srdf"] = False
            out["srdf"] = {"place_on_ground": True, "srdf": True}
            out["origin_srdf"] = {"place_on_ground": False, "srdf": True}
    return out


def talos(options: dict):
    """A fresh scene (vart registered: the SRDF's pairs need ``scene.vart``) with talos
    imported with ``options``, keyed and baked over FRAMES."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if not hasattr(bpy.types.Scene, "vart"):
        vart_addon.register()
    obs = import_urdf(str(TALOS), **options)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    for joint, values in KEYS.items():
        name = obs.joints[joint]
        ob = next(o for o in obs.values() if name in o["vart"].get("joints", {}))
        for f, q in zip((1, FRAMES), values):
            ob["vart"]["joints"][name]["q"] = [q]
            A.key_channels(ob, q_data_path(name), f)
    bake(scene, 1, FRAMES)
    return scene


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--scene", action="append")
    ap.add_argument("--module", default="vart_addon.checks.clearance",
                    help="the module whose check_clearance runs (e.g. an older version of "
                    "clearance.py saved beside it, to compare on the same machine)")
    args = ap.parse_args()
    check = importlib.import_module(args.module).check_clearance
    options = _options()
    print(f"{'scene':<11} {'frames':>6} {'links':>5} {'pairs':>5} {'left out':>8} "
          f"{'contacts':>8} {'median s':>9} {'cpu s':>7}")
    for key in args.scene or list(options):
        scene = talos(options[key])
        times, cpu = [], []
        for _ in range(args.repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            res = check(scene)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        left_out = len(res.ignored) + len(getattr(res, "excluded", ()))
        print(f"{key:<11} {res.frames:>6} {res.links:>5} {res.pairs:>5} {left_out:>8} "
              f"{len(res.contacts()):>8} {statistics.median(times):>9.3f} "
              f"{statistics.median(cpu):>7.3f}")


if __name__ == "__main__":
    main()
