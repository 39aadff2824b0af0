"""xacro files expanded by ROS's own xacro (formats.urdf.xacro_files): macros, properties,
math, arguments, conditionals, includes and YAML through ``$(find pkg)`` found without ROS;
the result read by vart and by Pinocchio agree; bad files are refused naming the file."""
from __future__ import annotations

import math
import shutil

import numpy as np
import pytest

from pinocchio_check import ROBOTS, frame_of, pinocchio_frames, random_free_values
from repo_paths import REPO
from vart_addon.formats.urdf import xacro_files as X
from vart_addon.formats.urdf.files import UrdfError, parse_urdf_string
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf

PACKAGE = REPO / "tests" / "data" / "xacro" / "arm_description"
ARM = PACKAGE / "urdf" / "arm.urdf.xacro"
NO_ENV: dict = {}


def expand(path=ARM, **kw):
    return X.expand_xacro(path, environ=NO_ENV, **kw)


def test_macros_properties_math_yaml_and_includes_expand_to_the_urdf_they_say():
    warnings: list = []
    robot = parse_urdf_string(expand(warnings=warnings))
    assert warnings == []
    assert robot.name == "xacro_arm"
    assert [lk.name for lk in robot.links] == ["base", "upper_arm", "forearm", "tool"]
    joints = {j.name: j for j in robot.joints}
    sh, el = joints["shoulder"], joints["elbow"]
    assert (sh.limit.lower, sh.limit.upper, sh.limit.velocity, sh.limit.effort) == \
        (-1.5, 1.25, 2.0, 40.0)  # from config/limits.yaml
    assert el.limit.effort == 20.0 and tuple(sh.axis) == (0.0, 1.0, 0.0)
    assert el.origin.xyz[0] == pytest.approx(0.6)  # the argument's default
    assert el.origin.rpy[2] == pytest.approx(math.pi / 6)
    fore = next(lk for lk in robot.links if lk.name == "forearm")
    assert fore.inertial.mass == 1.0 and fore.inertial.inertia[3] == pytest.approx(0.45 ** 2 / 12)
    upper = next(lk for lk in robot.links if lk.name == "upper_arm")
    assert len(upper.collisions) == 1  # the macro's block parameter


def test_arguments_change_what_expands():
    robot = parse_urdf_string(expand(args=X.parse_args("upper_length:=0.8 with_tool:=false")))
    assert "tool" not in [lk.name for lk in robot.links]
    prefixed = parse_urdf_string(expand(args={"prefix": "left_"}))
    assert [lk.name for lk in prefixed.links] == ["left_base", "left_upper_arm", "left_forearm",
                                                  "left_tool"]
    assert [j.name for j in prefixed.joints] == ["left_shoulder", "left_elbow",
                                                 "left_tool_mount"]
    elbow = next(j for j in robot.joints if j.name == "elbow")
    assert elbow.origin.xyz[0] == pytest.approx(0.8)


@pytest.mark.parametrize("text, args", [
    ("", {}), ("a:=1 b:='two words'", {"a": "1", "b": "two words"}), ("x:=", {"x": ""})])
def test_parse_args(text, args):
    assert X.parse_args(text) == args


@pytest.mark.parametrize("text", ["a=1", ":=3", "a:='open"])
def test_bad_arguments_are_refused(text):
    with pytest.raises(UrdfError, match="xacro arguments"):
        X.parse_args(text)


def test_a_package_is_found_near_the_file_in_search_paths_or_the_environment(tmp_path):
    moved = tmp_path / "elsewhere" / "arm.urdf.xacro"  # away from its package
    moved.parent.mkdir()
    shutil.copy(ARM, moved)
    with pytest.raises(UrdfError, match=r"arm.urdf.xacro: xacro: .*find arm_description.*"
                                        r"add the folder holding 'arm_description'"):
        expand(moved)
    assert "upper_arm" in expand(moved, search_paths=[str(PACKAGE.parent)])
    assert "upper_arm" in expand(moved, search_paths=[str(PACKAGE)])
    assert "upper_arm" in X.expand_xacro(moved, environ={"ROS_PACKAGE_PATH": str(PACKAGE.parent)})
    renamed = tmp_path / "arm_description-main"  # a download renames the folder
    shutil.copytree(PACKAGE, renamed)
    assert "upper_arm" in expand(renamed / "urdf" / "arm.urdf.xacro")


@pytest.mark.parametrize("body, message", [
    ('<xacro:undefined_macro/>', "unknown macro name: xacro:undefined_macro"),
    ('<link name="$(arg nope)"/>', "undefined argument 'nope': give it as nope:=value"),
    ('<link name="${1/0}"/>', "division by zero"),
    ('<link name="a">', "malformed XML"),
    ('<xacro:include filename="missing.xacro"/>', "missing.xacro"),
])
def test_bad_files_are_refused_naming_the_file_and_the_next_one_expands(tmp_path, body,
                                                                        message):
    bad = tmp_path / "bad.urdf.xacro"
    bad.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                   f'{body}</robot>')
    with pytest.raises(UrdfError, match="bad.urdf.xacro") as e:
        expand(bad)
    assert message in str(e.value)
    assert "upper_arm" in expand()  # xacro's own state was reset


def test_is_xacro_by_name_or_by_namespace():
    assert X.is_xacro("a/robot.urdf.xacro") and X.is_xacro("R.XACRO")
    assert not X.is_xacro("robot.urdf")
    assert X.uses_xacro(ARM.read_bytes())
    assert not X.uses_xacro(b'<robot name="r"><link name="a"/></robot>')


def test_xacro_warnings_are_collected_not_printed(tmp_path, capfd):
    f = tmp_path / "w.urdf.xacro"
    f.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                 '<xacro:property name="len" value="1"/><link name="a"/></robot>')
    warnings: list = []
    expand(f, warnings=warnings)
    assert warnings and "redefining global symbol: len" in warnings[0]
    assert "redefining" not in capfd.readouterr().err


pin = pytest.importorskip("pinocchio", reason="Pinocchio (PyPI pin) is a dev dependency")


def hector(tmp_path):
    """A file instantiating the macro of example-robot-data's real hector quadrotor xacro,
    included through ``$(find example-robot-data)``."""
    f = tmp_path / "hector.urdf.xacro"
    f.write_text(
        '<robot name="hector" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:include '
        'filename="$(find example-robot-data)/robots/hector_description/robots/'
        'quadrotor_base.urdf.xacro"/><xacro:quadrotor_base_macro/></robot>')
    return f


@pytest.mark.parametrize("which", ["arm", "hector"])
def test_what_xacro_expands_reads_in_vart_as_in_pinocchio(which, tmp_path):
    path = ARM if which == "arm" else hector(tmp_path)
    text = expand(path, search_paths=[str(ROBOTS.parent.parent)])
    robot = parse_urdf_string(text)
    model = pin.buildModelFromXML(text)
    rng = np.random.default_rng(7)
    for _ in range(3):
        free = random_free_values(robot, rng)
        data = pinocchio_frames(pin, model, robot, free)
        poses = linkage_from_urdf(robot, free)[0].poses()
        for link in robot.links:
            err = float(np.abs(frame_of(pin, model, data, link.name) - poses[link.name]).max())
            assert err < 1e-12, (link.name, err)
