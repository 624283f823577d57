"""The check panel: findings (stream vs non-stream, chunking fuzz, contract), the
shrunk minimal grouping shown in the table, and the pytest export (``workbench.check``)."""

from __future__ import annotations

import html
from dataclasses import replace

import ipywidgets as W


def findings_html(report) -> str:
    if not report.findings:
        return (f"<b>consistent</b>: no findings over {report.checked.get('groupings', 0)} groupings "
                f"of {report.checked.get('tokens', '?')} tokens")
    items = []
    for f in report.findings:
        mark = "~" if f.cosmetic else "!" if f.severity == "warning" else "✗"
        extra = ""
        if "minimal_grouping" in f.extra:
            extra += (f"<br>minimal grouping <code>{html.escape(f.extra['minimal_grouping'])}</code> "
                      f"(shrunk from {html.escape(f.extra['shrunk_from'])})")
        if "minimal_text" in f.extra:
            m = f.extra["minimal_text"]
            extra += (f"<br>minimal text ({m['tokens']} of {m['of_tokens']} tokens): "
                      f"<code>{html.escape(repr(m['text']))}</code>")
        items.append(f"<li>{mark} {html.escape(f.headline())}{extra}</li>")
    verdict = "consistent (cosmetic only)" if report.consistent else "INCONSISTENT"
    return f"<b>{verdict}</b>: {len(report.findings)} finding(s)<ul>{''.join(items)}</ul>"


class CheckPanel(W.VBox):
    def __init__(self) -> None:
        self.fuzz = W.BoundedIntText(value=100, min=0, max=10_000, description="fuzz",
                                     layout=W.Layout(width="180px"))
        self.check_button = W.Button(description="Check", icon="search", button_style="primary")
        self.grouping_button = W.Button(description="show minimal grouping", disabled=True,
                                        layout=W.Layout(width="auto"))
        self.export_path = W.Text(value="test_parser_case.py", description="export to")
        self.export_button = W.Button(description="Export pytest", icon="download")
        self.findings = W.HTML("<i>Check runs stream vs non-stream, chunking fuzz and the client "
                               "contract on the current stream, and shrinks what fails</i>")
        self.exported = W.HTML("")
        self.report = None
        self.checked: list[int] = []  # which deltas the report is about
        super().__init__([W.HBox([self.fuzz, self.check_button, self.grouping_button]), self.findings,
                          W.HBox([self.export_path, self.export_button]), self.exported])

    def minimal_grouping(self) -> str | None:
        """The first finding's grouping, as the ``--chunking`` name `workbench replay` takes."""
        for f in (self.report.findings if self.report else []):
            if "minimal_grouping" in f.extra:
                return f.extra["minimal_grouping"]
        return None

    def show(self, report) -> None:
        self.report = report
        with self.hold_sync():
            self.findings.value = findings_html(report)
            label = self.minimal_grouping()
            self.grouping_button.disabled = label is None
            self.grouping_button.description = (f"show minimal grouping {label}" if label
                                                else "show minimal grouping")


