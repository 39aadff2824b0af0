"""Analyses of a model without Blender: sweeps and Monte Carlo studies over joint values,
solved quasistatically (gravity, springs, limits), on one machine or a Dask cluster.

- :mod:`.study`: the study file (variables: grids or distributions; contacts; chunks);
- :mod:`.quantities`: what each sample records (joint values, deflections and torques of
  compliant joints, limits, centre of mass against the support polygon, solve status);
- :mod:`.sweep`: one chunk of samples solved warm-started along them;
- :mod:`.derived`: first limit activations, loss of stability, sensitivities;
- :mod:`.results`: the table as CSV and JSON;
- :mod:`.runner`: in this process, a local process pool or Dask; ``python -m
  vart_addon.analysis study.json model.json --out results/`` (:mod:`.__main__`).

The model is a model file (:mod:`vart_addon.solver.model_file`). Imports: the solver,
``formats.atomic`` and numpy only (Dask lazily), never Blender.
"""
from .results import Results
from .runner import Plan, StudyCancelled, connect, plan, run
from .study import Study, StudyError, parse

__all__ = ["Plan", "Results", "Study", "StudyCancelled", "StudyError", "connect", "parse",
           "plan", "run"]
