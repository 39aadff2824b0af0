"""Issue 32.1: MJCF at the edges a user meets in the first hour. A joint whose range excludes
its ``qpos0`` imports with its start clamped into the range (every body where MuJoCo's own
kinematics puts it at that configuration); includes, meshes and textures outside the model's
folder and the search paths are refused naming the element and the file, before MuJoCo reads
them; mesh scales that are not finite or absurd, and geoms that compile to absurd vertices,
are refused naming the element. Every file is written here."""
from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from vart_addon.formats import mjcf as MJ
from vart_addon.formats import mjcf_files as MF
from vart_addon.solver import se3

mujoco = pytest.importorskip("mujoco", reason="MuJoCo (PyPI mujoco-core) is a dev dependency")

BOX = '<geom type="box" size="0.1 0.1 0.1"/>'


def stl(path, size: float = 0.1) -> None:
    """A binary STL tetrahedron of edge ``size`` (m) at ``path``."""
    v = [(0, 0, 0), (size, 0, 0), (0, size, 0), (0, 0, size)]
    faces = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    data = b"\0" * 80 + struct.pack("<I", len(faces))
    for f in faces:
        data += struct.pack("<12fH", 0, 0, 0, *[c for i in f for c in v[i]], 0)
    path.write_bytes(data)


def mujoco_doc(body: str, asset: str = "", head: str = "") -> str:
    return f"<mujoco>{head}<asset>{asset}</asset><worldbody>{body}</worldbody></mujoco>"


@pytest.fixture
def folders(tmp_path):
    """``robot/`` (the model's folder, with ``ok.stl``) beside ``elsewhere/`` (``secret.stl``,
    ``part.xml``: a body)."""
    robot, elsewhere = tmp_path / "robot", tmp_path / "elsewhere"
    robot.mkdir()
    elsewhere.mkdir()
    stl(robot / "ok.stl")
    stl(elsewhere / "secret.stl")
    (elsewhere / "part.xml").write_text(mujoco_doc(f'<body name="stolen">{BOX}</body>'))
    return robot, elsewhere


# ---- ranges that exclude qpos0 ----------------------------------------------------------------
CLAMPED = mujoco_doc(
    f'<body name="upper" pos="0 0 1"><joint name="shoulder" axis="0 1 0" range="20 60"/>{BOX}'
    f'<body name="lower" pos="0.5 0 0"><joint name="slide" type="slide" axis="1 0 0" '
    f'range="0.05 0.2"/><joint name="wrist" axis="0 0 1" range="-90 -30"/>{BOX}</body></body>')


def test_a_range_that_excludes_qpos0_starts_clamped_where_mujoco_puts_it(folders):
    robot_dir, _ = folders
    path = robot_dir / "clamped.xml"
    path.write_text(CLAMPED)
    robot = MJ.read_mjcf(path)
    start = {"shoulder": math.radians(20), "slide": 0.05, "wrist": math.radians(-30)}
    for name, value in start.items():
        assert float(robot.linkage.joints[name].q[0]) == pytest.approx(value, abs=1e-12)
        assert any(w.startswith(f"joint '{name}': its range") and "clamped" in w
                   for w in robot.warnings), robot.warnings
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    d.qpos[:] = [start["shoulder"], start["slide"], start["wrist"]]
    mujoco.mj_kinematics(m, d)
    poses = robot.linkage.poses()
    for b in ("upper", "lower"):
        i = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, b)
        T = se3.make_pose(d.xmat[i].reshape(3, 3), d.xpos[i])
        assert np.abs(poses[b] - T).max() < 1e-12
    lk = robot.linkage  # the limits stay MuJoCo's (relative to qpos0 = 0 here)
    assert lk.joints["wrist"].lower[0] == pytest.approx(math.radians(-90))
    assert lk.joints["wrist"].upper[0] == pytest.approx(math.radians(-30))


