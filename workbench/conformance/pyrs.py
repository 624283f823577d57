"""Python against Rust: per parser name, whether vLLM's Python registry and vllm-rs have it
(per version), and per case whether the two frontends agree on the same version, API and
grouping (the same verdict and the same answer)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def names(versions: Sequence[str]) -> list[dict]:
    """One row per (kind, name) registered in a version's Python parsers or its vllm-rs:
    ``{"kind", "name", "python": [versions], "rust": [versions]}``; vllm-rs only from 0.33."""
    from workbench.lanes import names as py_names
    from workbench.conformance import runs, rust_names

    rows: dict[tuple[str, str], dict] = {}
    for v in versions:
        declared = py_names.declared(None if _installed(v) else v)
        for kind in ("tool", "reasoning"):
            for name in declared.get(kind, {}):
                rows.setdefault((kind, name), {"kind": kind, "name": name, "python": [], "rust": []})["python"].append(v)
        if runs.has_rust(v):
            for kind, found in rust_names.names(v).items():
                for name in found:
                    rows.setdefault((kind, name), {"kind": kind, "name": name, "python": [], "rust": []})["rust"].append(v)
    return [rows[k] for k in sorted(rows)]


def _installed(version: str) -> bool:
    from workbench.lanes import versions

    return versions.is_installed(version)


def agreement(cells: Sequence[Mapping]) -> list[dict]:
    """Per (case, version, API, grouping) run on both frontends: both verdicts and whether the
    answers agree (n/a on the Rust side is said as such)."""
    by: dict[tuple, dict] = {}
    for c in cells:
        by.setdefault((c["case"], c["vllm"], c["api"], c["grouping"]), {})[c["frontend"]] = c
    out = []
    for (case, vllm, api, grouping), sides in by.items():
        py, rs = sides.get("python"), sides.get("rust")
        if py is None or rs is None:
            continue
        if rs["verdict"] == "n/a" or py["verdict"] == "n/a":
            agree = "n/a"
        else:
            agree = "yes" if py["verdict"] == rs["verdict"] and py.get("got") == rs.get("got") else "no"
        out.append({"case": case, "parser": py.get("parser"), "vllm": vllm, "api": api, "grouping": grouping,
                    "python": py["verdict"], "rust": rs["verdict"], "agree": agree,
                    "detail": rs.get("detail") if agree != "yes" else None})
    return out
