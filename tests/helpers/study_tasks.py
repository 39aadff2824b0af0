"""Chunk tasks for the tests of where a study runs: a module (not a test's own function) so a
local process pool's workers, which import what they run, find them."""
from __future__ import annotations

import os

from vart_addon.analysis.sweep import solve_chunk


def dies_once(marker: str, model_text, study_doc, start, values):
    """:func:`~vart_addon.analysis.sweep.solve_chunk`, except that the process running the
    chunk from sample 3 dies (``os._exit``) the first time, which it marks by creating the
    file ``marker``."""
    if start == 3 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return solve_chunk(model_text, study_doc, start, values)
