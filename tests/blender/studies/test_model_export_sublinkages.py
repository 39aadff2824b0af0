"""Export Vart Model keeps the scene's sublinkages (model file version 2): the hexapod whose
legs are driven sublinkages is written with them, and Python without Blender reads the same
hierarchy and solve order as the scene's bridge has."""
from __future__ import annotations

import json

import bpy

from vart_addon.shared.bridge_cache import bridge_for
from vart_addon.solver import model_file as MF
from vart_addon.solver.sublinkages import solve_order


def test_the_scene_s_sublinkages_are_in_the_model(vart_registered, tmp_path):
    scene = bpy.context.scene
    assert bpy.ops.vart.add_example(example="athlete_legs") == {'FINISHED'}
    path = tmp_path / "legs.json"
    assert bpy.ops.vart.export_model(filepath=str(path)) == {'FINISHED'}
    doc = json.loads(path.read_text())
    assert doc["version"] == 2 and len(doc["sublinkages"]["tree"]) == 6
    bridge = bridge_for(scene)
    bridge.sync()
    lk, _ = MF.read(path)
    assert {n: (s.parent, s.disposition) for n, s in lk.sublinkages.items()} == \
        {n: (s.parent, s.disposition) for n, s in bridge.linkage.sublinkages.items()}
    assert solve_order(lk) == solve_order(bridge.linkage)
