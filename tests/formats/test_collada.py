"""Collada geometry as RViz shows it (issue 17): node transforms and <unit meter> applied,
<up_axis> ignored, a part per material with its diffuse colour, COLLADA 1.4.0 and 1.4.1."""
from __future__ import annotations

import sysconfig
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("collada", reason="pycollada (the shipped wheel) is a dev dependency")

from vart_addon.formats.collada import ColladaError, read_collada  # noqa: E402

ROBOTS = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "share" / \
    "example-robot-data" / "robots"
DAE_FILES = sorted(ROBOTS.rglob("*.dae")) if ROBOTS.is_dir() else []

# a unit triangle per material: "red" as <triangles>, "blue" as a <polylist> quad
_GEOMETRY = """
  <library_effects>
    <effect id="red-fx"><profile_COMMON><technique sid="t"><phong>
      <diffuse><color>1 0 0 1</color></diffuse></phong></technique></profile_COMMON></effect>
    <effect id="blue-fx"><profile_COMMON><technique sid="t"><lambert>
      <diffuse><color>0 0 1 0.5</color></diffuse></lambert></technique></profile_COMMON></effect>
  </library_effects>
  <library_materials>
    <material id="red" name="red"><instance_effect url="#red-fx"/></material>
    <material id="blue" name="blue"><instance_effect url="#blue-fx"/></material>
  </library_materials>
  <library_geometries><geometry id="g"><mesh>
    <source id="p"><float_array id="pa" count="15">0 0 0 1 0 0 0 1 0 1 1 0 0 0 1</float_array>
      <technique_common><accessor source="#pa" count="5" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
    <triangles material="red" count="1"><input semantic="VERTEX" source="#v" offset="0"/>
      <p>0 1 4</p></triangles>
    <polylist material="blue" count="1"><input semantic="VERTEX" source="#v" offset="0"/>
      <vcount>4</vcount><p>0 1 3 2</p></polylist>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s">
    <node id="n"><translate>10 20 30</translate><rotate>0 0 1 90</rotate>
      <instance_geometry url="#g"><bind_material><technique_common>
        <instance_material symbol="red" target="#red"/>
        <instance_material symbol="blue" target="#blue"/>
      </technique_common></bind_material></instance_geometry></node>
  </visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>"""


def dae(tmp_path, version="1.4.1", up="Y_UP", meter=0.001):
    path = tmp_path / f"part_{version}.dae"
    path.write_text(f'<?xml version="1.0"?>\n<COLLADA xmlns="http://www.collada.org/2005/11/'
                    f'COLLADASchema" version="{version}"><asset><unit meter="{meter}"/>'
                    f"<up_axis>{up}</up_axis></asset>{_GEOMETRY}</COLLADA>")
    return path


@pytest.mark.parametrize("version", ["1.4.0", "1.4.1"])
def test_node_transforms_and_units_apply_and_the_up_axis_does_not(tmp_path, version):
    parts = {p.material: p for p in read_collada(dae(tmp_path, version))}
    assert set(parts) == {"red", "blue"}
    red, blue = parts["red"], parts["blue"]
    assert red.rgba == (1.0, 0.0, 0.0, 1.0) and blue.rgba == (0.0, 0.0, 1.0, 0.5)
    # vertex (1, 0, 0): turned 90 degrees about z -> (0, 1, 0), moved by (10, 20, 30), in mm
    want = np.array([[10, 20, 30], [10, 21, 30], [10, 20, 31]]) * 0.001
    np.testing.assert_allclose(red.vertices[red.triangles[0]], want, atol=1e-12)
    assert blue.triangles.shape == (2, 3)  # the quad, as two triangles
    # a Y_UP file is read as it is (RViz ignores <up_axis>): the same as Z_UP
    z_up = {p.material: p for p in read_collada(dae(tmp_path, version, up="Z_UP"))}
    np.testing.assert_array_equal(z_up["red"].vertices, red.vertices)


def test_a_file_that_is_not_collada_is_an_error_naming_it(tmp_path):
    bad = tmp_path / "broken.dae"
    bad.write_text("<COLLADA><asset>")
    with pytest.raises(ColladaError, match="^broken.dae: not a readable Collada file"):
        read_collada(bad)


@pytest.mark.skipif(not DAE_FILES, reason="example-robot-data not installed")
def test_every_collada_mesh_of_example_robot_data_reads_to_triangles():
    assert len(DAE_FILES) == 262
    for path in DAE_FILES:
        parts = read_collada(path)
        assert sum(len(p.triangles) for p in parts) > 0, path
        for p in parts:
            assert p.vertices.dtype == np.float64 and np.isfinite(p.vertices).all(), path
            assert p.triangles.min() >= 0 and p.triangles.max() < len(p.vertices), path
