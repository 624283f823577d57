"""`workbench parsers`: every registered tool and reasoning parser name."""

from __future__ import annotations

import json

from workbench.lanes.cli import add_option as add_vllm_option


def add_parser(sub) -> None:
    p = sub.add_parser("parsers", help="list vLLM's registered tool and reasoning parsers")
    p.add_argument("--json", action="store_true")
    add_vllm_option(p)
    p.set_defaults(run=run)


def parser_table() -> list[dict]:
    from vllm.parser.engine.adapters import ParserEngineReasoningAdapter, ParserEngineToolAdapter
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    out = []
    for kind, manager, getter, engine_base in (
        ("tool", ToolParserManager, ToolParserManager.get_tool_parser, ParserEngineToolAdapter),
        ("reasoning", ReasoningParserManager, ReasoningParserManager.get_reasoning_parser,
         ParserEngineReasoningAdapter),
    ):
        for name in manager.list_registered():
            entry = {"kind": kind, "name": name}
            try:
                cls = getter(name)
                entry["class"] = f"{cls.__module__}.{cls.__qualname__}"
                entry["engine_based"] = issubclass(cls, engine_base)
            except Exception as e:  # a registered module that fails to import
                entry["class"] = None
                entry["engine_based"] = None
                entry["error"] = f"{type(e).__name__}: {e}"
            out.append(entry)
    return out


def run(args) -> int:
    entries = parser_table()
    if args.json:
        print(json.dumps(entries))
        return 0
    from rich.table import Table

    from workbench.cli.render import console

    t = Table(header_style="bold")
    for col in ("kind", "name", "style", "class"):
        t.add_column(col)
    for e in entries:
        style = "engine" if e["engine_based"] else "legacy" if e["engine_based"] is False else "error"
        t.add_row(e["kind"], e["name"], style, e.get("class") or e.get("error", ""))
    console().print(t)
    return 0
