"""``workbench.matrix(...)`` in a notebook: the `workbench matrix` command with a progress bar
in the cell, the summary drawn (one button per cell, coloured by verdict: a click opens that
cell's stream in a Workbench, through ``workbench.show``), and a DataFrame returned.

    df = workbench.matrix("parsers/cases/hermes", vllm="0.32.0,0.34.0", api="chat,responses",
                          chunking="whole,token,markers")

Keyword arguments are the command's options (``chunking=`` is ``--chunking``, comma-separated
lists as strings or lists). Bad input raises one line, as the command prints it.
"""

from __future__ import annotations

from workbench.errors import WorkbenchError


class MatrixError(WorkbenchError):
    """Jupyter shows its one line instead of a traceback."""

    def _render_traceback_(self) -> list[str]:
        return [f"workbench.conformance: {self}"]


OWN = {"vllm": None, "frontend": "python", "api": "chat", "chunking": "token", "config": None, "plugin": (),
       "workers": None, "ray": None, "dynamo_parser": None, "dynamo_tokenizer": None, "recordings": None,
       "show": True}
FRAME_COLUMNS = ("case", "parser", "vllm", "frontend", "api", "grouping", "verdict", "field", "step", "detail",
                 "replay")


def _list(value) -> list[str]:
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else list(value)
    return [str(v).strip() for v in items if str(v).strip()]


def cells(*cases, **options) -> list[dict]:
    """The cells of the run ``options`` ask for (no drawing)."""
    from workbench.lanes import versions
    from workbench.conformance import run as run_mod, sources

    unknown = sorted(set(options) - set(OWN))
    if unknown:
        raise MatrixError(f"unknown option(s) {', '.join(unknown)} (the flags of `workbench matrix --help`, "
                          f"as keyword names: chunking=...)")
    o = OWN | {k: v for k, v in options.items() if v is not None}
    found = sources.load([str(c) for c in cases], parser=o["dynamo_parser"], tokenizer=o["dynamo_tokenizer"])
    opt = run_mod.Options(versions=versions.parse_list(",".join(_list(o["vllm"]))) if o["vllm"] else [],
                          frontends=_list(o["frontend"]), apis=_list(o["api"]), groupings=_list(o["chunking"]),
                          config=o["config"], plugins=_list(o["plugin"]), recordings=o["recordings"],
                          workers=o["workers"], ray=o["ray"], draw=o.get("draw"))
    return run_mod.run(found, opt).cells


def frame(cells_: list[dict]):
    import pandas as pd

    return pd.DataFrame([{k: c.get(k) for k in FRAME_COLUMNS} for c in cells_], columns=list(FRAME_COLUMNS))


def matrix(*cases, **options):
    import tempfile

    show = options.pop("show", True)
    if show and options.get("recordings") is None:  # each case as a recording, for the Workbench a click opens
        options["recordings"] = tempfile.mkdtemp(prefix="wb-matrix-")
    try:
        got = cells(*cases, **options)
    except MatrixError:
        raise
    except WorkbenchError as e:
        raise MatrixError(str(e)) from None
    if show:
        from IPython.display import display

        display(grid(got))
    return frame(got)


def grid(cells_: list[dict]):
    """The summary as widgets: a row per case, a button per cell (its verdict's colour); a
    click opens the cell's stream in a Workbench below (Python parsers: the widget runs
    vLLM's own; a Rust cell opens its Python counterpart, with a note)."""
    import ipywidgets as W

    from workbench.conformance import cells as cells_mod, html

    out = W.Output()
    note = W.HTML()
    by_case: dict[str, list[dict]] = {}
    for c in cells_:
        by_case.setdefault(c["case"], []).append(c)

    def opener(c: dict):
        def click(_button) -> None:
            from workbench.ui import show

            note.value = f"<code>{_text(c['replay'])}</code>" + (
                " (the widget runs vLLM's Python parsers: this is the Python side of a Rust cell)"
                if c["frontend"] == "rust" else "")
            out.clear_output()
            with out:
                kwargs = {"chunking": c["chunking"] or "token", "api": c["api"]}
                if c["vllm"] != _installed():
                    kwargs["vllm"] = c["vllm"]
                if c.get("recording"):
                    show(recording=c["recording"], **kwargs)
        return click

    rows = []
    for case, cs in by_case.items():
        buttons = []
        for c in cs:
            b = W.Button(description=c["verdict"], tooltip=f"{cells_mod.name_of(c)}: {c.get('detail') or ''}",
                         layout=W.Layout(width="150px"))
            b.style.button_color = html.COLOURS.get(c["verdict"], "#fff")
            b.on_click(opener(c))
            buttons.append(b)
        rows.append(W.HBox([W.HTML(f"<b>{_text(case)}</b>", layout=W.Layout(width="220px")), *buttons]))
    head = cs[0] if cells_ else None
    columns = " · ".join(f"{c['vllm']}/{c['frontend']}/{c['api']}/{c['grouping']}" for c in by_case.get(
        head["case"], [])) if head else ""
    summary = W.HTML(html.summary_table(cells_) + f"<p>buttons per case: {_text(columns)}</p>")
    return W.VBox([summary, *rows, note, out])


def _installed() -> str:
    from workbench.lanes import versions

    return versions.installed()


def _text(value: object) -> str:
    from workbench.core.writing import html as web

    return web.text(value)
