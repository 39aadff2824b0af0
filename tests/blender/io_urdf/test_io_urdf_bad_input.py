"""URDF import of bad input: malformed XML, unknown joint types, cycles, missing links, bad
numbers, values outside limits, unreadable files; and a failure half-way through building.
Each is a clear message naming the element, and the scene and bpy.data exactly as before
(objects, their properties, meshes, materials, collections)."""
from __future__ import annotations

import bpy
import pytest

from repo_paths import DATA
from vart_addon.io_urdf import IoError
from vart_addon.io_urdf import robot_objects as RO
from vart_addon.io_urdf.importer import import_urdf

BAD = DATA / "bad"
ARM6 = DATA / "arm6" / "arm6.urdf"

_KINDS = ("objects", "meshes", "materials", "collections", "images", "node_groups")


def everything() -> dict:
    """Every datablock name by kind, and every object's properties, parent and matrix."""
    bpy.context.view_layer.update()
    out = {k: sorted(x.name for x in getattr(bpy.data, k)) for k in _KINDS}
    for ob in bpy.data.objects:
        raw = ob.get("vart")
        out[f"ob:{ob.name}"] = (repr(raw.to_dict() if hasattr(raw, "to_dict") else raw),
                                None if ob.parent is None else ob.parent.name,
                                tuple(x for row in ob.matrix_world for x in row),
                                tuple(c.name for c in ob.users_collection))
    out["scene_children"] = [c.name for c in bpy.context.scene.collection.children]
    out["selected"] = sorted(ob.name for ob in bpy.context.selected_objects)
    return out


@pytest.fixture
def busy_scene():
    """A scene that already holds a robot (so 'nothing added' is checked against something)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    import_urdf(ARM6)
    bpy.data.objects["base_link"].select_set(True)
    return bpy.context.scene


CASES = [
    ("malformed.urdf", ["malformed.urdf: malformed XML at line 6", "mismatched tag"]),
    ("unknown_type.urdf", ["unknown_type.urdf: joint 'knee': unknown type 'hinge'"]),
    ("cycle.urdf", ["cycle.urdf: joints 'j_bc', 'j_cd', 'j_db' form a cycle"]),
    ("missing_link.urdf", ["missing_link.urdf: joint 'j': child link 'ghost' does not exist"]),
    ("bad_number.urdf", ["bad_number.urdf: joint 'j': <origin> xyz value '1..5' is not a number"]),
]


@pytest.mark.parametrize("name, messages", CASES, ids=[c[0] for c in CASES])
def test_bad_files_are_refused_and_add_nothing(busy_scene, name, messages):
    before = everything()
    with pytest.raises(IoError) as e:
        import_urdf(BAD / name)
    for m in messages:
        assert m in str(e.value)
    assert everything() == before


@pytest.mark.parametrize("name, messages", CASES[:3], ids=[c[0] for c in CASES[:3]])
def test_the_operator_reports_and_adds_nothing(opkit, name, messages):
    import_urdf(ARM6)
    before = everything()
    with pytest.raises(RuntimeError) as e:
        bpy.ops.vart.import_urdf(filepath=str(BAD / name))
    assert str(e.value).startswith("Error: ")
    for m in messages:
        assert m in str(e.value)
    assert everything() == before


def test_values_vart_refuses(busy_scene):
    before = everything()
    with pytest.raises(IoError, match=r"arm6.urdf: URDF joint 'elbow': value 3.0 is outside its "
                                      r"limits \[-2.6, 2.6\]"):
        import_urdf(ARM6, q={"elbow": 3.0})
    with pytest.raises(IoError, match="arm6.urdf: q: unknown joint 'the_elbow'"):
        import_urdf(ARM6, q={"the_elbow": 0.1})
    with pytest.raises(IoError, match=r"arm6.urdf: q\['shoulder_lift'\] is not finite: nan"):
        import_urdf(ARM6, q={"shoulder_lift": float("nan")})
    assert everything() == before


def test_unreadable_and_empty_files(busy_scene, tmp_path):
    before = everything()
    with pytest.raises(IoError, match="cannot read URDF"):
        import_urdf(tmp_path / "absent.urdf")
    with pytest.raises(IoError, match="cannot read URDF"):
        import_urdf(tmp_path)  # a folder
    (tmp_path / "empty.urdf").write_text("")
    with pytest.raises(IoError, match="empty.urdf: malformed XML"):
        import_urdf(tmp_path / "empty.urdf")
    (tmp_path / "xacro.urdf").write_text(  # a URDF using xacro is expanded: a bad one refused
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="x">'
        '<xacro:nope/><link name="a"/></robot>')
    with pytest.raises(IoError, match="xacro.urdf: xacro: unknown macro name: xacro:nope"):
        import_urdf(tmp_path / "xacro.urdf")
    assert everything() == before


@pytest.mark.parametrize("fail_at", ["write_link", "write_joint", "check"])
def test_a_failure_while_building_removes_everything_added(busy_scene, monkeypatch, fail_at):
    """Not expected to happen, but if it does: every object, mesh, material and collection the
    import added is removed again (meshes imported from files included)."""
    before = everything()
    calls = {"n": 0}

    def boom(*args, **kw):
        calls["n"] += 1
        raise RuntimeError(f"simulated failure in {fail_at}")

    if fail_at == "check":  # the records read back through the schema's validation
        monkeypatch.setattr(RO.S, "read_scene", boom)
    else:
        real = getattr(RO.S, fail_at)

        def flaky(*args, **kw):
            calls["n"] += 1
            if calls["n"] == 3:
                raise RuntimeError(f"simulated failure in {fail_at}")
            return real(*args, **kw)
        monkeypatch.setattr(RO.S, fail_at, flaky)
    with pytest.raises(RuntimeError, match="simulated failure"):
        import_urdf(ARM6)
    assert calls["n"] >= 1
    assert everything() == before


def test_a_mesh_importer_failure_is_only_a_warning(busy_scene, tmp_path):
    """A mesh file that exists but is not readable, in each format: an Empty stands in and
    whatever the importer created is gone."""
    for ext in ("stl", "obj", "ply"):
        (tmp_path / f"broken.{ext}").write_bytes(b"\x00\x01 not a mesh \xff")
    (tmp_path / "r.urdf").write_text(
        '<robot name="r"><link name="a">'
        + "".join(f'<visual><geometry><mesh filename="broken.{e}"/></geometry></visual>'
                  for e in ("stl", "obj", "ply"))
        + '<visual><geometry><mesh filename="nowhere/x.stl"/></geometry></visual>'
        + '<visual><geometry><mesh filename="r.urdf"/></geometry></visual>'
        + "</link></robot>")
    meshes = set(bpy.data.meshes)
    obs = import_urdf(tmp_path / "r.urdf", use_env=False)
    assert len(obs.missing) == 5 and len(obs.warnings) == 5
    assert all(k.type == 'EMPTY' for k in obs.visuals["a"])
    assert set(bpy.data.meshes) == meshes
    assert "unsupported mesh format '.urdf'" in obs.warnings[4]
