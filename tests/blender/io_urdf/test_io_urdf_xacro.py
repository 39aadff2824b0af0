"""Import URDF takes xacro files (issue 17): expanded by ROS's xacro with the arguments typed
in the operator, meshes found through the package, link poses as the xacro says; a bad file
or argument is an error report with nothing added."""
from __future__ import annotations

import bpy
import numpy as np
import pytest

from repo_paths import REPO
from vart_addon.bridge import SceneBridge, read_scene
from vart_addon.bridge import schema as S
from vart_addon.formats.urdf import files as urdf
from vart_addon.formats.urdf import xacro_files as X
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf
from vart_addon.io_urdf.visuals import MISSING_KEY

ARM = REPO / "tests" / "data" / "xacro" / "arm_description" / "urdf" / "arm.urdf.xacro"


def links() -> dict:
    return {ob.name: ob for ob in bpy.context.scene.objects if S.is_link(ob)}


def test_a_xacro_file_imports_through_the_operator_with_its_arguments(vart_registered):
    assert bpy.ops.vart.import_urdf(filepath=str(ARM), place_on_ground='OFF',
                                    xacro_args="upper_length:=0.8 with_tool:=false") == \
        {'FINISHED'}
    obs = links()
    assert set(obs) == {"base", "upper_arm", "forearm"}
    data = read_scene(obs.values())
    assert data.joints["shoulder"].lower == (-1.5,)  # from the package's YAML
    robot = urdf.parse_urdf_string(X.expand_xacro(ARM, args={"upper_length": "0.8",
                                                             "with_tool": "false"}))
    expected = linkage_from_urdf(robot)[0].poses()
    bridge = SceneBridge(bpy.context.scene)
    bridge.sync()
    for name, T in bridge.linkage.poses().items():
        np.testing.assert_allclose(T, expected[name], atol=1e-6, err_msg=name)
    base_visuals = [c for c in obs["base"].children_recursive if c.type == 'MESH']
    assert base_visuals and not any(MISSING_KEY in c for c in obs["base"].children_recursive)


@pytest.mark.parametrize("args, message", [
    ("upper_length", "xacro arguments: 'upper_length' is not name:=value"),
    ("upper_length:=abc", "arm.urdf.xacro"),
])
def test_bad_arguments_are_reported_and_nothing_is_added(vart_registered, args, message):
    before = set(bpy.data.objects.keys())
    with pytest.raises(RuntimeError, match="Error: ") as e:
        bpy.ops.vart.import_urdf(filepath=str(ARM), xacro_args=args)
    assert message in str(e.value)
    assert set(bpy.data.objects.keys()) == before


def test_a_urdf_that_uses_xacro_and_the_preferences_search_paths(vart_registered, tmp_path):
    """A xacro file shipped as ``.urdf``, away from its package: the add-on's *Package Search
    Paths* preference finds ``$(find arm_description)`` and the package's mesh."""
    import shutil

    from vart_addon.shared import preferences
    moved = tmp_path / "robot.urdf"
    shutil.copy(ARM, moved)
    before = set(bpy.data.objects.keys())
    with pytest.raises(RuntimeError, match="add the folder holding 'arm_description'"):
        bpy.ops.vart.import_urdf(filepath=str(moved))
    assert set(bpy.data.objects.keys()) == before
    addon = bpy.context.preferences.addons.new()  # as when vart is enabled as an add-on
    addon.module = preferences.ADDON
    try:
        addon.preferences.package_search_paths = f"{tmp_path / 'nothing'};{ARM.parents[2]}"
        assert preferences.search_paths() == [str(tmp_path / "nothing"), str(ARM.parents[2])]
        assert bpy.ops.vart.import_urdf(filepath=str(moved), xacro_args="prefix:=r_") == \
            {'FINISHED'}
    finally:
        bpy.context.preferences.addons.remove(addon)
    obs = links()
    assert set(obs) == {"r_base", "r_upper_arm", "r_forearm", "r_tool"}
    assert not any(MISSING_KEY in c for c in obs["r_base"].children_recursive)
