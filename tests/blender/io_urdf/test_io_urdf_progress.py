"""Progress of a long URDF import (issue 19, item 10): the importer calls ``progress(done,
total)`` after each link's visuals are built (its meshes read: a big robot's import takes
seconds: example-robot-data's b1-z1, 40 links, about 3 s), and *Import URDF* shows it with
Blender's progress indicator and the status bar's text (``support.Progress``), real window
manager and all, ended however the import ends. Blender gives no way to read the indicator
back, so the calls are checked through the API's callback."""
import bpy
import pytest

from vart_addon.examples.robots import asset
from vart_addon.formats.urdf.files import read_urdf
from vart_addon.io_urdf.importer import import_urdf
from vart_addon.operators.support import Progress

HEXAPOD = asset("athlete")  # 38 links, 36 joints, STL meshes


def test_import_reports_progress_link_by_link():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    calls = []
    obs = import_urdf(HEXAPOD, context=bpy.context, use_env=False,
                      progress=lambda done, total: calls.append((done, total)))
    n = len(read_urdf(HEXAPOD).links)
    assert n == len(obs) == 38
    assert calls == [(k, n) for k in range(1, n + 1)]


def test_import_operator_runs_with_the_window_managers_progress(vart_registered, tmp_path):
    assert bpy.ops.vart.import_urdf(filepath=str(HEXAPOD)) == {'FINISHED'}
    assert len([ob for ob in bpy.data.objects if ob.type == 'EMPTY']) == 38
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='r'><link name='a'/><joint name='j' type='bogus'>"
                   "<parent link='a'/><child link='b'/></joint><link name='b'/></robot>")
    with pytest.raises(RuntimeError):
        bpy.ops.vart.import_urdf(filepath=str(bad))
    assert bpy.ops.vart.import_urdf(filepath=str(HEXAPOD)) == {'FINISHED'}


def test_progress_ends_however_the_block_ends():
    context = bpy.context
    with Progress(context, "Working") as p:
        assert not p.started        # nothing shown before the total is known
        p(1, 4)
        assert p.started
    assert not p.started
    with pytest.raises(ValueError):
        with Progress(context, "Working") as p:
            p(1, 4)
            raise ValueError("stop")
    assert not p.started
