"""`workbench export-config`: vLLM's engine parser families as parsers/*.toml files."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.cli import common, options
from workbench.core.writing import terminal
from workbench.core.writing.terminal import say
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    import argparse


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("export-config", help="write a vLLM engine parser family as a TOML config")
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="family (qwen3, glm47_moe, ...) or a registered parser name (glm47, qwen3_coder)")
    p.add_argument("-o", "--output", metavar="F", help="write to this file (default: stdout)")
    p.add_argument("--all", metavar="DIR", help="write every family to DIR/<family>.toml")
    p.add_argument("--list", action="store_true", help="list the families and exit")
    p.add_argument("--flat", action="store_true", help="write every field, never `extends`")
    p.add_argument("--force", action="store_true", help="overwrite an existing -o file or --all DIR's files")
    p.add_argument("--tokenizer", metavar="NAME|PATH", default="qwen3",
                   help="tokenizer the family classes are built with (default qwen3)")
    p.add_argument("--chat-template-kwargs", metavar="JSON", type=options.json_object_arg,
                   help="as the request would pass them (e.g. '{\"enable_thinking\": false}')")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from workbench.core.config import export as config_export

    if args.list:
        for name, cls in config_export.families().items():
            say("{}\t{}.{}", name, cls.__module__, cls.__qualname__)
        for name, why in config_export.skipped_modules().items():
            say("# skipped vllm.parser.{}: {}", name, why, err=True)
        return 0
    if bool(args.name) == bool(args.all):
        raise WorkbenchError("give a family NAME or --all DIR")
    from workbench.core.tokenizers import load_tokenizer

    common.refuse_existing(args.output, args.force)

    tokenizer = load_tokenizer(args.tokenizer)
    if args.all:
        if args.output or args.flat:
            raise WorkbenchError("--all writes one file per family; -o and --flat do not apply")
        for path in config_export.export_all(args.all, tokenizer, args.chat_template_kwargs, args.force):
            say("{}", path)
        return 0
    text = config_export.export(args.name, tokenizer, flat=args.flat,
                                chat_template_kwargs=args.chat_template_kwargs)
    if args.output:
        common.write_output(args.output, text, args.force)
        say("{}", args.output)
    else:
        terminal.document(text)
    return 0
