"""A/B mode: two parser specs on one stream, side by side (``core.diff`` does the work):
the same front-end table twice, the steps that differ marked on both sides."""

from __future__ import annotations

import html

import ipywidgets as W

from workbench.ui.final import as_json
from workbench.ui.table import DELTA_LEGEND, DeltaTable, TokenText

# tinted like the table's rows, so Light and Dark both stay readable
DIFFERS_CSS = "background:color-mix(in srgb, var(--jp-warn-color1, #f57c00) 22%, var(--jp-layout-color0, #fff))"
AB_LEGEND = [k for k in DELTA_LEGEND if k[0] != "changed"] + [["changed", "differs from the other side", "changed"]]


def final_html(res) -> str:
    rows = []
    for mode, diffs in res.final.items():
        for d in diffs:
            mark = "" if d.same else f" style='{DIFFERS_CSS}'"
            rows.append(f"<tr{mark}><td>{mode}</td><td>{d.field}</td><td>{html.escape(as_json(d.a))}</td>"
                        f"<td>{html.escape(as_json(d.b))}</td></tr>")
    head = (f"<tr><th>answer</th><th>field</th><th>A: {html.escape(res.label_a)}</th>"
            f"<th>B: {html.escape(res.label_b)}</th></tr>")
    return f"<table class='wb-table' style='font:12px monospace'>{head}{''.join(rows)}</table>"


def summary_html(res) -> str:
    if res.same:
        return "<b>A and B agree on every step and on both final answers.</b>"
    parts = []
    if res.first_step is not None:
        parts.append(f"first step whose client-visible output differs: <b>{res.first_step}</b>")
    if res.first_machine_step is not None:
        parts.append(f"first step whose state machine differs: <b>{res.first_machine_step}</b>")
    n = sum(1 for s in res.steps if not s.same)
    parts.append(f"{n} of {len(res.steps)} steps differ (marked)")
    return " · ".join(parts)


def label(text: str, spec) -> str:
    """What a spec is called in the A/B panel: "hermes+qwen3", "+qwen3", "hermes",
    "parsers/qwen3.toml" (as typed, relative to the repository) or "editor config"."""
    if text == "editor":
        return "editor config"
    if spec.config:
        from pathlib import Path

        from workbench.ui.inputs import REPO

        p = Path(spec.config)
        return str(p.relative_to(REPO)) if p.is_relative_to(REPO) else str(p)
    names = (spec.tool_parser or "", spec.reasoning_parser or "")
    return "+".join(names) if names[1] else names[0] or "no parser"


class ABPanel(W.VBox):
    def __init__(self, spec_a: str = "", spec_b: str = "") -> None:
        ph = "hermes+qwen3 · +qwen3@0.33.0 · parsers/qwen3.toml · editor"
        self.spec_a = W.Text(value=spec_a, description="A", placeholder=ph)
        self.spec_b = W.Text(value=spec_b, description="B", placeholder=ph)
        self.compare_button = W.Button(description="Compare", icon="columns", button_style="primary")
        self.summary = W.HTML("<i>two parser specs, the current stream: Compare</i>")
        self.final = W.HTML("")
        self.label_a, self.label_b = W.HTML(""), W.HTML("")
        self.left = self.right = None  # the two tables, made at the first Compare
        self.sides = W.HBox([], layout=W.Layout(width="100%"))
        self.result = None
        super().__init__([W.HBox([self.spec_a, self.spec_b, self.compare_button]), self.summary,
                          self.final, self.sides])
        self.add_class("wb-ab")

    def _tables(self) -> None:
        side = dict(height=260, features=("strip",), legend=AB_LEGEND,
                    layout=W.Layout(flex="1 1 0", min_width="0"))
        self.left, self.right = DeltaTable(**side), DeltaTable(**side)
        # a step picked on one side is picked on the other too
        self.left.on_select(lambda step: self._pick(self.right, step))
        self.right.on_select(lambda step: self._pick(self.left, step))
        self.sides.children = [W.VBox([label, table], layout=W.Layout(flex="1 1 0", min_width="0"))
                               for label, table in ((self.label_a, self.left), (self.label_b, self.right))]

    @staticmethod
    def _pick(table: DeltaTable, step: int | None) -> None:
        if (step or 0) != table.selected:
            table.select(step)

    def show(self, res, tokenizer=None) -> None:
        """``tokenizer``: the stream's, so both sides show each token's text."""
        self.result = res
        differing = {s.step for s in res.steps if not s.same}
        if self.left is None:
            self._tables()
        with self.hold_sync():
            self.summary.value = summary_html(res)
            self.final.value = final_html(res)
            self.label_a.value = f"<b>A: {html.escape(res.label_a)}</b>"
            self.label_b.value = f"<b>B: {html.escape(res.label_b)}</b>"
            for table, result in ((self.left, res.a), (self.right, res.b)):
                if tokenizer is not None and getattr(table.decode, "tokenizer", None) is not tokenizer:
                    table.decode = TokenText(tokenizer)
                table.set_rows(result.rows, differing)
            first = res.first_step or res.first_machine_step
            self.left.select(first)
            self.right.select(first)


