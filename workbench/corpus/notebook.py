"""``workbench.corpus(...)`` in a notebook: the `workbench corpus` command with a progress
bar in the cell, then the same report as the html page, and a DataFrame returned.

    df = workbench.corpus("captures/", tool_parser="hermes", reasoning_parser="qwen3", fuzz=5)
    df = workbench.corpus("captures/", vllm="0.32.0,0.33.0", output="results.jsonl", resume=True)
    df = workbench.corpus("captures/", diff=True, a="hermes+qwen3", b="parsers/mine.toml")

Keyword arguments are the command's options (``tool_parser=`` is ``--tool-parser``).
Bad input raises one line, as the command prints it.
"""

from __future__ import annotations

import json

from workbench.errors import WorkbenchError


class CorpusError(WorkbenchError):
    """Jupyter shows its one line instead of a traceback."""

    def _render_traceback_(self) -> list[str]:
        return [f"workbench.corpus: {self}"]


def argv(paths, options: dict) -> list[str]:
    out = ["corpus", *map(str, paths)]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                out += [flag, str(v)]
        else:
            out += [flag, json.dumps(value) if isinstance(value, dict) else str(value)]
    return out


def _args(paths, options: dict):
    import contextlib
    import io

    from workbench.cli import build_parser

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return build_parser().parse_args(argv(paths, options))
    except SystemExit:
        msg = (err.getvalue().strip().splitlines() or ["bad options"])[-1]
        raise CorpusError(msg.split(": error: ", 1)[-1].replace(" (see workbench --help)", "")) from None


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

    from workbench.cli import common
    from workbench.cli.corpus_cmd import build_spec
    from workbench.corpus import html as html_mod, run as run_mod, summary

    try:
        args = _args(paths, options)
        if args.synth is not None:
            raise CorpusError("--synth is for the command line: workbench corpus --synth N -o DIR")
        if args.html:
            common.refuse_existing(args.html, args.force or args.resume)
        spec = build_spec(args)
        out = run_mod.run(spec, args.paths, run_mod.Options(args.output, args.resume, args.force, args.workers,
                                                              args.ray, _Bar()))
        s = summary.summarise(out.lines)
        title = "workbench corpus: " + spec.label()
        if args.html:
            common.write_output(args.html, html_mod.page(s, out.lines, title), force=args.force or args.resume)
    except CorpusError:
        raise
    except WorkbenchError as e:
        raise CorpusError(str(e)) from None
    display(HTML(html_mod.fragment(s, out.lines, title)))
    return frame(out.lines)
