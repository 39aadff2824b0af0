"""The hexapod's limb effort limit is derived, not chosen (issue 31, item 4): published, the
vehicle is about 850 kg and carries up to 300 kg in Earth gravity; the least effort its limb
joints could share and still stand with that payload on five wheels (one lifted, as it steps)
is a lower bound of the real robot's strongest limb joint. ``tools/derive_athlete_limits.py``
computes it; the model's ``LIMB_EFFORT`` is it rounded down, and the shipped URDF carries it."""

import pytest

from repo_paths import REPO, load_script
from vart_addon.formats.urdf import files as urdf


def tool(name):
    return load_script(f"tools/{name}.py", name)


def test_the_limb_effort_limit_is_the_derived_lower_bound_rounded_down():
    derive, assets = tool("derive_athlete_limits"), tool("make_assets")
    six, least, most = derive.common_rating(derive.PAYLOAD)
    assert six < least <= most  # lifting a wheel needs more
    assert 0.99 * least <= assets.LIMB_EFFORT <= least  # rounded down, never above the bound
    unloaded = derive.common_rating(0.0)
    assert unloaded[0] == pytest.approx(476.2, abs=1.0)  # story 1's 476 % of the old 100 N m
    robot = urdf.read_urdf(REPO / "assets" / "athlete" / "athlete.urdf")
    efforts = {j.limit.effort for j in robot.joints
               if j.limit is not None and j.type != "continuous"}
    assert efforts == {assets.LIMB_EFFORT}