class CheckActions:
    """The Workbench's check, shrink and export methods (mixed into ``Workbench``)."""

    def _init_check(self) -> CheckPanel:
        self.checks = CheckPanel()
        self.checks.check_button.on_click(self._guard(lambda _: self.check(), "Check"))
        self.checks.grouping_button.on_click(self._guard(lambda _: self.show_grouping(), "grouping"))
        self.checks.export_button.on_click(self._guard(lambda _: self.export(), "Export"))
        return self.checks

    def _check_input(self):
        if self.model.session is None:
            self.load()
        else:
            self._apply_inputs()
        return self.model.ensure_session(), self.model.stream_deltas()

    def check(self, fuzz: int | None = None, jobs: int = 1, shrink_budget_s: float = 5.0,
              text_budget_s: float = 5.0):
        """``workbench.check.check`` on the current stream; returns its Report."""
        from workbench.check import Options, check

        if fuzz is not None:
            self.checks.fuzz.value = fuzz
        session, deltas = self._check_input()
        self._status(f"checking {len(deltas)} deltas: {self.checks.fuzz.value} random groupings, "
                     "shrinking what fails…")
        report = check(session, deltas, Options(fuzz=self.checks.fuzz.value, jobs=jobs, cost=False,
                                                shrink_budget_s=shrink_budget_s,
                                                text_budget_s=text_budget_s))
        self.checks.show(report)
        self.checks.checked = [id(d) for d in deltas]
        if self.model.final is not None:
            self.model.final = replace(self.model.final, findings=report.findings)
            self._show_finals()  # the findings join the final tab, every API's finals stay
        severe = sum(f.severe for f in report.findings)
        self._status(f"check: {severe} finding(s), {len(report.findings) - severe} warning(s) or cosmetic")
        return report

    def show_grouping(self, label: str | None = None):
        """Replay the stream grouped as ``label`` (a ``--chunking`` name; default: the shrunk
        minimal grouping), the same string `workbench replay --chunking` takes."""
        from workbench.check import groupings as G
        from workbench.errors import WorkbenchError

        label = label or self.checks.minimal_grouping()
        if not label:
            raise WorkbenchError("no minimal grouping yet: run Check first")
        session, deltas = self._check_input()
        tokens = G.TokenStream.from_deltas(session, deltas)
        changed = self.model.replay(tokens.named(label))  # any --chunking name (core/chunking.py)
        self._sync()
        self._status(f"grouping {label}: {len(self.model.rows)} deltas, {len(changed)} rows differ "
                     "from the previous run (marked)")
        return self.model.rows

    def minimal_text(self) -> str | None:
        """The shortest text check found that still shows the first severe finding."""
        for f in (self.checks.report.findings if self.checks.report else []):
            if "minimal_text" in f.extra:
                return f.extra["minimal_text"]["text"]
        return None

    def replay_minimal(self):
        """Stream the shrunk minimal text (same request and parser) in this widget."""
        from workbench.errors import WorkbenchError

        text = self.minimal_text()
        if text is None:
            raise WorkbenchError("no minimal text yet: run Check first")
        self.model.inputs = replace(self.model.inputs, source="text", text=text, recording=None,
                                    prompt_token_ids=None)
        self.controls.write(self.model.inputs)
        self.model.reset()
        self.run()
        self._status(f"minimal text: {len(self.model.rows)} deltas; " + self._summary())
        return self.model.rows

    def minimal_workbench(self):
        """The shrunk minimal text streamed in a new widget of its own (same tokenizer,
        parser and request), so this widget keeps its stream."""
        from dataclasses import asdict

        from workbench.errors import WorkbenchError

        text = self.minimal_text()
        if text is None:
            raise WorkbenchError("no minimal text yet: run Check first")
        inputs = asdict(self.model.inputs) | {"source": "text", "recording": None,
                                               "prompt_token_ids": None}
        del inputs["text"]
        small = type(self)(text, **inputs)
        small.run()
        return small

    def export(self, path: str | None = None):
        """A standalone pytest file for this case (fails while the bug is there)."""
        from workbench.check import export as ex

        if path is not None:
            self.checks.export_path.value = path
        path = self.checks.export_path.value
        session, deltas = self._check_input()
        report = self.checks.report
        if report is None or self.checks.checked != [id(d) for d in deltas]:
            report = self.check(text_budget_s=0)  # the findings must be this stream's
        case = ex.build_case(session, deltas, report)
        written = ex.write_pytest(path, case)
        failures = ex.self_check(written)
        state = (f"it fails now ({len(failures)} test(s)), as it should while the bug is present"
                 if failures else "it passes now")
        self.checks.exported.value = (f"wrote <code>{html.escape(str(written))}</code> "
                                      f"({len(case['token_ids'])} tokens, {len(case['groupings'])} "
                                      f"groupings): {state}")
        self._status(f"exported {written}: {state}")
        return written
