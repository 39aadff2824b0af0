"""A joint's ``q`` stored as a plain number, which the schema reads as one value of a 1-DoF
joint (a hand edit, a script: ``ob["vart"]["joints"]["A"]["q"] = 0.5``), is read so by every
reader, not only by the bridge (issue 35: Plot Curves raised TypeError on it). The physics
replay's reading is tested in tests/blender/checks/test_replay.py; a value that is no number
list at all is refused naming the object and field."""
from __future__ import annotations

import re

import bpy
import numpy as np
import pytest

from vart_addon.bridge import joint_values as JV
from vart_addon.bridge import schema as S
from vart_addon.bridge.errors import SchemaError


@pytest.fixture
def fourbar(vart_registered):
    """Add Example's four-bar, baked, then its crank joint's q stored as a number (at the
    first frame: every frame's q is then written by its F-curve into the number)."""
    assert bpy.ops.vart.add_example(example="fourbar") == {'FINISHED'}
    assert bpy.ops.vart.bake() == {'FINISHED'}
    scene = bpy.context.scene
    scene.frame_set(scene.frame_start)
    crank = next(ob for ob in scene.objects if S.is_link(ob) and "A" in ob[S.KEY]["joints"])
    crank[S.KEY]["joints"]["A"]["q"] = float(crank[S.KEY]["joints"]["A"]["q"][0])
    scene.vart.active_joint = "A"
    return scene, crank


def _is_number(crank) -> bool:
    return isinstance(crank[S.KEY]["joints"]["A"]["q"], float)


def test_plot_curves(fourbar):
    """Fixed defect: Plot Curves read the raw property (``len(q)`` of a float)."""
    scene, crank = fourbar
    assert _is_number(crank)
    assert bpy.ops.vart.plot_curves() == {'FINISHED'}
    assert "velocity" in crank["vart_plots"]["A"]


def test_export_trajectory_stepping_the_scene(fourbar, tmp_path):
    """Fixed defect: the export's scene path (used with NLA strips, drivers or constraints)
    indexed the raw property (``q[0]`` of a float)."""
    from vart_addon.io_trajectory.exporting import export_trajectory
    scene, crank = fourbar
    by_scene = export_trajectory(scene, str(tmp_path / "scene.csv"), source="scene",
                                 every_frame=True)
    by_curves = export_trajectory(scene, str(tmp_path / "curves.csv"), source="fcurves",
                                  every_frame=True)
    assert _is_number(crank)
    a, b = by_scene.written, by_curves.written
    assert a.joint_names == b.joint_names and np.abs(a.positions - b.positions).max() < 1e-6


def test_operate_joint_without_a_view_starts_from_the_stored_value(fourbar):
    """Fixed defect: Operate Joint invoked outside a 3D view (a script, the search menu of
    another editor) turned the stored q into its default with ``list(q)``."""
    scene, crank = fourbar
    q0 = crank[S.KEY]["joints"]["A"]["q"]
    assert bpy.ops.vart.operate_joint_modal('INVOKE_DEFAULT') == {'FINISHED'}
    assert JV.stored_q(crank, "A", 1) == pytest.approx((q0,), abs=1e-9)  # where it was


def test_the_bake_check_reads_it(fourbar):
    from vart_addon.examples import check_baked
    scene, crank = fourbar
    out = check_baked(scene, scene.frame_start, scene.frame_end)
    assert out.frames == scene.frame_end - scene.frame_start + 1
    assert out.closure_error < 1e-5


def test_a_value_that_is_not_numbers_is_refused_naming_the_object_and_field(fourbar):
    scene, crank = fourbar
    crank[S.KEY]["joints"]["A"]["q"] = "half"
    where = f"object {crank.name!r}: " + '["vart"]["joints"]["A"]["q"]: expected 1 float'
    with pytest.raises(SchemaError, match=re.escape(where)):
        JV.stored_q(crank, "A", 1)
    plots = crank["vart_plots"].to_dict() if "vart_plots" in crank else None
    with pytest.raises(RuntimeError, match=re.escape(where)):  # the operator's error report
        bpy.ops.vart.plot_curves()
    assert crank[S.KEY]["joints"]["A"]["q"] == "half"  # nothing changed
    assert (crank["vart_plots"].to_dict() if "vart_plots" in crank else None) == plots
