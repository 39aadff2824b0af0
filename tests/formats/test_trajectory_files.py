"""Trajectory files: CSV, ROS JointTrajectory JSON, Klampt linear path; atomic export.

Round trips are exact (bit for bit) except JSON times, which are whole nanoseconds.
"""

from __future__ import annotations

import errno
import json
import math
import os
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vart_addon.formats import atomic, stl
from vart_addon.formats.trajectory import files as tio
from vart_addon.formats.trajectory.files import (
    FORMATS,  # every format of the table
    TrajectoryFormatError,
    export_trajectory,
    format_csv,
    format_json,
    format_path,
    load_trajectory,
    parse_csv,
    parse_json,
    parse_path,
    save_trajectory,
)
from vart_addon.formats.trajectory.model import Trajectory, Violation


def sample(n=4, virtual=None, **kw):
    t = np.arange(n) / 24.0
    p = np.c_[np.sin(t), 0.1 * t]
    return Trajectory(["knee", "slide"], t, p, kinds=["angular", "linear"], virtual=virtual, **kw)


def same_bits(a: Trajectory, b: Trajectory) -> bool:
    return (a.joint_names == b.joint_names and a.times.tobytes() == b.times.tobytes()
            and a.positions.tobytes() == b.positions.tobytes())


# ---------------------------------------------------------------- strategies

names_st = st.lists(
    st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=12)
    .filter(lambda s: s == s.strip()),
    min_size=1, max_size=5, unique=True)
value_st = st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def trajectories(draw, time_values=st.floats(-1e4, 1e4, allow_nan=False)):
    names = draw(names_st)
    times = sorted(set(draw(st.lists(time_values, min_size=1, max_size=12))))
    rows = draw(st.lists(st.lists(value_st, min_size=len(names), max_size=len(names)),
                         min_size=len(times), max_size=len(times)))
    kinds = draw(st.lists(st.sampled_from(["angular", "linear"]), min_size=len(names),
                          max_size=len(names)))
    return Trajectory(names, times, rows, kinds=kinds)


# ---------------------------------------------------------------- round trips

RT = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@RT
@given(trajectories())
def test_csv_round_trip_exact(tr):
    back = parse_csv(format_csv(tr))
    assert same_bits(back, tr) and back.kinds == tr.kinds


@RT
@given(trajectories())
def test_path_round_trip_exact(tr):
    back = parse_path(format_path(tr), joint_names=tr.joint_names, kinds=tr.kinds)
    assert same_bits(back, tr) and back.kinds == tr.kinds


# times at least 1 ns apart: JSON's time_from_start is whole nanoseconds
@RT
@given(trajectories(st.integers(-10**13, 10**13).map(lambda ns: ns / 1e9)))
def test_json_round_trip(tr):
    text = format_json(tr)
    back = parse_json(text, kinds=tr.kinds)
    assert back.joint_names == tr.joint_names and back.kinds == tr.kinds
    assert back.positions.tobytes() == tr.positions.tobytes()  # positions exact
    expected = [float(Fraction(round(Fraction(t) * 10**9), 10**9)) for t in tr.times]
    assert back.times.tolist() == expected
    assert np.all(np.abs(back.times - tr.times) <= 0.5e-9 + 1e-15 * np.abs(tr.times))
    assert format_json(back) == text  # rewriting what was read changes nothing


@RT
@given(trajectories(), st.sampled_from(FORMATS), st.booleans(), st.booleans())
def test_file_round_trip_tolerates_crlf_and_trailing_newlines(tmp_path_factory, tr, ext, crlf, extra):
    nanoseconds = ext.endswith(".json")  # ROS durations: .json and .goal.json
    if nanoseconds:
        tr = tr.replace(times=np.round(tr.times * 1e3) / 1e3 + np.arange(tr.n_times) * 1e4)
    path = tmp_path_factory.mktemp("rt") / f"motion{ext}"
    save_trajectory(tr, path)
    raw = path.read_bytes()
    if crlf:
        raw = raw.replace(b"\n", b"\r\n")
    if extra:
        raw += b"\n\r\n"
    path.write_bytes(raw)
    back = load_trajectory(path, joint_names=tr.joint_names if ext == ".path" else None,
                           kinds=None if ext == ".csv" else tr.kinds)
    assert back.joint_names == tr.joint_names and back.kinds == tr.kinds
    assert back.positions.tobytes() == tr.positions.tobytes()
    if not nanoseconds:
        assert back.times.tobytes() == tr.times.tobytes()


