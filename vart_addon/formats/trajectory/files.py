"""Trajectory files: the table of formats, and reading, writing and exporting a file.

Each format is one :class:`TrajectoryFormat` in :data:`TABLE` (extension, Blender enum id,
labels, writer, reader, whether the file carries joint names and units, its **layout**,
whether it carries velocities and accelerations by default, the **options** its writer
takes (a controller goal's tolerances) and whether it is a controller's goal, naming only
**actuated** joints); everything else derives from it (no code tests a format's id):
:data:`FORMATS`, the extension check (:func:`format_of`; an extension may have two parts,
``.goal.json``: the longest that ends the name wins), the file filter
(:func:`file_glob`), the text that lists them (:func:`extensions_text`), the operators' enum
and the menus' labels. A new format is a writer and a reader in :mod:`.codecs` and one row here.

Writes are atomic (:mod:`vart_addon.formats.atomic`): a failure leaves no partial file and an
existing file untouched. Units: seconds, radians (angular joints), metres (linear joints).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Callable, ClassVar, Optional, Protocol, Sequence, Union

from ..atomic import write_atomic
from .codecs import (
    TrajectoryFormatError,
    check_exportable,
    file_error,
    format_csv,
    format_path,
    parse_csv,
    parse_path,
)
from .klampt_layout import KlamptLayout
from .model import Trajectory, check_limits, decimate, select, unwrap
from .ros_goal import GoalTolerances, format_goal, parse_goal
from .ros_json import format_json, parse_json
from .timing import Limits, RetimeResult, stopped_at_end, with_derivatives
from .timing import retime as retime_motion

__all__ = ["NAMED", "KLAMPT", "ConfigLayout", "TrajectoryFormat", "TABLE", "FORMATS",
           "format_of", "find_format", "file_glob", "extensions_text",
           "TrajectoryFormatError", "format_csv", "parse_csv", "format_json", "parse_json",
           "format_path", "parse_path", "save_trajectory", "load_trajectory",
           "export_trajectory", "export_motion", "Exported"]

PathLike = Union[str, os.PathLike]
#: Layouts of a file's values (:attr:`TrajectoryFormat.layout`): ``NAMED`` (None), one named
#: column per joint value (and the base's); or a *configuration layout*, a class of
#: :class:`ConfigLayout`: the robot's configuration vector, unnamed, in its own order, such as
#: ``KLAMPT`` (:class:`.klampt_layout.KlamptLayout`: Klampt's entries).
NAMED = None
KLAMPT = KlamptLayout


class ConfigLayout(Protocol):
    """A robot's configuration vector as a file holds it. The class: ``title`` (what
    messages call it, "Klampt configuration") and ``of(robot, linkage)``, the layout of a
    robot's URDF (as vart exports it for ``linkage``; ValueError naming what it cannot
    hold). An instance: ``size`` (entries) and ``to_config`` / ``from_config``, a trajectory
    of named joint columns (and base poses) to the vector's entries and back."""

    title: ClassVar[str]

    @classmethod
    def of(cls, robot, lk) -> "ConfigLayout": ...

    @property
    def size(self) -> int: ...

    def to_config(self, traj: Trajectory) -> Trajectory: ...

    def from_config(self, traj: Trajectory) -> Trajectory: ...
#: A reader: (text, source name, expected joint names or None, expected kinds or None).
Reader = Callable[[str, str, Optional[Sequence[str]], Optional[Sequence[str]]], Trajectory]


@dataclass(frozen=True)
class TrajectoryFormat:
    """One trajectory file format, as the API, the operators and the menus know it."""

    id: str            #: Blender enum identifier ('CSV')
    extension: str     #: lower case, with the dot ('.csv'; or two parts: '.goal.json')
    name: str          #: what the format is called in sentences ("ROS JointTrajectory JSON")
    description: str   #: the tooltip of its enum item
    write: Callable[..., str]  #: ``write(traj)``; with :attr:`options`, ``write(traj, options)``
    read: Reader
    names: bool        #: the file states joint names (else the caller gives them)
    units: bool        #: the file states units, hence kinds (else the caller gives them)
    layout: Optional[type[ConfigLayout]] = NAMED  #: :data:`NAMED` or a ConfigLayout class
    derivatives: bool = False  #: writes velocities and accelerations unless told otherwise
    #: The class of the options the file carries (its writer's second argument, built with
    #: no arguments for its defaults), or None.
    options: Optional[type] = None
    #: A controller's goal: names only the joints a controller commands (mimic followers
    #: and a floating base are left out of an export), and ends at rest (an export's last
    #: waypoint has velocities and accelerations 0: a controller refuses a goal that ends
    #: moving).
    actuated: bool = False

    def __post_init__(self):
        assert self.layout is NAMED or callable(getattr(self.layout, "of", None)), self.layout

    @property
    def label(self) -> str:
        """The enum item's label: ``"CSV (.csv)"``."""
        return f"{self.name} ({self.extension})"

    def text(self, traj: Trajectory, options=None) -> str:
        """The file's text of ``traj``. ``options``: an instance of :attr:`options` (None: its
        defaults); a format without options passes over them (they are another format's).
        TypeError for options of another class."""
        if self.options is None:
            return self.write(traj)
        if options is None:
            options = self.options()
        if not isinstance(options, self.options):
            raise TypeError(f"{self.name} options must be {self.options.__name__}, got "
                            f"{type(options).__name__}")
        return self.write(traj, options)


