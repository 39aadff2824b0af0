"""Every URDF of example-robot-data imported into Blender (issue 17): every link object where
Pinocchio puts the link (1e-5, float32 matrices) at a random configuration within the limits,
and no visual of a robot that ships Collada (.dae) meshes missing."""
from __future__ import annotations

import zlib

import bpy
import numpy as np
import pytest

pin = pytest.importorskip("pinocchio", reason="Pinocchio (PyPI pin) is a dev dependency")

from pinocchio_check import ROBOTS, frame_of, pinocchio_frames, random_free_values  # noqa: E402
from vart_addon.formats.urdf.files import read_urdf  # noqa: E402
from vart_addon.io_urdf.importer import import_urdf  # noqa: E402

FILES = [p for p in sorted(ROBOTS.rglob("*.urdf")) if p.name != "ur3.urdf"] \
    if ROBOTS.is_dir() else []


@pytest.fixture(autouse=True)
def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    yield


def test_the_corpus_is_there():
    assert len(FILES) == 68, f"example-robot-data (a dev dependency) not found in {ROBOTS}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROBOTS)))
def test_every_link_object_is_where_pinocchio_puts_the_link(path):
    robot = read_urdf(path)
    free = random_free_values(robot, np.random.default_rng(zlib.crc32(path.name.encode())))
    obs = import_urdf(path, context=bpy.context, q=free, use_env=False, place_on_ground=False)
    if ".dae" in path.read_text(errors="replace"):  # Collada meshes read on every Blender
        assert obs.missing == [], obs.missing
        for ob in (ob for visuals in obs.visuals.values() for ob in visuals):
            assert ob.type == 'MESH' and len(ob.data.polygons) > 0, ob.name
    model = pin.buildModelFromUrdf(str(path))
    data = pinocchio_frames(pin, model, robot, free)
    bpy.context.view_layer.update()
    for name, ob in obs.items():
        M = np.array(ob.matrix_world, dtype=float)
        M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
        assert np.abs(M - frame_of(pin, model, data, name)).max() < 1e-5, name