# ---------------------------------------------------------------- formats


def test_csv_layout():
    text = format_csv(sample(2).replace(joint_names=["knee, left", 'say "hi"']))
    assert text == ('time_s,"knee, left [rad]","say ""hi"" [m]"\n'
                    "0.0,0.0,0.0\n"
                    "0.041666666666666664,0.041654611386019086,0.004166666666666667\n")
    assert parse_csv(text).joint_names == ("knee, left", 'say "hi"')


@pytest.mark.parametrize("ext", FORMATS)
def test_awkward_names_round_trip(tmp_path, ext):
    names = ["a [m]", "b]", "[c", "d,e", 'f"g', "h\u2028i", "ü ß", "time_s", "j\tk".replace("\t", " ")]
    tr = Trajectory(names, [0.0, 0.5], np.arange(2.0 * len(names)).reshape(2, -1),
                    kinds=["linear", "angular"] * 4 + ["linear"])
    save_trajectory(tr, tmp_path / f"m{ext}")
    back = load_trajectory(tmp_path / f"m{ext}", names, tr.kinds)
    assert same_bits(back, tr) and back.kinds == tr.kinds


def test_json_layout_is_a_ros_joint_trajectory():
    doc = json.loads(format_json(sample(3).replace(times=[0.0, 1.5, 2.000000001])))
    assert set(doc) == {"header", "joint_names", "points"}
    assert doc["header"] == {"stamp": {"sec": 0, "nanosec": 0}, "frame_id": ""}
    assert doc["joint_names"] == ["knee", "slide"]
    assert [p["time_from_start"] for p in doc["points"]] == [
        {"sec": 0, "nanosec": 0}, {"sec": 1, "nanosec": 500000000}, {"sec": 2, "nanosec": 1}]
    # every field of trajectory_msgs/JointTrajectoryPoint; no derivatives: empty lists
    assert all(set(p) == {"positions", "velocities", "accelerations", "effort",
                          "time_from_start"} for p in doc["points"])
    assert all(p["velocities"] == p["accelerations"] == p["effort"] == [] for p in doc["points"])
    neg = json.loads(format_json(sample(2).replace(times=[-1.25, 0.0])))
    assert neg["points"][0]["time_from_start"] == {"sec": -2, "nanosec": 750000000}
    assert parse_json(json.dumps(neg)).times.tolist() == [-1.25, 0.0]


def test_json_accepts_ros1_durations_and_defaults_to_angular():
    doc = {"joint_names": ["a"], "points": [
        {"positions": [1], "time_from_start": {"secs": 0, "nsecs": 5}},
        {"positions": [2.5], "time_from_start": {"secs": 1, "nsecs": 0}, "velocities": []}]}
    tr = parse_json(json.dumps(doc))
    assert tr.times.tolist() == [5e-9, 1.0] and tr.positions.tolist() == [[1.0], [2.5]]
    assert tr.kinds == ("angular",)


def klampt_python_load(text):
    """What klampt.model.trajectory.Trajectory.load does with each line."""
    times, milestones = [], []
    for line in text.splitlines(True):
        vals = [float(i) for i in line.strip().split()]
        times.append(vals[0])
        milestones.append(vals[2:])
    return times, milestones


def klampt_cpp_load(text):
    """What Klampt's C++ LinearPath::Load does: a whitespace stream of `t n v1 .. vn`."""
    tok, times, milestones = text.split(), [], []
    while tok:
        t, n = float(tok[0]), int(tok[1])
        times.append(t)
        milestones.append([float(v) for v in tok[2:2 + n]])
        tok = tok[2 + n:]
    return times, milestones


