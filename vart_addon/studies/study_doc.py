"""The study the sidebar sets up (``scene.vart.study``, :class:`vart_addon.properties.VART_PG_study`)
as a study document (:mod:`vart_addon.analysis.study`): :func:`study_doc`. The other way,
:func:`vart_addon.properties.set_study` (what *Add Example* uses to ship a study)."""
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
