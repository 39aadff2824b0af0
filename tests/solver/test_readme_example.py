"""The README's Python API example runs and does what its comments say."""
import contextlib
import io
import re

import numpy as np

from repo_paths import REPO

README = REPO / "README.md"


def test_readme_python_example_runs_and_solves():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "README.md has no python example"
    env: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "README.md", "exec"), env)
    lk, status = env["lk"], env["status"]
    assert status.converged
    assert status.level("invariant").max_goal_error < 1e-9
    # A parallelogram four-bar: the rocker turns exactly as the crank does.
    assert abs(np.degrees(lk.joint_q(lk.joint("D"))[0]) + 60) < 1e-7
    assert abs(np.degrees(lk.joint_q(lk.joint("A"))[0]) + 60) < 1e-7
    coupler = lk.pose("coupler")
    assert np.allclose(coupler[:3, 3], [np.cos(np.radians(30)), np.sin(np.radians(30)), 0], atol=1e-9)
