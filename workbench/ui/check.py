"""The check tab: the findings of ``workbench.check`` on the stream (stream vs non-stream,
chunking fuzz, the client contract), the minimal grouping it shrank to as a button that
replays it, and the pytest export. Drawn from the state's check result."""

from __future__ import annotations

import html

import ipywidgets as W

from workbench.ui.state import State

INTRO = ("<i>Check runs stream vs non-stream, chunking fuzz and the client contract on the stream "
         "on screen, and shrinks what fails</i>")


def findings_html(report) -> str:
    """The report's findings under the one count line (``views.check_counts``)."""
    from workbench.ui.views import check_counts

    items = []
    for f in report.findings:
        mark = "≈" if f.cosmetic else "!" if f.severity == "warning" else "✗"
        extra = ""
        if "minimal_grouping" in f.extra:
            extra += (f"<br>minimal grouping <code>{html.escape(f.extra['minimal_grouping'])}</code> "
                      f"(shrunk from {html.escape(f.extra['shrunk_from'])})")
        if "minimal_text" in f.extra:
            m = f.extra["minimal_text"]
            extra += (f"<br>minimal text ({m['tokens']} of {m['of_tokens']} tokens): "
                      f"<code>{html.escape(repr(m['text']))}</code>")
        items.append(f"<li>{mark} {html.escape(f.headline())}{extra}</li>")
    checked = (f" over {report.checked.get('groupings', 0)} groupings of {report.checked.get('tokens', '?')} tokens"
               if not report.findings else "")
    return f"<b>{html.escape(check_counts(report))}</b>{checked}" + (f"<ul>{''.join(items)}</ul>" if items else "")


class CheckPanel(W.VBox):
    def __init__(self) -> None:
        self.fuzz = W.BoundedIntText(value=100, min=0, max=10_000, description="fuzz",
                                     layout=W.Layout(width="180px"))
        self.check_button = W.Button(description="Check", icon="search", button_style="primary")
        self.grouping_button = W.Button(description="show minimal grouping", disabled=True,
                                        layout=W.Layout(width="auto"))
        self.export_path = W.Text(value="test_parser_case.py", description="export to")
        self.export_button = W.Button(description="Export pytest", icon="download")
        self.findings = W.HTML(INTRO)
        self.exported = W.HTML("")
        self._drawn: tuple | None = None
        super().__init__([W.HBox([self.fuzz, self.check_button, self.grouping_button]), self.findings,
                          W.HBox([self.export_path, self.export_button]), self.exported])

    def render(self, s: State) -> None:
        key = (s.check, s.stream.id, s.fuzz)
        if key == self._drawn:
            return
        self._drawn = key
        from workbench.ui.tools import minimal_grouping

        with self.hold_sync():
            if self.fuzz.value != s.fuzz:
                self.fuzz.value = s.fuzz
            if s.check is None:
                self.findings.value = INTRO
            else:
                stale = "" if s.fresh(s.check) else ("<div><i>about an earlier stream (Check again for the rows on "
                                                     "screen)</i></div>")
                self.findings.value = stale + findings_html(s.check.value)
            label = minimal_grouping(s)
            self.grouping_button.disabled = label is None
            self.grouping_button.description = (f"show minimal grouping {label}" if label
                                                else "show minimal grouping")
