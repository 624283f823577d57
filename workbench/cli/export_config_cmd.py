"""`workbench export-config`: vLLM's engine parser families as parsers/*.toml files, and
(--python) a parser config as a vLLM plugin module that `vllm serve` loads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.cli import common, options
from workbench.cli.vllm_option import add_option as add_vllm_option
from workbench.core.writing import terminal
from workbench.core.writing.terminal import say
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    import argparse


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("export-config", help="write a vLLM engine parser family as a TOML config")
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="family (qwen3, glm47_moe, ...) or a registered parser name (glm47, qwen3_coder); "
                        "with --python, a parser config file (F.toml)")
    p.add_argument("--python", action="store_true",
                   help="write the config file NAME as a vLLM plugin module (-o my_parser.py) that registers "
                        "it, so `vllm serve --tool-parser-plugin my_parser.py --tool-call-parser N "
                        "--reasoning-parser N` runs the same parser")
    p.add_argument("--register-as", metavar="N", help="with --python: the parser name it registers (default: "
                                                     "the config's name)")
    p.add_argument("-o", "--output", metavar="F", help="write to this file (default: stdout)")
    p.add_argument("--all", metavar="DIR", help="write every family to DIR/<family>.toml")
    p.add_argument("--list", action="store_true", help="list the families and exit")
    p.add_argument("--flat", action="store_true", help="write every field, never `extends`")
    p.add_argument("--force", action="store_true", help="overwrite an existing -o file or --all DIR's files")
    p.add_argument("--tokenizer", metavar="NAME|PATH", default="qwen3",
                   help="tokenizer the family classes are built with (default qwen3)")
    p.add_argument("--chat-template-kwargs", metavar="JSON", type=options.json_object_arg,
                   help="as the request would pass them (e.g. '{\"enable_thinking\": false}')")
    options.add_code_options(p)
    add_vllm_option(p)  # the version whose families are written, in its own field spellings
    p.set_defaults(run=run)


def run_python(args: argparse.Namespace) -> int:
    """--python: the config file as a plugin module."""
    from pathlib import Path

    from workbench.core.writing.terminal import say
    from workbench.core import plugins, trust
    from workbench.core.config.export_python import authored_modules, plugin_source, roles, serve_flags

    if not args.name or args.all or args.list or args.flat:
        raise WorkbenchError("--python takes a config file NAME.toml (and -o), not --all, --list or --flat")
    if not args.output or not args.output.endswith(".py"):
        raise WorkbenchError("--python writes a plugin module: give -o NAME.py")
    common.refuse_existing(args.output, args.force)
    loaded = [plugins.load(p) for p in args.plugin]
    policy = trust.for_plugins(loaded, args.allow_callable)
    text = plugin_source(args.name, Path(args.output).name, policy, args.register_as)
    from workbench.export import authored as export_code
    from workbench.core import door, limits
    from workbench.core.config import io as config_io

    loaded_config = config_io.load_file(args.name, policy)
    config_io.raise_for(loaded_config)
    config = loaded_config.config
    # the author's converter module travels beside the plugin, which imports it from there
    modules = authored_modules(loaded_config.data, [Path(args.name).resolve().parent, *policy.beside])
    copies = [(m.name, door.read_text(m, "module", limits.MAX_CODE_BYTES)) for m in modules]
    folder = Path(args.output).parent
    export_code.targets(folder, copies, args.force)
    common.write_output(args.output, text, args.force)
    say("{}", args.output)
    for written in export_code.write(folder, copies, args.force):
        say("{}", written)
    name = args.register_as or config.name
    common.note(args, f"serve it: vllm serve MODEL {serve_flags(name, args.output, roles(config))}")
    return 0


def run(args: argparse.Namespace) -> int:
    from workbench.core.config import from_vllm as config_export

    if args.python:
        return run_python(args)
    if args.register_as:
        raise WorkbenchError("--register-as goes with --python")

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
