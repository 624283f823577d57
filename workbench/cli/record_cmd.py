"""`workbench record`: run a real vLLM engine on a request and write a recording.

Scripted (--text/--text-file: the exact token ids of the text, then EOS, forced
on the embedded tiny model or on --model) or free generation (--model alone).
Each delta is appended and flushed as it arrives; `workbench replay REC.jsonl`
turns the recording back into the same rows.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import TYPE_CHECKING

from workbench.cli import common, options, render
from workbench.core.writing import terminal

if TYPE_CHECKING:
    from collections.abc import Sequence
    from workbench.core.rows import Row
    from workbench.core.writing.terminal import Console


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("record", help="step a vLLM engine on a request and record its deltas")
    p.add_argument("--text", help="script: force the engine to write this text, then EOS")
    p.add_argument("--text-file", metavar="F", help="script: read the text from a file")
    p.add_argument("--tokenizer", metavar="NAME|PATH",
                   help="built-in tokenizer name or a folder (default: qwen3, or the --model folder)")
    p.add_argument("--model", metavar="NAME|PATH",
                   help="a real model (free generation unless --text): smollm2 (SmolLM2-135M-Instruct, "
                        "fetched by make setup) or a model folder; its own tokenizer unless --tokenizer; "
                        "default: a tiny random model made for the tokenizer")
    options.add_parser_options(p)
    options.add_request_options(p)
    g = p.add_argument_group("sampling (request fields; the same seed gives the same rows) and engine "
                             "(a real model on a CPU: eager, max_model_len 2048; the KV cache is "
                             "VLLM_CPU_KVCACHE_SPACE GiB, 1 by default)")
    g.add_argument("--temperature", type=float, metavar="T", help="0: greedy; default: the model's, else 1.0")
    g.add_argument("--top-p", type=float, metavar="P")
    g.add_argument("--top-k", type=int, metavar="K")
    g.add_argument("--seed", type=int, metavar="N", dest="sampling_seed", help="the request's sampling seed")
    g.add_argument("--max-model-len", type=int, metavar="N")
    g.add_argument("--enforce-eager", action=argparse.BooleanOptionalAction, default=None,
                   help="CUDA graphs / torch.compile off (default on a CPU)")
    g.add_argument("--dtype", metavar="auto|bfloat16|float16|float32")
    g.add_argument("--tensor-parallel-size", type=int, default=1, metavar="N")
    g.add_argument("--pipeline-parallel-size", type=int, default=1, metavar="N")
    g.add_argument("--gpu-memory-utilization", type=float, metavar="F")
    p.add_argument("--finish-reason", choices=("stop", "length"),
                   help="how a scripted text ends: stop (then EOS; default) or length (the engine's max_tokens "
                        "ends it right after the text); --max-tokens N cuts it as the engine does")
    p.add_argument("-o", "--output", required=True, metavar="REC.jsonl", help="the recording to write")
    p.add_argument("--force", action="store_true", help="overwrite an existing -o file")
    p.add_argument("--json", action="store_true", help="one JSON object: stream, nonstream, rows")
    p.add_argument("--quiet", action="store_true", help="no table, only the summary line")
    p.set_defaults(run=run)


def engine_spec(args: argparse.Namespace):
    from workbench.engine import EngineSpec

    from workbench.errors import WorkbenchError

    for name in ("max_model_len", "tensor_parallel_size", "pipeline_parallel_size"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise WorkbenchError(f"--{name.replace('_', '-')} must be >= 1, got {value}")
    return EngineSpec(model=args.model, max_model_len=args.max_model_len, dtype=args.dtype,
                      tensor_parallel_size=args.tensor_parallel_size,
                      pipeline_parallel_size=args.pipeline_parallel_size,
                      gpu_memory_utilization=args.gpu_memory_utilization, enforce_eager=args.enforce_eager)


def run(args: argparse.Namespace) -> int:
    from workbench.core import recording as rec
    from workbench.core.prepare import text_setup
    from workbench.core.session import Session
    from workbench.core.tokenizers import ensure_tokenizer, tokenizer_sha256
    from workbench.engine import EngineStepper
    from workbench.errors import WorkbenchError

    common.refuse_existing(args.output, args.force)
    spec = common.run_spec(args)
    text = spec.text
    if text is None and args.model is None:
        raise WorkbenchError("nothing to run: give --text, --text-file or --model")
    from workbench.engine import instance

    tokenizer = instance.model_tokenizer(args.model, args.tokenizer) or "qwen3"
    setup = text_setup(spec.with_(tokenizer=tokenizer))
    if args.finish_reason == "length":
        if text is None:
            raise WorkbenchError("--finish-reason length needs --text or --text-file (the text it cuts after)")
        from workbench.core.deltas import encode_text
        from workbench.core.tokenizers import load_tokenizer

        n = len(encode_text(load_tokenizer(tokenizer), text))
        setup.request.max_tokens = min(setup.request.max_tokens or n, n)  # the engine stops there: length
    face_session = Session(setup) if setup.api != "chat" else None
    # The engine runs the chat request the API's converters rendered (the same prompt and
    # tokens); the recording keeps the API and its body, and the face reads its deltas.
    session = Session(replace(setup, api="chat", api_request=None)) if face_session else Session(setup)
    stepper = EngineStepper(engine_spec(args))
    stepper.start(session, text)
    header = rec.make_header(tokenizer, tokenizer_sha256(ensure_tokenizer(tokenizer)),
                             setup.request.to_dict(), session.prompt_ids, stepper.origin(),
                             common.parser_header(setup)) | common.api_header(setup) | common.template_header(setup)
    with rec.RecordingWriter(args.output, header, overwrite=args.force) as writer:
        stepper.on_delta = writer.append
        result = stepper.run()
    face = None
    if face_session is not None:
        from workbench.core import faces

        face = faces.run(face_session, face_session.replay(stepper.deltas))
    if args.json:
        from workbench.cli.replay_cmd import api_json

        out = result.to_dict()
        out.update(request=session.request_view(), usage=result.usage, notes=result.notes,
                   constraint=result.constraint, origin=stepper.origin())
        out.update(api_json(face_session, face, out["rows"]))
        common.print_json(out)
    elif not args.quiet:
        show(result, stepper)
        if face is not None:
            from workbench.cli import render_faces

            render_faces.show(render.console(), face, result.rows)
    terminal.say("workbench record: {} deltas in {} engine steps, finish_reason={} -> {}", len(result.rows),
                 result.engine_steps, result.stream.get("finish_reason"), args.output, err=True)
    for note in result.notes:
        terminal.say("workbench record: note: {}", note, err=True)
    return 1 if result.errors else 0


def show(result, stepper, con: Console | None = None) -> None:
    """Rows, the grammar view (when a constraint is in force), final message, usage."""
    con = con or render.console()
    origin = stepper.origin()
    con.print(f"engine: {origin['model']} (script={origin['script']}, start {origin['start_s']} s); "
              f"parser: {result.parser['class']}")
    if result.constraint is not None:
        spec = result.constraint["spec"]
        con.print(f"constraint ({result.constraint['kind']}): {str(spec)[:300]}")
    con.print(render.rows_table(result.rows))
    if any("grammar" in r.extra for r in result.rows):
        con.print(grammar_table(result.rows))
    for r in result.rows:
        for line in r.extra.get("engine_logs", []):
            con.print(terminal.markup("[dim]engine log at step {}:[/] {}", r.step, line))
    con.print(render.final_table(result.stream, result.nonstream, result.rows))
    con.print(f"usage: {json.dumps(result.usage)}")
    for note in result.notes:
        con.print(terminal.markup("[yellow]note:[/] {}", note))


def grammar_table(rows: Sequence[Row]):
    t = terminal.Table(title="grammar (read from the engine's StructuredOutputManager)", header_style="bold")
    for col in ("step", "engine steps", "tokens", "gate", "allowed", "emitted allowed"):
        t.add_column(col)
    for r in rows:
        g = r.extra.get("grammar")
        if g is None:
            continue
        ok = g["emitted_allowed"]
        style = "red" if False in ok else None
        t.add_row(str(r.step), str(r.engine_steps), " ".join(map(str, r.token_ids)),
                  " ".join("open" if x else "closed" if x is False else "?" for x in g["gate_open"]),
                  " ".join(map(str, g["allowed"])),
                  " ".join("yes" if x else "NO (rejected)" if x is False else "-" for x in ok),
                  style=style)
    return t