def test_path_layout_matches_klampt():
    tr = sample(3)
    text = format_path(tr)
    assert text.splitlines()[1] == "0.041666666666666664\t2 0.041654611386019086 0.004166666666666667"
    for load in (klampt_python_load, klampt_cpp_load):
        times, milestones = load(text)
        assert times == tr.times.tolist() and milestones == tr.positions.tolist()
    # what Klampt itself writes ('%f\t%d ' then the values) reads back
    klampt_written = "0.000000\t2 0.1 -0.2\n0.500000\t2 0.3 0.4\n"
    back = parse_path(klampt_written)
    assert back.joint_names == ("q0", "q1") and back.times.tolist() == [0.0, 0.5]
    assert back.positions.tolist() == [[0.1, -0.2], [0.3, 0.4]]


# ---------------------------------------------------------------- malformed input


@pytest.mark.parametrize("text, match", [
    ("", r"empty file"),
    ("time,a [rad]\n0,1\n", r"line 1: first column is 'time', expected 'time_s'"),
    ("time_s\n0\n", r"line 1: no joint columns"),
    ("time_s,knee\n0,1\n", r"line 1: column 'knee' must be '<joint> \[rad\]'"),
    ("time_s,knee [deg]\n0,1\n", r"line 1: column 'knee \[deg\]': unit \[deg\] must be \[rad\] or \[m\]"),
    ("time_s,a [rad],a [m]\n0,1,2\n", r"line 1: duplicate joint columns"),
    ("time_s,a [rad]\n", r"no samples after the header"),
    ("time_s,a [rad]\n0,1\n0.1,abc\n", r"line 3, column 'a \[rad\]': 'abc' is not a number"),
    ("time_s,a [rad]\n0,1\n0.1,\n", r"line 3, column 'a \[rad\]': '' is not a number"),
    ("time_s,a [rad]\n0,1\n0.1,nan\n", r"line 3, column 'a \[rad\]': 'nan' is not a finite number"),
    ("time_s,a [rad]\n0,1\n0.1,1_0\n", r"line 3.*'1_0' is not a number"),
    ("time_s,a [rad]\r\n0,1\r\n\r\n0.1,2,3\r\n", r"line 4: 3 values, expected 2 \(time_s and 1 joints\)"),
    ("time_s,a [rad]\n0.5,1\n0.5,2\n", r"line 3: time 0.5 s does not come after 0.5 s"),
    # issue 35: fields longer than the csv module's limit raised _csv.Error
    ("time_s,a [rad]\n0," + "1" * 131_073 + "\n",
     r"line 2, column 'a \[rad\]': longer than 131,072 characters: not a trajectory CSV"),
    ('time_s,a [rad]\n0,"' + "1" * 140_000 + '"\n', r"line 2, column 'a \[rad\]': longer than"),
    ("time_s," + "a" * 140_000 + " [rad]\n0,1\n", r"line 1, field 2: longer than 131,072"),
])
def test_csv_errors_name_the_line(text, match):
    with pytest.raises(TrajectoryFormatError, match="^m.csv: " + match):
        parse_csv(text, "m.csv")


