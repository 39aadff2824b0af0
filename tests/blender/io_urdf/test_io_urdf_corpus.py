"""Every URDF of example-robot-data imported into Blender (issue 17): every link object where
Pinocchio puts the link (1e-5, float32 matrices) at a random configuration within the limits,
and no visual of a robot that ships Collada (.dae) meshes missing."""
from __future__ import annotations

import math
import sysconfig
import zlib
from pathlib import Path

import bpy
import numpy as np
import pytest

pin = pytest.importorskip("pinocchio", reason="Pinocchio (PyPI pin) is a dev dependency")

from vart_addon.formats.urdf.files import joint_values, read_urdf  # noqa: E402
from vart_addon.formats.urdf.start import allowed  # noqa: E402
from vart_addon.io_urdf.importer import import_urdf  # noqa: E402

ROBOTS = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix" / "share" / \
    "example-robot-data" / "robots"
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
    rng = np.random.default_rng(zlib.crc32(path.name.encode()))
    free = {}
    for j in robot.joints:
        if j.type in ("revolute", "continuous", "prismatic") and j.mimic is None:
            lo, hi, _ = allowed(robot, j)
            free[j.name] = float(rng.uniform(max(lo, -math.pi), min(hi, math.pi)))
    obs = import_urdf(path, context=bpy.context, q=free, use_env=False)
    if ".dae" in path.read_text(errors="replace"):  # Collada meshes read on every Blender
        assert obs.missing == [], obs.missing
        for ob in (ob for visuals in obs.visuals.values() for ob in visuals):
            assert ob.type == 'MESH' and len(ob.data.polygons) > 0, ob.name
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    values = joint_values(robot, free)
    q = pin.neutral(model)
    for name, v in values.items():  # by name: model.names (a std::vector<std::string>)
        jid = model.getJointId(name)  # has no converter beside bpy 4.2's own boost
        if v is None or jid >= model.njoints:  # a fixed joint is no pinocchio joint
            continue
        jm = model.joints[jid]
        if jm.nq == 2:
            q[jm.idx_q:jm.idx_q + 2] = [math.cos(v), math.sin(v)]
        elif jm.nq == 1:
            q[jm.idx_q] = v
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    bpy.context.view_layer.update()
    for name, ob in obs.items():
        M = np.array(ob.matrix_world, dtype=float)
        M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
        want = data.oMf[model.getFrameId(name, pin.BODY)].homogeneous
        assert np.abs(M - want).max() < 1e-5, name
