"""ROS 2 messages built strictly from JSON with rosbags' type system (rosbags, a dev
requirement): every object's keys exactly the fields of its message, each value of its
field's type (a missing, unknown or mistyped field fails), then a CDR round trip.

:func:`typestore` is rosbags' ROS 2 Humble typestore, with control_msgs' ``JointTolerance``,
``JointComponentTolerance`` and the ``FollowJointTrajectory`` goal registered from their
published definitions (``tests/data/control_msgs``: the same in Humble and Jazzy).
"""
from __future__ import annotations

import re

import numpy as np
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

from repo_paths import DATA

#: The goal message of control_msgs' FollowJointTrajectory action, as rosbags names it.
FJT_GOAL = "control_msgs/action/FollowJointTrajectory_Goal"
_CONTROL_MSGS = DATA / "control_msgs"


def typestore(control_msgs: bool = False):
    """rosbags' ROS 2 Humble typestore (a fresh one), with control_msgs' types if asked."""
    store = get_typestore(Stores.ROS2_HUMBLE)
    if control_msgs:
        types = {}
        for name in ("JointTolerance", "JointComponentTolerance"):
            types.update(get_types_from_msg((_CONTROL_MSGS / f"{name}.msg").read_text(),
                                            f"control_msgs/msg/{name}"))
        action = (_CONTROL_MSGS / "FollowJointTrajectory.action").read_text()
        goal = action.split("\n---")[0]  # an action: goal --- result --- feedback
        # rosidl takes a bare type of an action for its package's message; rosbags would
        # look for it beside the action: name the package
        goal = re.sub(r"^(Joint\w*Tolerance)\[\]", r"control_msgs/msg/\1[]", goal, flags=re.M)
        types.update(get_types_from_msg(goal, FJT_GOAL))
        store.register(types)
    return store


def build(store, value, typename: str):
    """The rosbags message ``typename`` of a JSON object whose keys must be exactly the
    message's fields (and each value of the field's type)."""
    fields = store.fielddefs[typename][1]
    assert isinstance(value, dict) and set(value) == {f for f, _ in fields}, \
        (typename, sorted(value), [f for f, _ in fields])
    return store.types[typename](**{f: _convert(store, value[f], desc) for f, desc in fields})


def _convert(store, value, desc):
    kind, arg = desc
    if kind.name == "NAME":
        return build(store, value, arg)
    if kind.name == "BASE":
        t = arg[0]
        if t == "string":
            assert isinstance(value, str)
            return value
        if t.startswith(("int", "uint")):
            assert isinstance(value, int) and not isinstance(value, bool)
            return value
        assert isinstance(value, float)
        return value
    assert kind.name == "SEQUENCE" and isinstance(value, list)
    (sub_kind, sub_arg), _ = arg
    if sub_kind.name == "BASE" and sub_arg[0] == "float64":
        assert all(isinstance(v, float) for v in value)
        return np.array(value, dtype=np.float64)
    return [_convert(store, v, (sub_kind, sub_arg)) for v in value]


def cdr_round_trip(store, msg, typename: str):
    """``msg`` serialized to CDR and back (and the same bytes again): the message ROS gets."""
    back = store.deserialize_cdr(store.serialize_cdr(msg, typename), typename)
    assert store.serialize_cdr(back, typename) == store.serialize_cdr(msg, typename)
    return back
