"""The corpus report in a terminal: findings by kind with their counts per version, fixed
in / new in, the smallest shrunk examples, then the errors."""

from __future__ import annotations

from workbench.corpus.summary import Summary


def print_report(s: Summary, head: str) -> None:
    from rich.markup import escape
    from rich.table import Table

    from workbench.cli.render import console

    con = console()
    con.print(escape(head))
    if s.kinds:
        t = Table(header_style="bold", title="findings by kind (recordings)")
        for col in ["finding", *s.versions, "fixed in", "new in"]:
            t.add_column(col, overflow="fold", justify="right" if col in s.versions else "left")
        for k in s.kinds:
            t.add_row(escape(k.name), *[str(k.recordings.get(v, 0)) for v in s.versions],
                      ", ".join(f"{v} ({n})" for v, n in k.fixed_in.items()),
                      ", ".join(f"{v} ({n})" for v, n in k.new_in.items()),
                      style=None if k.severe else "dim")
        con.print(t)
        con.print("smallest examples:")
        for k in s.kinds:
            con.print(f"  {escape(k.name)}")
            for x in k.examples:
                size = f"{x['tokens']} tokens" if x["tokens"] is not None else ""
                text = f" {x['text']!r}" if x["shrunk"] else ""
                how = f" · {x['grouping']}" if x.get("grouping") else ""
                step = f" · step {x['first_step']}" if x.get("first_step") else ""
                con.print(f"    {escape(x['path'])}: {escape(size + text + how + step)}", soft_wrap=True)
    elif s.ran:
        con.print("no findings" if s.mode == "check" else "no differences: both sides agree on every recording")
    if s.first_steps:
        steps = sorted(s.first_steps.elements())
        con.print(f"first divergent step: median {steps[len(steps) // 2]}, range {steps[0]}-{steps[-1]} "
                  f"({len(steps)} findings)")
    for x in s.errors:
        con.print(f"[red]error[/red] ({x['kind']}, {x['count']} recording(s), e.g. {escape(x['paths'][0])}): "
                  f"{escape(x['error'])}", soft_wrap=True)
