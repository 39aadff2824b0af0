"""Mesh path resolution (``package://``, ``file://``, relative, absolute, search paths) and the
STL writer/reader: pure Python, no Blender."""
from __future__ import annotations

import os

import numpy as np
import pytest

from vart_addon.formats import stl
from vart_addon.formats.urdf import mesh_paths as M


def touch(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"solid x\nendsolid x\n")
    return path


@pytest.fixture
def ros_tree(tmp_path):
    """ws/src/my_robot/{urdf/robot.urdf, meshes/base.stl, meshes/sub/arm.stl},
    ws/src/other_pkg/meshes/gripper.stl."""
    pkg = tmp_path / "ws" / "src" / "my_robot"
    urdf = touch(pkg / "urdf" / "robot.urdf")
    touch(pkg / "meshes" / "base.stl")
    touch(pkg / "meshes" / "sub" / "arm.stl")
    touch(tmp_path / "ws" / "src" / "other_pkg" / "meshes" / "gripper.stl")
    return tmp_path, pkg, urdf


def test_package_paths_from_the_urdf_folder_and_its_parents(ros_tree):
    root, pkg, urdf = ros_tree
    r = M.resolve("package://my_robot/meshes/base.stl", urdf, use_env=False)
    assert r.found and r.path == str(pkg / "meshes" / "base.stl")
    r = M.resolve("package://my_robot/meshes/sub/arm.stl", urdf, use_env=False)
    assert r.path == str(pkg / "meshes" / "sub" / "arm.stl")
    # a sibling package in the same workspace: <parent>/other_pkg/...
    r = M.resolve("package://other_pkg/meshes/gripper.stl", urdf, use_env=False)
    assert r.path == str(root / "ws" / "src" / "other_pkg" / "meshes" / "gripper.stl")
    assert r.tried[-1] == r.path and len(r.tried) == len(set(r.tried))


def test_find_pkg_in_a_urdf_means_package(ros_tree, tmp_path):
    root, pkg, urdf = ros_tree
    r = M.resolve("$(find my_robot)/meshes/sub/arm.stl", urdf, use_env=False)
    assert r.path == str(pkg / "meshes" / "sub" / "arm.stl")
    r = M.resolve("$(find other_pkg)/../my_robot/meshes/base.stl", urdf, use_env=False)
    assert not r.found and "leaves package 'other_pkg'" in r.refused


def test_package_paths_from_search_paths_and_the_environment(ros_tree, tmp_path):
    root, pkg, _ = ros_tree
    elsewhere = touch(tmp_path / "elsewhere" / "robot.urdf")
    name = "package://other_pkg/meshes/gripper.stl"
    want = str(root / "ws" / "src" / "other_pkg" / "meshes" / "gripper.stl")
    assert not M.resolve(name, elsewhere, use_env=False).found
    # a folder of packages, or the package folder itself
    assert M.resolve(name, elsewhere, [root / "ws" / "src"], use_env=False).path == want
    assert M.resolve(name, elsewhere, [str(root / "ws" / "src" / "other_pkg")],
                     use_env=False).path == want
    env = {"ROS_PACKAGE_PATH": os.pathsep.join(["/nonexistent", str(root / "ws" / "src")])}
    assert M.resolve(name, elsewhere, environ=env).path == want
    assert not M.resolve(name, elsewhere, environ=env, use_env=False).found
    share = tmp_path / "install" / "other_pkg" / "share"
    touch(share / "other_pkg" / "meshes" / "gripper.stl")
    env = {"AMENT_PREFIX_PATH": str(tmp_path / "install" / "other_pkg")}
    assert M.resolve(name, elsewhere, environ=env).path == str(share / "other_pkg" / "meshes"
                                                                / "gripper.stl")
    assert M.env_search_paths(env) == [str(share)]


def test_a_renamed_package_folder_is_found_below_the_urdf_parents(tmp_path):
    pkg = tmp_path / "my_robot-main"  # as a GitHub zip unpacks
    urdf = touch(pkg / "urdf" / "robot.urdf")
    mesh = touch(pkg / "meshes" / "base.stl")
    r = M.resolve("package://my_robot/meshes/base.stl", urdf, use_env=False)
    assert r.path == str(mesh)


def test_relative_paths(ros_tree):
    _, pkg, urdf = ros_tree
    want = str(pkg / "meshes" / "base.stl")
    assert M.resolve("../meshes/base.stl", urdf, use_env=False).path == want
    # "meshes/base.stl" is not next to the URDF, but next to its parent
    assert M.resolve("meshes/base.stl", urdf, use_env=False).path == want
    assert M.resolve("./meshes\\base.stl", urdf, use_env=False).path == want
    other = touch(pkg / "urdf" / "meshes" / "base.stl")  # the URDF's own folder wins
    assert M.resolve("meshes/base.stl", urdf, use_env=False).path == str(other)


def test_file_urls_and_absolute_paths(tmp_path):
    mesh = touch(tmp_path / "my meshes" / "a b.stl")
    url = "file://" + str(mesh).replace(" ", "%20")
    assert M.resolve(url, None, use_env=False).path == str(mesh)
    assert M.resolve(str(mesh), None, use_env=False).path == str(mesh)
    # an absolute path from another machine: found by its last parts in the search paths
    r = M.resolve("/home/someone/robot/meshes/a b.stl", None, [tmp_path / "my meshes"],
                  use_env=False)
    assert r.path == str(mesh)