def test_csv_tolerates_bom_spaces_and_blank_lines():
    tr = parse_csv("\ufefftime_s, a [rad] ,b [m]\r\n\r\n0, 1 ,2\r\n1,3,4\r\n\r\n")
    assert tr.joint_names == ("a", "b") and tr.kinds == ("angular", "linear")
    assert tr.positions.tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("text, match", [
    ("", r"line 1 column 1: Expecting value"),
    ('{"joint_names": ["a"],\n "points": [\n  {"positions": [1], }\n]}', r"line 3 column 20: Illegal trailing comma before end of object"),
    ('{"joint_names": ["a"], "points": [{"positions": [NaN], "time_from_start": {"sec": 0, "nanosec": 0}}]}', r"NaN is not a finite number"),
    ("[1, 2]", r"expected a JSON object"),
    ('{"joint_names": [], "points": []}', r"joint_names: must be a non-empty list of strings"),
    ('{"joint_names": ["a"]}', r"points: must be a non-empty list"),
    ('{"joint_names": ["a"], "points": [3]}', r"points\[0\]: must be an object"),
    ('{"joint_names": ["a"], "points": [{"positions": [1, 2]}]}', r"points\[0\]: positions must be a list of 1 numbers"),
    ('{"joint_names": ["a"], "points": [{"positions": ["1"]}]}', r"points\[0\]: position '1' is not a number"),
    ('{"joint_names": ["a"], "points": [{"positions": [true]}]}', r"points\[0\]: position True is not a number"),
    ('{"joint_names": ["a"], "points": [{"positions": [1]}]}', r"points\[0\]: time_from_start must be"),
    ('{"joint_names": ["a"], "points": [{"positions": [1], "time_from_start": {"sec": 0}}]}', r"points\[0\].time_from_start: missing nanosec or nsecs"),
    ('{"joint_names": ["a"], "points": [{"positions": [1], "time_from_start": {"sec": 1.5, "nanosec": 0}}]}', r"points\[0\].time_from_start: sec must be an integer, got 1.5"),
    ('{"joint_names": ["a"], "points": [{"positions": [1], "time_from_start": {"sec": 0, "nanosec": 1000000000}}]}', r"points\[0\]: nanosec 1000000000 must be in 0..999999999"),
    ('{"joint_names": ["a", "a"], "points": [{"positions": [1, 2], "time_from_start": {"sec": 0, "nanosec": 0}}]}', r"duplicate joint names"),
    ('{"joint_names": ["a"], "points": [{"positions": [1], "time_from_start": {"sec": 1, "nanosec": 0}},'
     ' {"positions": [1], "time_from_start": {"sec": 0, "nanosec": 9}}]}', r"points\[1\]: time 9e-09 s does not come after 1.0 s"),
])
def test_json_errors(text, match):
    with pytest.raises(TrajectoryFormatError, match="^m.json: " + match):
        parse_json(text, "m.json")


@pytest.mark.parametrize("text, match", [
    ("", r"no milestones"),
    ("0\t0 \n", r"milestones have no values"),
    ("0 2 1 2\n1 2 3\n", r"line 2: count says 2 values but 1 follow"),
    ("0 2 1 2\n\n1 3 3 4 5\n", r"line 3: 3 values, but earlier milestones have 2"),
    ("0 2.0 1 2\n", r"line 1: expected 'time count value...'"),
    ("0\n", r"line 1: expected 'time count value...'"),
    ("0 1 x\n", r"line 1: 'x' is not a number"),
    ("inf 1 1\n", r"line 1: 'inf' is not a finite number"),
    ("1 1 1\n1 1 2\n", r"line 2: time 1.0 s does not come after 1.0 s"),
])
def test_path_errors(text, match):
    with pytest.raises(TrajectoryFormatError, match="^m.path: " + match):
        parse_path(text, "m.path")


def test_path_joint_names_must_match_width():
    with pytest.raises(TrajectoryFormatError, match="milestones have 2 values but 3 joint names"):
        parse_path("0\t2 1 2\n", joint_names=["a", "b", "c"])
    with pytest.raises(TrajectoryFormatError, match="kinds has 1 entries for 2 joints"):
        parse_path("0\t2 1 2\n", kinds=["linear"])


# ---------------------------------------------------------------- load_trajectory


def test_load_dispatches_on_extension_and_checks_expectations(tmp_path):
    tr = sample()
    for ext in FORMATS:
        save_trajectory(tr, tmp_path / f"m{ext.upper()}")  # extensions are case-insensitive
    assert load_trajectory(tmp_path / "m.CSV") == parse_csv(format_csv(tr))
    assert load_trajectory(str(tmp_path / "m.PATH"), ["knee", "slide"]).joint_names == ("knee", "slide")
    assert load_trajectory(tmp_path / "m.JSON", kinds=["angular", "linear"]).kinds == tr.kinds
    with pytest.raises(ValueError, match=r"joints \['knee', 'slide'\] differ from the expected \['knee'\]"):
        load_trajectory(tmp_path / "m.CSV", ["knee"])
    with pytest.raises(ValueError, match=r"joint kinds .* differ from the expected"):
        load_trajectory(tmp_path / "m.CSV", kinds=["linear", "linear"])


