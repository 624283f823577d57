"""``workbench.corpus(...)`` in a notebook: the `workbench corpus` command with a progress
bar in the cell, then the same report as the html page, and a DataFrame returned.

    df = workbench.corpus("captures/", tool_parser="hermes", reasoning_parser="qwen3", fuzz=5)
    df = workbench.corpus("captures/", vllm="0.32.0,0.33.0", output="results.jsonl", resume=True)
    df = workbench.corpus("captures/", diff=True, a="hermes+qwen3", b="parsers/mine.toml")

Keyword arguments are the command's options (``tool_parser=`` is ``--tool-parser``).
Bad input raises one line, as the command prints it.
"""

from __future__ import annotations

from workbench.errors import WorkbenchError


class CorpusError(WorkbenchError):
    """Jupyter shows its one line instead of a traceback."""

    def _render_traceback_(self) -> list[str]:
        return [f"workbench.corpus: {self}"]


# workbench.corpus's own keyword arguments (the run's are core/run_options.SPEC_OPTIONS, check's
# spec.CHECK_DEFAULTS): as the command's flags, by name
OWN = {"check": False, "diff": False, "a": None, "b": None, "api_b": None, "vllm": None, "output": None,
       "resume": False, "html": None, "workers": None, "ray": None, "strict": False, "force": False}


def _options(options: dict) -> dict:
    """Every option by name, defaults filled; an unknown name is one line."""
    from workbench.core.run_options import SPEC_OPTIONS
    from workbench.corpus.spec import CHECK_DEFAULTS

    unknown = sorted(set(options) - set(OWN) - set(CHECK_DEFAULTS) - SPEC_OPTIONS - {"recording", "text", "text_file",
                                                                                      "deltas"})
    if unknown:
        raise CorpusError(f"unknown option(s) {', '.join(unknown)} (they are the flags of `workbench corpus "
                          f"--help`, as keyword names: tool_parser=...)")
    if "synth" in options:
        raise CorpusError("--synth is for the command line: workbench corpus --synth N -o DIR")
    return OWN | {k: v for k, v in options.items() if v is not None}


class _Bar:
    def __init__(self) -> None:
        import ipywidgets as W
        from IPython.display import display

        self.bar = W.IntProgress(min=0, max=1, description="corpus", layout=W.Layout(width="40%"))
        self.label = W.Label()
        display(W.HBox([self.bar, self.label]))

    def __call__(self, p) -> None:
        self.bar.max = max(p.total, 1)
        self.bar.value = p.done
        self.label.value = p.text()


def frame(lines: list[dict]):
    """One row per recording: what ran, what it found (per version), where it first diverged."""
    import pandas as pd

    from workbench.corpus import html as html_mod

    rows = []
    for ln in lines:
        row = {"path": ln["path"], "parser": ln.get("parser"), "tokenizer": ln.get("tokenizer"),
               "origin": ln.get("origin"), "findings": ", ".join(html_mod.kinds_of(ln)),
               "first_step": html_mod.first_step(ln), "error": ln.get("error"), "seconds": ln.get("seconds")}
        for v, r in (ln.get("versions") or {}).items():
            row[f"findings {v}"] = len(r["findings"])
        rows.append(row)
    return pd.DataFrame(rows)


def corpus(*paths, **options):
    from IPython.display import HTML, display

    from workbench.core import outputs
    from workbench.corpus import html as html_mod, run as run_mod, spec as spec_mod, summary
    from workbench.lanes import versions

    try:
        o = _options(options)
        mode = "diff" if o["diff"] else "check"
        if mode == "diff" and not (o["a"] and o["b"]):
            raise CorpusError("diff=True needs a= and b=")
        if o["html"]:
            outputs.refuse_existing(o["html"], o["force"] or o["resume"])
        if o["output"] is None and o["resume"]:
            raise CorpusError("resume=True needs output=RESULTS.jsonl")
        spec = spec_mod.build(o, mode, versions.parse_list(o["vllm"]) if o["vllm"] else [])
        out = run_mod.run(spec, [str(p) for p in paths], run_mod.Options(o["output"], o["resume"], o["force"],
                                                                         o["workers"], o["ray"], _Bar()))
        s = summary.summarise(out.lines)
        title = "workbench corpus: " + spec.label()
        if o["html"]:
            outputs.write_text(o["html"], html_mod.page(s, out.lines, title), o["force"] or o["resume"])
    except CorpusError:
        raise
    except WorkbenchError as e:
        raise CorpusError(str(e)) from None
    display(HTML(html_mod.fragment(s, out.lines, title)))
    return frame(out.lines)
