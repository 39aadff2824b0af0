"""Issue 32.5: *Export URDF* writes a self-contained package. example-robot-data's solo12 (STL
meshes named by package://), talos (many links) and UR5 (Collada visuals) are imported and
exported into an empty folder: the export re-imports from that folder alone with every mesh,
loads in Pinocchio (the folder as its package directory) and in MuJoCo as it is, and the
report counts the files written."""
from __future__ import annotations

import os

import bpy
import pytest

from pinocchio_check import ROBOTS
from vart_addon.io_urdf.exporter import export_urdf
from vart_addon.io_urdf.importer import import_urdf

pin = pytest.importorskip("pinocchio", reason="Pinocchio (PyPI pin) is a dev dependency")
mujoco = pytest.importorskip("mujoco", reason="MuJoCo (PyPI mujoco-core) is a dev dependency")

ROBOT_FILES = {"solo12": "solo_description/robots/solo12.urdf",
               "talos": "talos_data/robots/talos_reduced.urdf",
               "ur5": "ur_description/urdf/ur5_robot.urdf"}


@pytest.mark.parametrize("name", sorted(ROBOT_FILES))
def test_the_export_is_a_package_that_loads_everywhere(scene, tmp_path, name):
    obs = import_urdf(ROBOTS / ROBOT_FILES[name])
    n_visuals = sum(len(v) for v in obs.visuals.values())
    out = tmp_path / "export" / f"{name}.urdf"
    out.parent.mkdir()
    res = export_urdf(out)
    # what it wrote, it counts: every file in meshes/, and nothing else beside the URDF
    folder = out.parent / "meshes"
    assert sorted(os.listdir(out.parent)) == ["meshes", f"{name}.urdf"]
    assert sorted(res.meshes) == sorted(str(p) for p in folder.iterdir()) and res.meshes
    named = {g.geometry.filename for link in res.robot.links
             for g in (*link.visuals, *link.collisions) if g.geometry.kind == "mesh"}
    assert all(f.startswith("meshes/") for f in named)
    assert {f"meshes/{os.path.basename(m)}" for m in res.meshes} == named
    # re-imported from its own folder alone: every mesh
    bpy.ops.wm.read_factory_settings(use_empty=True)
    again = import_urdf(out, use_env=False)
    assert again.missing == [] and sum(len(v) for v in again.visuals.values()) == n_visuals
    # Pinocchio, with the folder as its package directory
    model = pin.buildModelFromUrdf(str(out))
    for kind in (pin.GeometryType.VISUAL, pin.GeometryType.COLLISION):
        geoms = pin.buildGeomFromUrdf(model, str(out), kind, package_dirs=[str(out.parent)])
        assert geoms.ngeoms > 0
    # MuJoCo, as it is
    m = mujoco.MjModel.from_xml_path(str(out))
    assert m.nmesh > 0


def test_the_operator_reports_the_files_it_wrote(vart_registered, tmp_path, capsys):
    import_urdf(ROBOTS / ROBOT_FILES["solo12"])
    out = tmp_path / "solo.urdf"
    assert bpy.ops.vart.export_urdf(filepath=str(out)) == {'FINISHED'}
    text = capsys.readouterr()
    n = len(os.listdir(tmp_path / "meshes"))
    assert f"{n} mesh files written to meshes/" in text.out + text.err and n == 10