TABLE: tuple[TrajectoryFormat, ...] = (
    TrajectoryFormat(
        "CSV", ".csv", "CSV",
        "A time column and one column per joint value, header with names and units",
        format_csv, lambda text, source, names, kinds: parse_csv(text, source),
        names=True, units=True),
    TrajectoryFormat(
        "JSON", ".json", "ROS JointTrajectory",
        "trajectory_msgs/JointTrajectory fields: joint_names, points with positions and "
        "time_from_start",
        format_json, lambda text, source, names, kinds: parse_json(text, source, kinds),
        names=True, units=False, derivatives=True),
    TrajectoryFormat(
        "PATH", ".path", "Klampt Path",
        "Klampt's linear path: one milestone per line (time, count, values), for Klampt's "
        "simulator",
        format_path, parse_path, names=False, units=False, layout=KLAMPT),
    TrajectoryFormat(
        "GOAL", ".goal.json", "FollowJointTrajectory Goal",
        "control_msgs/action/FollowJointTrajectory goal of a ros2_control joint trajectory "
        "controller: the actuated joints' JointTrajectory, with velocities and "
        "accelerations, and path and goal tolerances (JSON that is YAML: ros2 action "
        "send_goal takes it)",
        format_goal, lambda text, source, names, kinds: parse_goal(text, source, kinds),
        names=True, units=False, derivatives=True, options=GoalTolerances, actuated=True),
)
#: The extensions of :data:`TABLE`, in its order.
FORMATS: tuple[str, ...] = tuple(f.extension for f in TABLE)
BY_EXTENSION = {f.extension: f for f in TABLE}
BY_ID = {f.id: f for f in TABLE}


def extensions_text(last: str = "or") -> str:
    """The extensions as a sentence lists them: ``".csv, .json or .path"``."""
    return ", ".join(FORMATS[:-1]) + f" {last} {FORMATS[-1]}" if len(FORMATS) > 1 else FORMATS[0]


def file_glob() -> str:
    """The file browser's filter of every format: ``"*.csv;*.json;*.path"``."""
    return ";".join(f"*{ext}" for ext in FORMATS)


def find_format(path: PathLike) -> Optional[TrajectoryFormat]:
    """The format whose extension ends ``path``'s file name (any case; the longest, so
    ``m.goal.json`` is ``.goal.json``, ``m.json`` is ``.json``), or None."""
    name = os.path.basename(os.fspath(path)).lower()
    ext = max((e for e in BY_EXTENSION if name.endswith(e) and len(name) > len(e)),
              key=len, default=None)
    return None if ext is None else BY_EXTENSION[ext]


def format_of(path: PathLike) -> TrajectoryFormat:
    """The format of ``path``'s extension (:func:`find_format`); ValueError naming the file
    if none."""
    fmt = find_format(path)
    if fmt is None:
        ext = os.path.splitext(os.fspath(path))[1].lower()
        raise ValueError(f"unknown trajectory format {ext or '(no extension)'!r} for "
                         f"'{os.fspath(path)}': use {extensions_text()}")
    return fmt


def save_trajectory(traj: Trajectory, path: PathLike, options=None) -> None:
    """Write ``traj`` as it is (no selection or decimation) in the format of ``path``'s
    extension, atomically, with the format's ``options`` (:meth:`TrajectoryFormat.text`).
    ValueError for an unknown extension or nothing to export, OSError naming ``path`` when
    it cannot be written; in every failure the file system is unchanged."""
    data = format_of(path).text(traj, options).encode("utf-8")
    write_atomic(path, data, "trajectory")