class ABActions:
    """The Workbench's A/B method (mixed into ``Workbench``)."""

    def _init_ab(self) -> ABPanel:
        i = self.model.inputs
        self.ab = ABPanel(spec_a=i.config or label("", i.parser()))
        self.ab.compare_button.on_click(self._guard(lambda _: self.compare(), "Compare"))
        return self.ab

    def _editor_file(self) -> str:
        """The editor's active config as a file, for specs that need one ("editor")."""
        import tempfile
        from pathlib import Path

        from workbench.errors import WorkbenchError

        text = self.model.inputs.config_text
        if text is None:
            raise WorkbenchError('A/B: "editor" needs a reloaded editor config first')
        folder = Path(tempfile.mkdtemp(prefix="workbench-ab-"))
        path = folder / "editor.toml"
        path.write_text(text, encoding="utf-8")
        return str(path)

    def compare(self, a: str | None = None, b: str | None = None):
        """Both specs over the current stream; returns ``core.diff.DiffResult``.

        A spec is ``tool+reasoning`` names, a ``.toml`` path, or ``editor`` (the
        editor's active config)."""
        from workbench.core import diff
        from workbench.core.parsers import ParserSpec
        from workbench.errors import WorkbenchError
        from workbench.ui.inputs import resolve

        self.banner.clear()
        if a is not None:
            self.ab.spec_a.value = a
        if b is not None:
            self.ab.spec_b.value = b
        from workbench.lanes.diff import split_version

        specs, labels, versions = [], [], []
        for text in (self.ab.spec_a.value.strip(), self.ab.spec_b.value.strip()):
            if not text:
                raise WorkbenchError("A/B: give two parser specs, e.g. hermes+qwen3 and parsers/qwen3.toml")
            text, version = split_version(text)  # hermes+qwen3@0.33.0: that vLLM's lane
            versions.append(version)
            if text == "editor":
                spec = ParserSpec(config=self._editor_file())
            else:
                spec = ParserSpec.parse(text)
                spec = ParserSpec(config=resolve(spec.config)) if spec.config else spec
            specs.append(spec)
            labels.append(label(text, spec))
        if self.model.session is None:
            self.load()
        deltas = self.model.stream_deltas()
        self._status(f"A/B: {labels[0]} vs {labels[1]} on {len(deltas)} deltas…")
        if any(versions):
            from workbench.lanes import diff as lane_diff

            res = lane_diff.run(self.model.inputs.setup(), (specs[0], versions[0]), (specs[1], versions[1]),
                                deltas=deltas, prompt_token_ids=self.model.session.prompt_ids)
        else:
            res = diff.run(self.model.inputs.setup(), specs[0], specs[1], deltas=deltas,
                           prompt_token_ids=self.model.session.prompt_ids)
        res.label_a, res.label_b = [f"{lb}@{v}" if v else lb for lb, v in zip(labels, versions)]
        self.ab.show(res, self.model.session.tokenizer)
        self._status("A/B: " + ("A and B agree" if res.same else
                                f"first differing step {res.first_step or res.first_machine_step}"))
        return res
