"""The study the sidebar sets up (``scene.vart.study``, :class:`vart_addon.properties.VART_PG_study`)
as a study document (:mod:`vart_addon.analysis.study`), and back: :func:`study_doc` and
:func:`set_study` (what *Add Example* uses to ship a study with its scene)."""
from __future__ import annotations


def _typed(x) -> float:
    """A single-precision property's value as typed (7 significant digits: -0.6, not
    -0.6000000238418579)."""
    return float(f"{float(x):.7g}")


_KINDS = {"GRID": "grid", "UNIFORM": "uniform", "NORMAL": "normal", "TRUNCNORMAL": "truncnormal"}


def study_doc(scene, name: str = "study") -> dict:
    """The study document of ``scene``'s study settings (checked later, with the model:
    :func:`vart_addon.analysis.plan`); values rounded to the 7 digits a property holds."""
    st = scene.vart.study
    kind = _KINDS[st.sampling]
    a, b = _typed(st.start), _typed(st.stop)
    params: dict
    if kind == "grid":
        params = {"start": a, "stop": b, "count": int(st.samples)}
    elif kind == "uniform":
        params = {"low": a, "high": b}
    elif kind == "normal":
        params = {"mean": _typed(st.mean), "std": _typed(st.std)}
    else:
        params = {"mean": _typed(st.mean), "std": _typed(st.std), "low": a, "high": b}
    doc = {"format": "vart-study", "version": 1, "name": name,
           "variables": [{"joint": st.joint, "dof": int(st.dof), kind: params}],
           "contacts": [{"joint": c.name, "when": "at_limit" if c.at_limit else "always"}
                        for c in st.contacts],
           "chunk": int(st.chunk), "trace": bool(st.trace)}
    if kind != "grid":
        doc["samples"], doc["seed"] = int(st.samples), int(st.seed)
    return doc


def set_study(scene, joint: str, *, start: float = 0.0, stop: float = 0.1, samples: int = 41,
              sampling: str = "GRID", mean: float = 0.0, std: float = 0.01, seed: int = 0,
              contacts=(), dof: int = 0, chunk: int = 8, first_frame: int = 1) -> None:
    """Set ``scene``'s study settings: ``joint`` (value ``dof``) sampled by ``sampling``
    (GRID, UNIFORM, NORMAL, TRUNCNORMAL) with ``start``/``stop`` (range or bounds),
    ``mean``/``std``, ``samples``, ``seed``; ``contacts``: ``(joint, at_limit)`` pairs."""
    st = scene.vart.study
    st.joint, st.dof, st.sampling = joint, dof, sampling
    st.start, st.stop, st.mean, st.std = start, stop, mean, std
    st.samples, st.seed, st.chunk, st.first_frame = samples, seed, chunk, first_frame
    st.contacts.clear()
    for name, at_limit in contacts:
        c = st.contacts.add()
        c.name, c.at_limit = name, bool(at_limit)
