"""The corpus report in a terminal: findings by kind with their counts per version, fixed
in / back in / new in, the smallest shrunk examples, then the errors (through the writing door:
a path, a kind or an error is a value, shown with its control characters escaped)."""

from __future__ import annotations

from workbench.corpus.summary import Summary


def print_report(s: Summary, head: str) -> None:
    from workbench.cli.render import console
    from workbench.core.writing import terminal

    con = console()
    con.print(head)
    if s.kinds:
        t = terminal.Table(header_style="bold", title="findings by kind (recordings)")
        back = any(k.back_in for k in s.kinds)  # its column only when a version brought one back
        for col in ["finding", *s.versions, "fixed in", *(["back in"] if back else []), "new in"]:
            t.add_column(col, overflow="fold", justify="right" if col in s.versions else "left")
        for k in s.kinds:
            counts = [k.fixed_in, *([k.back_in] if back else []), k.new_in]
            t.add_row(k.name, *[str(k.recordings.get(v, 0)) for v in s.versions],
                      *[", ".join(f"{v} ({n})" for v, n in c.items()) for c in counts],
                      style=None if k.severe else "dim")
        con.print(t)
        con.print("smallest examples:")
        for k in s.kinds:
            con.print(terminal.markup("  {}", k.name))
            for x in k.examples:
                size = f"{x['tokens']} tokens" if x["tokens"] is not None else ""
                text = f" {x['text']!r}" if x["shrunk"] else ""
                how = f" · {x['grouping']}" if x.get("grouping") else ""
                step = f" · step {x['first_step']}" if x.get("first_step") else ""
                con.print(terminal.markup("    {}: {}", x["path"], size + text + how + step), soft_wrap=True)
    elif s.ran:
        con.print("no findings" if s.mode == "check" else "no differences: both sides agree on every recording")
    if s.first_steps:
        steps = sorted(s.first_steps.elements())
        con.print(terminal.markup("first divergent step: median {}, range {}-{} ({} findings)",
                                  steps[len(steps) // 2], steps[0], steps[-1], len(steps)))
    for x in s.errors:
        con.print(terminal.markup("[red]error[/red] ({}, {} recording(s), e.g. {}): {}", x["kind"], x["count"],
                                  x["paths"][0], x["error"]), soft_wrap=True)