def test_not_found_says_where_it_looked(ros_tree):
    _, pkg, urdf = ros_tree
    r = M.resolve("package://my_robot/meshes/missing.stl", urdf, use_env=False)
    assert not r.found and r.path is None
    assert str(pkg / "meshes" / "missing.stl") in r.tried
    text = r.describe()
    assert text.startswith("'package://my_robot/meshes/missing.stl' not found (looked in ")
    assert "more)" in text
    # a folder is not a mesh file; nonsense names resolve to nothing
    (pkg / "meshes" / "folder.stl").mkdir()
    assert not M.resolve("package://my_robot/meshes/folder.stl", urdf, use_env=False).found
    assert not M.resolve("package://my_robot", urdf, use_env=False).found
    assert not M.resolve("", urdf, use_env=False).found
    assert "no place" in M.resolve("", urdf, use_env=False).describe()


def test_without_a_urdf_file_only_search_paths_count(tmp_path):
    mesh = touch(tmp_path / "meshes" / "a.stl")
    assert not M.resolve("meshes/a.stl", None, use_env=False).found
    assert M.resolve("meshes/a.stl", None, [tmp_path], use_env=False).path == str(mesh)


def test_split_search_paths():
    assert M.split_search_paths("") == []
    assert M.split_search_paths(f" /a ;/b{os.pathsep}/c\n\n/d ") == ["/a", "/b", "/c", "/d"]
    assert M.split_search_paths("~/x") == [os.path.expanduser("~/x")]


# ---- STL --------------------------------------------------------------------------------------
TETRA_V = np.array([[0, 0, 0], [1, 0, 0], [0, 2, 0], [0, 0, 3.5]], float)
TETRA_T = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


@pytest.mark.parametrize("binary", [True, False])
def test_stl_round_trip(tmp_path, binary):
    path = tmp_path / "t.stl"
    stl.write_stl(path, TETRA_V, TETRA_T, binary=binary, name="tetra piece")
    tri = stl.read_stl(path)
    np.testing.assert_allclose(tri, TETRA_V[TETRA_T], atol=1e-6)
    data = path.read_bytes()
    if binary:
        assert len(data) == 84 + 50 * len(TETRA_T)
    else:
        assert data.startswith(b"solid tetra_piece\n") and data.rstrip().endswith(b"endsolid tetra_piece")
    assert [p.name for p in tmp_path.iterdir()] == ["t.stl"]  # no temporary file left


def test_stl_normals_point_out():
    data = stl.stl_bytes(TETRA_V, TETRA_T)
    rec = np.frombuffer(data[84:], dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)),
                                                   ("a", "<u2")]))
    centre = TETRA_V.mean(axis=0)
    for n, v in zip(rec["n"], rec["v"]):
        assert np.dot(n, v.mean(axis=0) - centre) > 0
        assert np.linalg.norm(n) == pytest.approx(1.0, abs=1e-6)


def test_stl_bad_input_and_unwritable_path(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        stl.stl_bytes(TETRA_V, [[0, 1, 7]])
    with pytest.raises(ValueError, match="not finite"):
        stl.stl_bytes([[0, 0, float("nan")]] * 3, [[0, 1, 2]])
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    with pytest.raises(OSError, match="cannot write"):
        stl.write_stl(blocker / "x.stl", TETRA_V, TETRA_T)
    target = tmp_path / "keep.stl"
    target.write_bytes(b"old")
    os.chmod(tmp_path, 0o500)
    try:
        if os.access(tmp_path, os.W_OK):
            pytest.skip("root ignores permissions")
        with pytest.raises(OSError, match="keep.stl"):
            stl.write_stl(target, TETRA_V, TETRA_T)
    finally:
        os.chmod(tmp_path, 0o700)
    assert target.read_bytes() == b"old"
    (tmp_path / "junk.stl").write_bytes(b"\x00" * 10)
    with pytest.raises(ValueError, match="not an STL"):
        stl.read_stl(tmp_path / "junk.stl")


def test_a_path_that_leaves_its_package_is_refused_naming_it(ros_tree, tmp_path):
    """Issue 17: ``package://pkg/../../elsewhere/x.stl`` was read silently, outside the
    package folder."""
    root, pkg, urdf = ros_tree
    secret = touch(tmp_path / "elsewhere" / "x.stl")
    res = M.resolve("package://my_robot/../../../../elsewhere/x.stl", urdf, use_env=False)
    assert res.path is None and res.tried == []
    assert res.refused == "the path leaves package 'my_robot'"
    assert "refused: the path leaves package 'my_robot'" in res.describe()
    # inside the package, ".." is fine
    assert M.resolve("package://my_robot/urdf/../meshes/base.stl", urdf,
                     use_env=False).path == str(pkg / "meshes" / "base.stl")
    # a relative path may climb within the package that holds a package.xml, not above it
    (pkg / "package.xml").write_text("<package/>")
    assert M.resolve("../meshes/base.stl", urdf, use_env=False).found
    res = M.resolve("../../../../elsewhere/x.stl", urdf, use_env=False)
    assert res.path is None and res.refused.startswith("the path leaves package 'my_robot'")
    assert secret.exists()