def test_load_errors(tmp_path):
    with pytest.raises(ValueError, match=r"unknown trajectory format '.txt' for '.*m.txt': use .csv, .json, .path or .goal.json"):
        load_trajectory(tmp_path / "m.txt")
    with pytest.raises(ValueError, match=r"unknown trajectory format '\(no extension\)'"):
        load_trajectory(tmp_path / "motion")
    with pytest.raises(FileNotFoundError, match=r"cannot read trajectory '.*nope.csv': No such file"):
        load_trajectory(tmp_path / "nope.csv")
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(IsADirectoryError, match=r"cannot read trajectory '.*d.csv'"):
        load_trajectory(tmp_path / "d.csv")
    (tmp_path / "bin.csv").write_bytes(b"time_s,a [rad]\n0,\xff\n")
    with pytest.raises(TrajectoryFormatError, match=r"bin.csv: not UTF-8 text \(bad byte at offset 17\)"):
        load_trajectory(tmp_path / "bin.csv")


def test_load_permission_denied_simulated(tmp_path, monkeypatch):
    save_trajectory(sample(), tmp_path / "m.csv")

    def deny(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tio, "open", deny, raising=False)  # the module's own open()
    with pytest.raises(PermissionError, match=r"cannot read trajectory '.*m.csv': Permission denied"):
        load_trajectory(tmp_path / "m.csv")


# ---------------------------------------------------------------- writing: bad input, atomicity


@pytest.mark.parametrize("ext", FORMATS)
def test_save_nothing_to_export_leaves_existing_file(tmp_path, ext):
    target = tmp_path / f"m{ext}"
    target.write_text("old contents")
    with pytest.raises(ValueError, match=r"nothing to export: the trajectory is empty \(no samples\)"):
        save_trajectory(Trajectory(["a"], [], []), target)
    with pytest.raises(ValueError, match="nothing to export: the trajectory has no joints"):
        save_trajectory(Trajectory([], [0.0], [[]]), target)
    with pytest.raises(ValueError, match=r"nothing to export: all 2 joints are virtual"):
        export_trajectory(sample(virtual=[True, True]), target)
    with pytest.raises(ValueError, match=r"nothing to export: the trajectory is empty"):
        export_trajectory(Trajectory(["a"], [], []), target)
    with pytest.raises(TypeError, match="expected a Trajectory"):
        save_trajectory({"a": 1}, target)
    assert target.read_text() == "old contents" and os.listdir(tmp_path) == [target.name]


def test_save_unknown_extension_writes_nothing(tmp_path):
    with pytest.raises(ValueError, match="unknown trajectory format '.txt'"):
        save_trajectory(sample(), tmp_path / "m.txt")
    with pytest.raises(ValueError, match="unknown trajectory format '.yaml'"):
        export_trajectory(sample(), tmp_path / "m.yaml")
    assert os.listdir(tmp_path) == []


def test_json_times_closer_than_a_nanosecond_write_nothing(tmp_path):
    target = tmp_path / "m.json"
    target.write_text("old contents")
    with pytest.raises(ValueError, match=r"times 1.0 and 1.0000000001 s are less than 1 ns apart"):
        save_trajectory(sample(2).replace(times=[1.0, 1.0000000001]), target)
    assert target.read_text() == "old contents" and os.listdir(tmp_path) == ["m.json"]


@pytest.mark.parametrize("ext", FORMATS)
def test_save_missing_directory(tmp_path, ext):
    target = tmp_path / "no" / "such" / f"m{ext}"
    with pytest.raises(FileNotFoundError, match=r"cannot write trajectory '.*m\.[\w.]+': No such file"):
        save_trajectory(sample(), target)
    assert not (tmp_path / "no").exists()


def test_save_into_a_directory_or_under_a_file(tmp_path):
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(OSError, match="cannot write trajectory"):
        save_trajectory(sample(), tmp_path / "d.csv")
    (tmp_path / "f").write_text("x")
    with pytest.raises(OSError, match="cannot write trajectory"):
        save_trajectory(sample(), tmp_path / "f" / "m.csv")
    assert sorted(os.listdir(tmp_path)) == ["d.csv", "f"] and os.listdir(tmp_path / "d.csv") == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores permissions")
