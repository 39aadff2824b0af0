"""Where a study runs: in this process, on a local process pool (the default), or on a Dask
distributed cluster. Everything is checked before any work starts (:func:`plan`): the study
against the model, and the scheduler's address (it must answer within ``connect_timeout``).

The samples are split into chunks of ``study.chunk`` samples, each one task
(:func:`.sweep.solve_chunk`); results are gathered as they finish. A chunk whose task fails
(its worker died, or anything else went wrong) is submitted once more; if that fails too its
samples are left out. Both are reported in ``Results.run`` (``retried``, ``failed``: the
chunk's first sample, the reason and ``by``: ``"vart"``). On Dask, the scheduler itself
first re-runs a task whose worker died (or left) while it ran or waited there, up to its
``distributed.scheduler.allowed-failures`` (default 3) before it gives up with
``KilledWorker``; vart's retry comes after that. The scheduler's re-runs are reported too,
with ``by``: ``"dask"`` (read from the scheduler's ``remove-worker`` events once the chunks
are in: :func:`_dask_reruns`). A chunk's result is released on the cluster as soon as it is
gathered, so a worker lost later costs no recomputation.

Dask workers need Python, numpy and ``distributed``, never Blender nor vart installed: the
client sends them vart's Blender-free core (``vart_addon`` with ``solver``, ``analysis`` and
``formats/atomic.py``, and ``threadpoolctl`` for :mod:`vart_addon.solver.threads` when this
Python has it; zipped: :func:`core_archive`) as Dask's ``UploadFile`` worker plugin
(what ``Client.upload_file`` sends to workers, not to the scheduler), which puts it first on
each worker's ``sys.path`` (also on workers that join later). Workers running in the
client's own process (``LocalCluster(processes=False)``) need ``upload=False``: they share
the client's ``vart_addon``.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from . import results as R
from .study import Study, StudyError, parse
from .sweep import prepare, solve_chunk

#: The files of vart's Blender-free core that a worker needs, relative to the package.
CORE = ("__init__.py", "solver", "analysis", "formats/__init__.py", "formats/atomic.py",
        # a sample's stability: the statics of the pose (numpy only)
        "physics/__init__.py", "physics/qp.py", "physics/support.py", "physics/static_model.py",
        "physics/joint_batches.py", "physics/statics.py")


class StudyCancelled(Exception):
    """The study was stopped (``should_stop``) before every chunk was done."""


@dataclass
class Plan:
    """A checked study, ready to run: the parsed study, its document, the model's text, the
    columns and the chunks (first sample, values)."""

    study: Study
    study_doc: dict
    model_text: str
    columns: list
    chunks: list


def plan(study_doc: dict, model_text: str) -> Plan:
    """Parse and check the study against the model (StudyError / ModelFileError naming the
    field at fault), and split its samples into chunks."""
    study = parse(study_doc)
    _, _, rec = prepare(model_text, study)  # reads the model, checks the study against it
    values = study.values().tolist()
    n = study.chunk
    chunks = [(s, values[s:s + n]) for s in range(0, len(values), n)]
    return Plan(study, study_doc, model_text, rec.columns, chunks)


def core_archive(folder) -> str:
    """A zip of vart's Blender-free core (package ``vart_addon``) in ``folder``, with
    ``threadpoolctl`` (one module) when it can be imported here; its path."""
    package = Path(__file__).resolve().parent.parent
    path = os.path.join(folder, "vart_core.zip")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for entry in CORE:
            p = package / entry
            for f in sorted(p.rglob("*.py")) if p.is_dir() else [p]:
                z.write(f, f"vart_addon/{f.relative_to(package).as_posix()}")
        try:
            import threadpoolctl
        except ImportError:
            pass
        else:
            z.write(threadpoolctl.__file__, "threadpoolctl.py")
    return path


def connect(address: str, timeout: float = 10.0):
    """A Dask ``Client`` of the scheduler at ``address``; StudyError if it does not answer."""
    try:
        from distributed import Client
    except ImportError:
        raise StudyError("a Dask scheduler needs the 'distributed' package "
                         "(pip install \"dask[distributed]\")") from None
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as e:
        raise StudyError(f"scheduler {address!r} does not answer: {e}") from None


def run(p: Plan, *, workers: int | None = None, client=None, upload: bool = True,
        progress=None, should_stop=None, task=solve_chunk) -> R.Results:
    """Run a planned study. ``client``: a Dask client (see :func:`connect`); else ``workers``
    local processes (None: one per CPU; 0: in this process); ``upload``: send the core to
    the Dask workers (see the module doc). ``progress(done, total)`` is
    called as samples finish; ``should_stop()`` True stops between chunks (StudyCancelled).
    ``task``: the chunk function (:func:`.sweep.solve_chunk`)."""
    t0 = time.perf_counter()
    total = sum(len(v) for _, v in p.chunks)
    state: dict = {"rows": [], "done": 0, "retried": [], "failed": [], "traces": {}}

    def take(out):
        state["rows"] += out["rows"]
        state["traces"].update(out.get("traces", {}))
        state["done"] += len(out["rows"])
        if progress is not None:
            progress(state["done"], total)

    if client is not None:
        where, n = f"dask {client.scheduler.address}", len(client.scheduler_info()["workers"])
        _run_dask(p, client, upload, take, state, task)
    elif workers == 0 or len(p.chunks) <= 1:
        where, n = "this process", 1
        for start, vals in p.chunks:
            if should_stop is not None and should_stop():
                raise StudyCancelled(f"stopped after {state['done']} of {total} samples")
            take(task(p.model_text, p.study_doc, start, vals))
    else:
        n = min(workers or os.cpu_count() or 1, len(p.chunks))
        where = f"{n} local processes"
        _run_pool(p, n, take, state, task)
    seconds = time.perf_counter() - t0
    run_info = {"samples": state["done"], "chunks": len(p.chunks), "workers": n, "where": where,
                "seconds": seconds, "samples_per_s": state["done"] / seconds if seconds else None,
                "retried": state["retried"], "failed": state["failed"]}
    res = R.assemble(p.study, p.study_doc, p.columns, state["rows"], run_info)
    res.traces = dict(sorted(state["traces"].items()))
    return res


def _run_pool(p, n, take, state, task):
    ctx = multiprocessing.get_context("spawn")  # no forked copy of a threaded parent
    failed = []
    with cf.ProcessPoolExecutor(n, mp_context=ctx) as pool:
        futs = {pool.submit(task, p.model_text, p.study_doc, s, v): (s, v) for s, v in p.chunks}
        for f in cf.as_completed(futs):
            try:
                take(f.result())
            except Exception as e:  # a dead process breaks the pool: retried below
                failed.append((futs[f], e))
    for (start, vals), err in sorted(failed, key=lambda x: x[0][0]):
        state["retried"].append({"first_sample": start, "reason": repr(err), "by": "vart"})
        try:
            take(task(p.model_text, p.study_doc, start, vals))
        except Exception as e2:
            state["failed"].append({"first_sample": start, "reason": repr(e2), "by": "vart"})


def _run_dask(p, client, upload, take, state, task):
    from distributed import as_completed
    if upload:  # to the workers only (Client.upload_file also loads it into the scheduler)
        from distributed.diagnostics.plugin import UploadFile
        with tempfile.TemporaryDirectory() as tmp:
            client.register_plugin(UploadFile(core_archive(tmp)), name="vart-core")
    starts = [s for s, _ in p.chunks]
    since = time.time()  # the scheduler's events are stamped with its clock (same host or not:
    # only events of this run's keys are read, so a skew only matters for reused keys)
    futs = client.map(task, [p.model_text] * len(starts), [p.study_doc] * len(starts), starts,
                      [v for _, v in p.chunks], pure=False)
    chunk_of = {f.key: c for f, c in zip(futs, p.chunks)}
    tried: set = set()
    gave_up: set = set()  # keys the scheduler failed with KilledWorker (its last death no re-run)
    ac = as_completed(futs)
    del futs
    try:
        for f in ac:
            start, vals = chunk_of[f.key]
            if f.status == "finished":
                take(f.result())
                f.release()  # nothing to recompute if its worker dies later
                continue
            err = f.exception()
            if type(err).__name__ == "KilledWorker":
                gave_up.add(f.key)
            reason = repr(err)
            if start in tried:
                state["failed"].append({"first_sample": start, "reason": reason, "by": "vart"})
                continue
            tried.add(start)
            state["retried"].append({"first_sample": start, "reason": reason, "by": "vart"})
            again = client.submit(task, p.model_text, p.study_doc, start, vals, pure=False)
            chunk_of[again.key] = (start, vals)
            ac.add(again)
        state["retried"] += _dask_reruns(client.get_events("all"), chunk_of, gave_up, since)
    finally:
        client.cancel(list(ac.futures) if hasattr(ac, "futures") else [])


def _dask_reruns(events, chunk_of: dict, gave_up: set, since: float = 0.0) -> list[dict]:
    """The scheduler's own re-runs of this run's tasks, one entry per chunk, from its
    ``remove-worker`` events (``(time, message)``, the scheduler's ``"all"`` topic): each lists
    the tasks that were running or waiting on the worker (``processing-tasks``), which the
    scheduler runs again unless it gives up on them (``gave_up``: the task's last removal
    then led to KilledWorker, which vart's own retry reports), and finished tasks whose
    result was lost with it (``lost-computed-tasks``: recomputed while still wanted)."""
    runs: dict = {}
    for stamp, msg in events:
        if stamp < since or not isinstance(msg, dict) or msg.get("action") != "remove-worker":
            continue
        how = "left" if msg.get("expected") else "died"
        for field in ("processing-tasks", "lost-computed-tasks"):
            for key in msg.get(field, ()):
                if key in chunk_of:
                    runs.setdefault(key, []).append((msg.get("worker", "?"), how))
    out = []
    for key, lost in runs.items():
        n = len(lost) - (key in gave_up)
        if n > 0:
            workers = ", ".join(f"{w} {how}" for w, how in lost[:n])
            out.append({"first_sample": chunk_of[key][0], "by": "dask",
                        "reason": f"Dask's scheduler ran it again {n} time(s): its worker "
                                  f"({workers}) held it"})
    return sorted(out, key=lambda r: r["first_sample"])
