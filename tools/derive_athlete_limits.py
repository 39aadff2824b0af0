"""Derive lower bounds of the ATHLETE hexapod's limb joint torques from published figures.

Published (assets/README.md): the vehicle is about 850 kg and carries a payload of up to
300 kg in Earth gravity. A robot that stands with that payload must hold it: the torque its
joints need to stand, as small as any distribution of the load over its wheels can make it, is
a lower bound of what its actuators give. This script computes it for the model shipped in
``assets/athlete`` at the stories' standing pose (``examples.robots.STANDING``), the payload on
the deck (at the deck's centre of mass), on its six wheels and on five (one wheel lifted, as
when it steps), with the contacts of the physics checks (a point under each wheel, friction
``physics.ground_contacts.MU``).

The model's limb joints share one effort limit (``tools/make_assets.py`` ``LIMB_EFFORT``): the
least limit they could all share and stand on five wheels with the payload is

    min over contact forces in the friction cones of  max over the limb joints |tau|

(:func:`common_rating`; the real robot's strongest limb joint must give at least that). It is
what the model uses, rounded down. For one joint class alone (the hip pitch of every leg, say),
the others unlimited, the bound is

    min over contact forces in the friction cones of  max over the class's joints |tau|

(physics.statics.solve_pose with an effort of 1 N m on the class and 1e5 N m elsewhere, so
the other joints are as good as unlimited: their torques, under 2 kN m, weigh under 0.02 in
the objective; the class's largest |torque| is read from the solution, within that of the
least). This is the least any robot of this geometry and mass can do with. On five wheels
the robot must be able to lift some wheel: the bound is the least over the six wheels lifted
(a robot able to lift any of them needs the largest).

    .venv/bin/python tools/derive_athlete_limits.py
"""
from __future__ import annotations

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from vart_addon.examples.robots import STANDING, WHEEL_RADIUS, asset, standing_pose  # noqa: E402
from vart_addon.formats.urdf import files as urdf  # noqa: E402
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf  # noqa: E402
from vart_addon.physics.ground_contacts import MU  # noqa: E402
from vart_addon.physics.static_model import StaticModel  # noqa: E402
from vart_addon.physics.statics import Contact, solve_pose  # noqa: E402
from vart_addon.solver import se3  # noqa: E402

PAYLOAD = 300.0  # kg, published
UP = np.array([0.0, 0.0, 1.0])
CLASSES = tuple(j for j in STANDING if j != "wheel")


def stance(payload: float):
    """The standing hexapod (its wheels' lowest points on z = 0) with ``payload`` kg added to
    the deck at the deck's centre of mass: (linkage, poses, contact per wheel)."""
    q, height = standing_pose()
    robot = urdf.read_urdf(asset("athlete"))
    lk, _ = linkage_from_urdf(robot, q, base_pose=se3.make_pose(None, [0.0, 0.0, height]))
    deck = lk.links["deck"]
    lk.set_mass("deck", deck.mass + payload, deck.com)
    poses = lk.poses()
    contacts = [Contact(f"leg{k}_wheel", f"leg{k}_wheel",
                        poses[f"leg{k}_wheel"][:3, 3] - (0.0, 0.0, WHEEL_RADIUS), UP, MU)
                for k in range(6)]
    return lk, poses, contacts


def least_worst_torque(lk, poses, contacts, cls: str) -> tuple[float, bool]:
    """The least largest |torque| (N m) over the joints ``leg*_<cls>`` (others unlimited)."""
    efforts = {n: (1.0 if n.split("_", 1)[1] == cls else 1e5)
               for n, j in lk.joints.items() if n.startswith("leg") and j.dof == 1}
    sm = StaticModel(lk, efforts)
    st = solve_pose(sm, poses, contacts)
    mine = [i for i, d in enumerate(sm.motors) if sm.dofs[d].joint.split("_", 1)[1] == cls]
    return float(np.abs(st.torque[mine]).max()), bool(st.balanced and st.converged)


def common_rating(payload: float) -> tuple[float, float, float]:
    """The least effort every limb joint (hip yaw and pitch, knee, ankle pitch and roll) must
    share for the model to stand with ``payload`` kg: on its six wheels, and on five (the
    least and the largest over the wheel lifted). N m."""
    lk, poses, contacts = stance(payload)
    efforts = {n: 1.0 for n, j in lk.joints.items()
               if n.startswith("leg") and j.dof == 1 and not n.endswith("_wheel")}
    sm = StaticModel(lk, efforts)
    out = []
    for cs in [contacts] + [contacts[:k] + contacts[k + 1:] for k in range(6)]:
        st = solve_pose(sm, poses, cs)
        out.append(float(st.worst) if st.balanced and st.converged else float("inf"))
    return out[0], min(out[1:]), max(out[1:])


def main() -> dict:
    print("The least effort limit all limb joints must share (N m), standing as the stories "
          f"start, friction {MU}:")
    print("| payload | six wheels | five wheels, least over the wheel lifted | largest |")
    print("|---|---|---|---|")
    out = {}
    for payload in (0.0, PAYLOAD):
        out[payload] = common_rating(payload)
        six, least, most = out[payload]
        print(f"| {payload:.0f} kg | {six:.0f} | {least:.0f} | {most:.0f} |")
    lk, poses, contacts = stance(PAYLOAD)
    print(f"\nEach joint class alone, the others unlimited, with {PAYLOAD:.0f} kg (N m):")
    print("| joint class | six wheels | five wheels, least over the wheel lifted |")
    print("|---|---|---|")
    for cls in CLASSES:
        six, _ = least_worst_torque(lk, poses, contacts, cls)
        five = min(least_worst_torque(lk, poses, contacts[:k] + contacts[k + 1:], cls)[0]
                   for k in range(6))
        print(f"| {cls} | {six:.0f} | {five:.0f} |")
    return out


if __name__ == "__main__":
    main()