# ---- files outside the model's folder ----------------------------------------------------------
REFUSED = {
    "include up": (mujoco_doc("", head='<include file="../elsewhere/part.xml"/>'),
                   "<include> file: '../elsewhere/part.xml' refused"),
    "include in an include": (mujoco_doc("", head='<include file="sub/inner.xml"/>'),
                              "<include> file: '../../elsewhere/part.xml' refused"),
    "mesh up": (mujoco_doc('<body name="a"><geom type="mesh" mesh="m"/></body>',
                           '<mesh name="m" file="../elsewhere/secret.stl"/>'),
                "<mesh name='m'> file: '../elsewhere/secret.stl' refused"),
    "absolute mesh": (mujoco_doc('<body name="a"><geom type="mesh" mesh="m"/></body>',
                                 '<mesh name="m" file="{elsewhere}/secret.stl"/>'),
                      "<mesh name='m'> file: '{elsewhere}/secret.stl' refused"),
    "meshdir up": (mujoco_doc('<body name="a"><geom type="mesh" mesh="m"/></body>',
                              '<mesh name="m" file="secret.stl"/>',
                              '<compiler meshdir="../elsewhere"/>'),
                   "<mesh name='m'> file: 'secret.stl' refused"),
    "texture": (mujoco_doc(f'<body name="a">{BOX}</body>',
                           '<texture name="t" type="2d" file="/etc/hostname.png"/>'),
                "<texture name='t'> file: '/etc/hostname.png' refused"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_file_outside_the_models_folder_is_refused_naming_it(folders, case, monkeypatch):
    robot_dir, elsewhere = folders
    (robot_dir / "sub").mkdir()
    (robot_dir / "sub" / "inner.xml").write_text(
        '<mujoco><include file="../../elsewhere/part.xml"/></mujoco>')
    text, message = REFUSED[case]
    path = robot_dir / "model.xml"
    path.write_text(text.replace("{elsewhere}", str(elsewhere)))
    seen = []
    real = mujoco.MjSpec.from_file
    monkeypatch.setattr(mujoco.MjSpec, "from_file", lambda *a, **k: seen.append(a) or real(*a))
    with pytest.raises(MJ.MjcfError) as e:
        MJ.read_mjcf(path)
    text = str(e.value)
    assert text.startswith("model.xml: ") and message.replace("{elsewhere}", str(elsewhere)) \
        in text and "the path leaves the model's folder" in text, text
    assert seen == []  # MuJoCo read nothing
    # the folder given as a search path: the same file reads (not the made-up texture, nor
    # the nested include, which MuJoCo would look for first two folders up from the model)
    if case not in ("texture", "include in an include"):
        robot = MJ.read_mjcf(path, search_paths=[str(elsewhere)])
        assert robot.linkage.links


def test_files_inside_the_models_folder_read(folders):
    robot_dir, _ = folders
    (robot_dir / "parts").mkdir()
    (robot_dir / "parts" / "arm.xml").write_text(
        '<mujoco><worldbody><body name="arm"><geom type="mesh" mesh="m"/></body></worldbody>'
        '</mujoco>')
    path = robot_dir / "model.xml"
    path.write_text(mujoco_doc("", '<mesh name="m" file="./ok.stl" scale="0.001 0.001 0.001"/>',
                               '<include file="parts/arm.xml"/>'))
    robot = MJ.read_mjcf(path)
    assert list(robot.visuals) == ["arm"]


# ---- scales and sizes ----------------------------------------------------------------------
@pytest.mark.parametrize("scale", ["1e300 1 1", "nan 1 1", "1 0 1", "1 1 -1e7"])
def test_an_absurd_mesh_scale_is_refused_naming_the_mesh(folders, scale, monkeypatch):
    robot_dir, _ = folders
    monkeypatch.chdir(robot_dir)  # MuJoCo's warning about a NaN goes to MUJOCO_LOG.TXT here
    path = robot_dir / "scaled.xml"
    path.write_text(mujoco_doc('<body name="a"><geom type="mesh" mesh="big"/></body>',
                               f'<mesh name="big" file="ok.stl" scale="{scale}"/>'))
    with pytest.raises(MJ.MjcfError, match=r"scaled.xml: <mesh name='big'> scale .* refused"):
        MJ.read_mjcf(path)


def test_a_geom_that_compiles_to_absurd_vertices_is_refused_naming_it(folders):
    robot_dir, _ = folders
    path = robot_dir / "huge.xml"
    path.write_text(mujoco_doc('<body name="a"><geom name="slab" type="box" '
                               'size="1e300 1 1"/></body>'))
    # the box's own mass (MuJoCo's density times 8e300 m^3) is refused first, naming the body;
    # with a mass given, its vertices are
    with pytest.raises(MJ.MjcfError, match="huge.xml: link 'a': mass: 8e[+]303 kg is beyond"):
        MJ.read_mjcf(path)
    path.write_text(mujoco_doc('<body name="a"><geom name="slab" type="box" size="1e300 1 1" '
                               'mass="1"/></body>'))
    with pytest.raises(MJ.MjcfError, match="huge.xml: geom 'slab' of body 'a'"):
        MJ.read_mjcf(path)


def test_the_walk_alone_names_what_it_refuses(folders):
    robot_dir, elsewhere = folders
    path = robot_dir / "m.xml"
    path.write_text(mujoco_doc("", '<hfield name="h" file="../elsewhere/h.png"/>'))
    with pytest.raises(MF.MjcfFileError, match=r"<hfield name='h'> file: '../elsewhere/h.png'"):
        MF.check_files(path)
    MF.check_files(path, [str(elsewhere)])  # a search path holds it