def test_save_read_only_directory(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o500)
    try:
        with pytest.raises(PermissionError, match="cannot write trajectory"):
            save_trajectory(sample(), d / "m.csv")
        assert os.listdir(d) == []
    finally:
        d.chmod(0o700)


def test_save_permission_denied_simulated(tmp_path, monkeypatch):
    # the read-only directory again, also when the tests run as root
    def deny(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(atomic.os, "open", deny)
    with pytest.raises(PermissionError, match=r"cannot write trajectory '.*m.path': Permission denied"):
        save_trajectory(sample(), tmp_path / "m.path")
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("ext", FORMATS)
@pytest.mark.parametrize("fail", ["fsync", "replace", "chmod"])
def test_failure_mid_write_leaves_existing_file(tmp_path, monkeypatch, ext, fail):
    target = tmp_path / f"m{ext}"
    target.write_text("old contents")

    def boom(*args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(atomic.os, fail, boom)
    with pytest.raises(OSError, match=r"cannot write trajectory .*Input/output error") as info:
        export_trajectory(sample(), target)
    monkeypatch.undo()
    assert info.value.errno == errno.EIO
    assert target.read_text() == "old contents" and os.listdir(tmp_path) == [target.name]


def test_interrupt_mid_write_leaves_existing_file(tmp_path, monkeypatch):
    target = tmp_path / "m.csv"
    target.write_text("old contents")

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        save_trajectory(sample(), target)
    monkeypatch.undo()
    assert target.read_text() == "old contents" and os.listdir(tmp_path) == ["m.csv"]


def test_an_interrupted_writes_temporary_file_is_removed_by_the_next_write(tmp_path):
    """Fixed defect (issue 35): a write stopped between its temporary file and the rename
    (Blender killed, a power cut) left ``.m.csv.<hex>.tmp`` for good. The next write of the
    same target removes such files once they are over a minute old; a younger one (another
    process writing now), another target's and files that only look alike stay."""
    old = tmp_path / ".m.csv.0123456789ab.tmp"
    young = tmp_path / ".m.csv.ba9876543210.tmp"
    others = [tmp_path / ".n.csv.0123456789ab.tmp", tmp_path / ".m.csv.notatoken.tmp",
              tmp_path / ".m.csv.0123456789ab.tmp.keep"]
    for f in [old, young, *others]:
        f.write_text("half a file")
    stale = time.time() - atomic.STALE_S - 5
    for f in [old, *others]:
        os.utime(f, (stale, stale))
    save_trajectory(sample(), tmp_path / "m.csv")
    assert sorted(os.listdir(tmp_path)) == sorted(["m.csv", young.name] + [f.name for f in others])
    # every exporter writes through the same function: the URDF's meshes (and presets) too
    mesh = tmp_path / ".link.stl.00000000aaaa.tmp"
    mesh.write_bytes(b"half a mesh")
    os.utime(mesh, (stale, stale))
    stl.write_stl(tmp_path / "link.stl", [[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    assert not mesh.exists() and (tmp_path / "link.stl").is_file()


def test_save_replaces_existing_and_keeps_mode(tmp_path):
    target = tmp_path / "m.csv"
    target.write_text("old contents")
    target.chmod(0o640)
    save_trajectory(sample(), target)
    assert load_trajectory(target) == parse_csv(format_csv(sample()))
    assert (target.stat().st_mode & 0o777) == 0o640 and os.listdir(tmp_path) == ["m.csv"]


# ---------------------------------------------------------------- export_trajectory


def test_export_selects_unwraps_checks_and_decimates(tmp_path):
    n = 4001
    t = np.arange(n) / 24.0
    theta = np.linspace(0.0, 10 * 2 * math.pi, n)  # a wheel spinning 10 turns, 0.9 deg a frame
    wrapped = (theta + math.pi) % (2 * math.pi) - math.pi
    tr = Trajectory(["wheel", "lift", "tilt_v"], t, np.c_[wrapped, np.linspace(0, 0.5, n), t],
                    kinds=["angular", "linear", "angular"], continuous=[True, False, False],
                    virtual=[False, False, True], upper=[math.inf, 0.4, math.inf],
                    velocity_limits=[0.3, None, None])  # the wheel turns at 0.377 rad/s
    for ext in FORMATS:
        path = tmp_path / f"m{ext}"
        written, violations = export_trajectory(tr, path)
        assert written.joint_names == ("wheel", "lift")
        back = load_trajectory(path, ["wheel", "lift"], ["angular", "linear"])
        np.testing.assert_array_equal(back.positions, written.positions)
        w = back.positions[:, 0]
        assert np.all(np.diff(w) > 0) and w[-1] == pytest.approx(20 * math.pi)  # never wrapped
        # 2 degree steps of a wheel moving 0.9 degrees a frame: every third frame (2.7 deg)
        assert back.n_times == 1 + (n - 1 + 2) // 3
        assert back.times[0] == 0.0 and back.times[-1] == pytest.approx(t[-1], abs=1e-9)
        assert {v.kind for v in violations} == {"position", "velocity"}
        assert {v.joint for v in violations} == {"wheel", "lift"}  # virtual tilt_v left out
        first_pos = next(v for v in violations if v.kind == "position")
        assert first_pos.joint == "lift" and first_pos.limit == 0.4 and first_pos.value > 0.4
        assert all(isinstance(v, Violation) for v in violations)
    coarse, _ = export_trajectory(tr, tmp_path / "c.csv", angle_step=math.radians(9))
    assert 360 < coarse.n_times <= 1 + (n - 1) // 10 + 30  # about every 10th frame
    full, _ = export_trajectory(tr, tmp_path / "f.path", include_virtual=True, every_frame=True)
    assert full.joint_names == ("wheel", "lift", "tilt_v") and full.n_times == n


# ---- the table of formats -----------------------------------------------------------------------
def test_everything_said_of_the_formats_derives_from_the_table():
    from vart_addon.formats.trajectory import files as F
    assert F.FORMATS == tuple(f.extension for f in F.TABLE) == (".csv", ".json", ".path",
                                                                ".goal.json")
    assert F.extensions_text() == ".csv, .json, .path or .goal.json"
    assert F.file_glob() == "*.csv;*.json;*.path;*.goal.json"
    assert [f.label for f in F.TABLE] == ["CSV (.csv)", "ROS JointTrajectory (.json)",
                                         "Klampt Path (.path)",
                                         "FollowJointTrajectory Goal (.goal.json)"]
    assert {f.id: f.extension for f in F.TABLE} == {"CSV": ".csv", "JSON": ".json",
                                                    "PATH": ".path", "GOAL": ".goal.json"}
    assert F.format_of("A/B.Json") is F.BY_ID["JSON"]
    # a two-part extension: the longest that ends the name (a file named goal.json is JSON)
    assert F.format_of("A/B.Goal.JSON") is F.BY_ID["GOAL"]
    assert F.format_of("runs/goal.json") is F.format_of("m.goal.json.json") is F.BY_ID["JSON"]
    with pytest.raises(ValueError, match=r"unknown trajectory format '\.txt' for 'm\.txt': "
                                         r"use \.csv, \.json, \.path or \.goal\.json"):
        F.format_of("m.txt")
    # what a file states: .csv names and units, .json and .goal.json names, .path neither
    assert [(f.names, f.units) for f in F.TABLE] == [(True, True), (True, False),
                                                    (False, False), (True, False)]


def test_deeply_nested_json_is_a_format_error_not_a_recursion_error():
    """Fixed defect (issue 19): a JSON nested 100,000 deep raised an unhandled RecursionError."""
    with pytest.raises(TrajectoryFormatError, match="^deep.json: nested too deeply"):
        parse_json("[" * 100_000 + "]" * 100_000, "deep.json")


def test_saving_to_a_symbolic_link_writes_through_to_its_target_atomically(tmp_path):
    """Fixed defect (issue 19): export to a symlink replaced the link with a file."""
    import os
    target = tmp_path / "real" / "motion.csv"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "motion.csv"
    link.symlink_to(target)
    tr = Trajectory(["a"], [0.0, 1.0], [[0.0], [0.5]])
    save_trajectory(tr, link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert load_trajectory(target).positions.tolist() == [[0.0], [0.5]]
    assert sorted(p.name for p in target.parent.iterdir()) == ["motion.csv"]  # no temp left