def load_trajectory(path: PathLike, joint_names: Optional[Sequence[str]] = None,
                    kinds: Optional[Sequence[str]] = None) -> Trajectory:
    """Read a trajectory file of any format in :data:`TABLE`. ``joint_names`` / ``kinds``,
    when given, are what the caller expects: they name the columns of a format without names
    (.path), give the kinds of a format without units (.json, .path), and must match what a
    file does state (the names of .csv/.json, the units of .csv), else ValueError. OSError
    naming ``path`` if it cannot be read; :class:`TrajectoryFormatError` for bad content."""
    fmt = format_of(path)
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        if e.errno is None:
            raise type(e)(f"cannot read trajectory '{path}': {e}") from e
        raise type(e)(e.errno, f"cannot read trajectory '{path}': {e.strerror}") from e
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise file_error(path, "", f"not UTF-8 text (bad byte at offset {e.start})") from None
    traj = fmt.read(text, path, joint_names, kinds)
    if fmt.names and joint_names is not None and tuple(joint_names) != traj.joint_names:
        raise file_error(path, "", f"joints {list(traj.joint_names)} differ from the expected "
                   f"{list(joint_names)}")
    if fmt.units and kinds is not None and tuple(kinds) != traj.kinds:
        raise file_error(path, "", f"joint kinds {list(traj.kinds)} differ from the expected "
                   f"{list(kinds)}")
    return traj


@dataclass(frozen=True)
class Exported:
    """What :func:`export_motion` wrote: ``written`` (the Trajectory in the file; for a Klampt
    layout, its configuration entries), ``violations`` (limit violations of the full-rate
    motion, after re-timing), ``timing`` (the :class:`~.timing.RetimeResult`, or None) and
    ``notes`` (what was left out, for the user)."""

    written: Trajectory
    violations: list
    timing: Optional[RetimeResult] = None
    notes: tuple = ()


def export_motion(traj: Trajectory, path: PathLike, *, include_virtual: bool = False,
                  every_frame: bool = False, angle_step: float = math.radians(2.0),
                  length_step: float = 0.02, derivatives: Optional[bool] = None,
                  retime: Optional[str] = None, limits: Optional[Limits] = None,
                  max_speedup: float = 10.0,
                  layout: Optional[ConfigLayout] = None, options=None) -> Exported:
    """The whole export: select the joints (real only unless ``include_virtual``), unwrap the
    continuous ones, drop a base that does not move (unless a configuration layout needs its
    entries), re-time (``retime``: "uniform" or "toppra" within ``limits``, see
    :mod:`.timing`) or keep the times, take velocities and accelerations from the full-rate
    samples, check limits on every sample, decimate to waypoints (``angle_step`` rad,
    ``length_step`` m, or ``every_frame``) and write ``path`` atomically: with ``layout``
    (the robot's, for a format with a configuration layout), its configuration vectors; with
    ``options``, the format's (:attr:`TrajectoryFormat.options`: a goal's tolerances). An
    :attr:`~TrajectoryFormat.actuated` format leaves a floating base out (a note says so
    when it moves) and stops the motion at its last waypoint (:func:`.timing.stopped_at_end`).

    ``derivatives``: write velocities and accelerations (default: the format's
    :attr:`TrajectoryFormat.derivatives`; a ``.path`` has none). Violations are reported,
    not fatal: the file is written anyway."""
    fmt = format_of(path)  # fail before any work
    full = unwrap(select(traj, include_virtual))
    check_exportable(full)
    notes = []
    if full.base is not None and fmt.actuated and full.base.moves():
        notes.append(f"left out: the floating base {full.base.link!r}, which moves (a "
                     f"{fmt.name} commands joints only)")
    if full.base is not None and (fmt.actuated or layout is None and not full.base.moves()):
        full = full.replace(base=None)
    timing = None
    if retime:
        timing = retime_motion(full, limits or Limits(), retime, max_speedup)
        full = timing.trajectory
    else:
        full = with_derivatives(full)
    violations = check_limits(full)
    out = decimate(full, angle_step, length_step, every_frame)
    if not (fmt.derivatives if derivatives is None else derivatives):
        out = out.replace(velocities=None, accelerations=None,
                          base=None if out.base is None else out.base.replace(
                              velocities=None, accelerations=None))
    if fmt.actuated:
        out = stopped_at_end(out)
    if fmt.layout is not NAMED and layout is not None:
        out = layout.to_config(out)
    save_trajectory(out, path, options)
    return Exported(out, violations, timing, tuple(notes))


def export_trajectory(traj: Trajectory, path: PathLike, *, include_virtual: bool = False,
                      every_frame: bool = False, angle_step: float = math.radians(2.0),
                      length_step: float = 0.02):
    """:func:`export_motion` with the formats' default derivatives, the scene's timing and
    no configuration layout. Returns ``(written, violations)``."""
    done = export_motion(traj, path, include_virtual=include_virtual, every_frame=every_frame,
                         angle_step=angle_step, length_step=length_step)
    return done.written, done.violations
