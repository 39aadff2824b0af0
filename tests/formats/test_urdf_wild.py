"""Issue 32.2: URDF files Pinocchio loads and vart once refused load in vart too, with a
warning where the file bends the format: a ``<limit>`` whose lower exceeds its upper (read
swapped), geometry URDF does not define (``<plane>``, ``<cdf>``: skipped), a ``<mesh scale>``
of four numbers (skipped, as urdfdom skips it), an XML declaration after blank lines. Each
file is written here and read by Pinocchio too: it loads it, and every link's pose agrees."""
from __future__ import annotations

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio", reason="Pinocchio (PyPI pin) is a dev dependency")

from pinocchio_check import frame_of, pinocchio_frames  # noqa: E402
from vart_addon.formats.urdf.files import read_urdf  # noqa: E402
from vart_addon.formats.urdf.to_linkage import linkage_from_urdf  # noqa: E402

BOX = '<visual name="kept"><geometry><box size="0.1 0.2 0.3"/></geometry></visual>'


def robot(body: str = "", limit: str = 'lower="-1" upper="1"', head: str = "") -> str:
    """A two-link arm: ``b`` hangs from ``a`` by revolute ``j`` (``limit``), 0.5 m above it;
    ``body`` inside link ``b``; ``head`` before ``<robot>``."""
    return (f'{head}<robot name="wild"><link name="a"/><link name="b">{body}</link>'
            '<joint name="j" type="revolute"><origin xyz="0 0 0.5" rpy="0 0.3 0"/>'
            '<parent link="a"/><child link="b"/><axis xyz="0 1 0"/>'
            f'<limit {limit} effort="1" velocity="1"/></joint></robot>')


CASES = {
    "swapped limit": (robot(BOX, limit='lower="1.2" upper="-0.4"'),
                      "joint 'j': <limit> lower 1.2 > upper -0.4: read as [-0.4, 1.2]"),
    "plane": (robot('<visual><geometry><plane normal="0 0 1"/></geometry></visual>' + BOX),
              "link 'b': <visual>: <plane> is not URDF geometry"),
    "cdf": (robot(BOX + '<collision><geometry><cdf filename="b.cdf"/></geometry></collision>'
                  '<collision><geometry><sphere radius="0.1"/></geometry></collision>'),
            "link 'b': <collision>: <cdf> is not URDF geometry"),
    "four-number scale": (robot(BOX + '<visual><geometry><mesh filename="b.stl" '
                                'scale="1 2 3 4"/></geometry></visual>'),
                          "link 'b': <visual>: <mesh> scale has 4 values, not 3: skipped"),
    "declaration after blank lines": (robot(BOX, head='\n\n  \n<?xml version="1.0"?>\n'), None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_what_pinocchio_loads_vart_loads(case, tmp_path):
    text, warning = CASES[case]
    path = tmp_path / "wild.urdf"
    path.write_text(text)
    model = pin.buildModelFromUrdf(str(path))  # Pinocchio loads it
    robot_ = read_urdf(path)  # and so does vart, from the file's bytes
    assert list(robot_.warnings) == ([] if warning is None else
                                     [w for w in robot_.warnings if w.startswith(warning)])
    assert len(robot_.warnings) == (0 if warning is None else 1), robot_.warnings
    b = robot_.link_by_name("b")
    assert [v.name for v in b.visuals] == ["kept"]  # what is URDF stays
    if case == "cdf":
        assert [c.geometry.kind for c in b.collisions] == ["sphere"]
    for q in (-0.3, 0.0, 0.9):
        data = pinocchio_frames(pin, model, robot_, {"j": q})
        poses = linkage_from_urdf(robot_, {"j": q})[0].poses()
        for link in ("a", "b"):
            assert np.abs(frame_of(pin, model, data, link) - poses[link]).max() < 1e-12


def test_a_swapped_limit_is_read_as_the_range_it_names():
    r = read_urdf(CASES["swapped limit"][0])
    lim = r.joint_by_name("j").limit
    assert (lim.lower, lim.upper) == (-0.4, 1.2)
    lk = linkage_from_urdf(r)[0]  # zero is inside [-0.4, 1.2]: the start is 0
    assert float(lk.joints["j"].q[0]) == 0.0
