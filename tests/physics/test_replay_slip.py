"""The replay's contact slip (physics/contacts.py) against known cases (issue 35's gap: slip
never checked against a known case): a box sliding a metre on the ground slips a metre; a
ball rolling without slipping slips nothing while it rolls a metre."""
from __future__ import annotations

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from vart_addon.physics.contacts import Contacts  # noqa: E402

STEP = 0.001


def world(body_geom: str, mu: float = 1.0, condim: int = 3) -> tuple:
    """A ground plane of friction ``mu`` (its margin as the replay's, physics.model.NEAR)
    and one free body with the given geom XML (MuJoCo takes the larger friction of two geoms
    in contact)."""
    xml = f"""<mujoco><option timestep="{STEP}"/>
      <worldbody><geom name="ground" type="plane" size="0 0 1" friction="{mu} 0 0"
                       condim="{condim}"/>
        <body name="thing" pos="0 0 0.1"><freejoint/>{body_geom}</body></worldbody></mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    return model, mujoco.MjData(model)


def play(model, data, seconds: float) -> tuple[Contacts, float]:
    """Step for ``seconds`` adding up the slip (as the replay does); (contacts, the body's
    horizontal travel)."""
    contacts = Contacts(mujoco, model)
    start = data.xpos[1, :2].copy()
    travel = 0.0
    for _ in range(int(round(seconds / STEP))):
        mujoco.mj_step(model, data)
        contacts.step(data, STEP)
        x = data.xpos[1, :2].copy()
        travel += float(np.linalg.norm(x - start))
        start = x
    return contacts, travel


def test_a_box_sliding_a_metre_slips_a_metre():
    """Frictionless (condim 1): it slides at constant speed, flat on the ground."""
    model, data = world('<geom type="box" size="0.2 0.2 0.05" mass="2" condim="1"/>', condim=1)
    data.qpos[2] = 0.05
    data.qvel[0] = 1.0  # m/s along x
    contacts, travel = play(model, data, 1.0)
    assert travel == pytest.approx(1.0, rel=1e-3)
    assert contacts.slip["thing"] == pytest.approx(travel, rel=0.01)


def test_a_ball_rolling_a_metre_does_not_slip():
    r = 0.1
    model, data = world(f'<geom type="sphere" size="{r}" mass="1" friction="1 0 0"/>')
    data.qpos[2] = r
    data.qvel[0] = 1.0
    data.qvel[4] = 1.0 / r  # about +y: the contact point at rest
    contacts, travel = play(model, data, 1.0)
    assert travel > 0.9
    assert contacts.slip["thing"] < 1e-3 * travel
