"""`workbench serve-check`: the author's parser in vLLM's real OpenAI server against this
workbench's rows, chunk by chunk.

The server (``serve.start``: ``python -m vllm.entrypoints.openai.api_server`` on 127.0.0.1)
runs the tiny model made for the run's tokenizer with the scripted-tokens logits processor,
so the request's ``vllm_xargs.workbench_script`` forces it to emit exactly the case's token
ids. It loads the author's ``--plugin`` as ``--tool-parser-plugin``, or a ``--config`` as
the plugin ``export-config --python`` writes (its converter modules copied beside it). The
streamed answer is captured (``capture.capture``, token ids included) and replayed here in
the server's own grouping (``chunk_compare``), as `workbench replay CAPTURE` does; the
server is stopped however the check ends, Ctrl-C included.
"""

from __future__ import annotations

import dataclasses
import socket
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.capture.comparison import Comparison
    from workbench.core.prepare import Prepared
    from workbench.core.session import Setup


@dataclass
class Served:
    """What the server loads: the parser names it is started with and the plugin file(s)."""

    tool_parser: str | None
    reasoning_parser: str | None
    flags: list[str] = field(default_factory=list)  # --tool-parser-plugin F [--reasoning-parser-plugin F]
    written: list[Path] = field(default_factory=list)  # the exported config's plugin and module copies


@dataclass
class Outcome:
    comparison: Comparison
    first_field: str | None  # the first field that differs at the first differing step ("" : the chunk count)
    server_value: object = None
    here_value: object = None
    served: Served | None = None

    @property
    def same(self) -> bool:
        return self.comparison.first_difference is None


def check_port(port: int | None) -> int | None:
    """``port`` if it can be bound on 127.0.0.1 now (one line if not)."""
    if port is None:
        return None
    if not 1 <= port <= 65535:
        raise WorkbenchError(f"--port {port}: a port is 1..65535")
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError as e:
            raise WorkbenchError(f"--port {port} is busy on 127.0.0.1: {e.strerror or e}") from None
    return port


def require_parser(setup: Setup) -> Setup:
    """``setup`` if a server can be started with its parser (one line if not)."""
    spec = setup.parser
    if not (spec.tool_parser or spec.reasoning_parser or spec.config):
        raise WorkbenchError("serve-check needs a parser: --tool-parser/--reasoning-parser (with --plugin F.py "
                             "for your own) or --config F.toml")
    if len(setup.plugins) > 1 and not spec.config:
        raise WorkbenchError("vllm serve loads one --tool-parser-plugin: give serve-check one --plugin")
    if setup.api != "chat":
        raise WorkbenchError(f"serve-check compares chat chunks; for --api {setup.api}, "
                             f"`workbench capture --api {setup.api}` a server, then replay the capture")
    return setup


def parser_flags(prepared: Prepared, folder: Path) -> Served:
    """The parser flags of the server for the run's parser: a config exported as a plugin into
    ``folder``, else the run's one plugin, else vLLM's built-in parsers by name."""
    setup = require_parser(prepared.setup)
    spec = setup.parser
    if spec.config:
        return _config_plugin(prepared, folder)
    served = Served(spec.tool_parser, spec.reasoning_parser)
    if setup.plugins:
        plugin = str(Path(setup.plugins[0]).resolve())
        served.flags = ["--tool-parser-plugin", plugin]
        if spec.reasoning_parser:
            # the engine core builds its structured-output reasoner from this flag's import only
            served.flags += ["--reasoning-parser-plugin", plugin]
    return served


def _config_plugin(prepared: Prepared, folder: Path) -> Served:
    from workbench.export import authored as export_code
    from workbench.core import door, limits
    from workbench.core.config import io as config_io
    from workbench.core.config.export_python import plugin_source, roles

    session = prepared.session
    config = prepared.setup.parser.config
    policy = getattr(session, "policy", None)
    if policy is None:
        raise WorkbenchError("serve-check exports the config from this process's session (drop --vllm)")
    loaded = config_io.load_file(config, policy)
    config_io.raise_for(loaded)
    name = loaded.config.name
    from workbench.core.names import path_name

    out = folder / (path_name(name, "the config's name").replace("-", "_").replace(".", "_") + "_parser.py")
    copies = [(m.name, door.read_text(m, "module", limits.MAX_CODE_BYTES))
              for m in export_code.modules(config, session)]
    written = export_code.write(folder, copies, True)
    from workbench.core import outputs

    written.append(outputs.write_text(out, plugin_source(config, out.name, policy), True))
    kinds = roles(loaded.config)
    flags = ["--tool-parser-plugin", str(out)]
    if "reasoning" in kinds:
        flags += ["--reasoning-parser-plugin", str(out)]
    return Served(name if "tool" in kinds else None, name if "reasoning" in kinds else None, flags, written)


def template_flags(prepared: Prepared) -> list[str]:
    """The run's chat template options as the server's flags, so that both render one prompt."""
    setup = prepared.setup
    flags = ["--chat-template", str(Path(setup.chat_template_file).resolve())] if setup.chat_template_file else []
    return flags + (["--trust-request-chat-template"] if setup.trust_template else [])


def script_of(prepared: Prepared) -> tuple[list[int], int | None]:
    """(the token ids the server is forced to emit, the max_tokens that ends them if they do not
    end with EOS): the run's deltas' ids, a text's with EOS appended."""
    deltas = [d for d in prepared.deltas if "capture_error" not in d.extra]
    ids = [t for d in deltas for t in d.token_ids]
    if not ids:
        raise WorkbenchError("serve-check: the case has no token ids to force the server to emit")
    finish = deltas[-1].finish_reason
    if finish not in (None, "stop", "length"):
        raise WorkbenchError(f"serve-check: a stream that ends with finish_reason {finish!r} cannot be forced "
                             f"on a server (stop or length only)")
    from workbench.core.deltas import eos_id

    return ids, None if ids[-1] == eos_id(prepared.session.tokenizer) else len(ids)


def request_body(prepared: Prepared, script: list[int], max_tokens: int | None) -> dict:
    """The chat request as the workbench ran it, with the script in ``vllm_xargs``."""
    request = prepared.setup.request.to_dict()
    body = {k: v for k, v in request.items() if v is not None}
    if not body.get("chat_template_kwargs"):
        body.pop("chat_template_kwargs", None)
    if max_tokens is not None and body.get("max_tokens") is None:
        body["max_tokens"] = max_tokens
    body["vllm_xargs"] = {"workbench_script": script}
    return body


def run(prepared: Prepared, *, port: int | None = None, timeout: float = 600.0,
        server_log: str | None = None) -> Outcome:
    """Start the server, send the case, compare, stop the server (always)."""
    from workbench.capture import serve

    require_parser(prepared.setup)
    check_port(port)
    script, max_tokens = script_of(prepared)
    with tempfile.TemporaryDirectory(prefix="wb-serve-check-") as tmp:
        folder = Path(tmp)
        served = parser_flags(prepared, folder)
        log = Path(server_log).resolve() if server_log else folder / "server.log"
        try:
            server = serve.start(served.tool_parser, served.reasoning_parser, log, tokenizer=prepared.setup.tokenizer,
                                 timeout=timeout, extra=served.flags + template_flags(prepared), port=port)
        except WorkbenchError as e:
            raise WorkbenchError(f"{e}{'' if server_log else ' (--server-log F keeps its log)'}") from None
        try:
            rec = _capture(prepared, server.url, request_body(prepared, script, max_tokens), folder / "capture.jsonl")
        finally:
            server.stop()
        return _compare(prepared, rec, served, script)


def _capture(prepared: Prepared, url: str, body: dict, out: Path):
    from workbench.capture import capture
    from workbench.core import recording

    setup = prepared.setup
    opts = capture.Options(url=url, request=body, output=str(out), tokenizer=setup.tokenizer, parser=setup.parser,
                           plugins=tuple(setup.plugins), allow_callables=tuple(setup.allow_callables),
                           progress=False, force=True,
                           chat_template=setup.chat_template, chat_template_file=setup.chat_template_file,
                           trust_template=setup.trust_template)
    done = capture.capture(opts)
    if done.error and not done.chunks:
        raise WorkbenchError(f"serve-check: the server's answer: {done.error}")
    return recording.load(out)


def _compare(prepared: Prepared, rec, served: Served, script: list[int]) -> Outcome:
    from workbench.capture import chunk_compare
    from workbench.core.session import Session

    # the request as it was sent: capture asks for the token ids, so every chunk carries them
    setup = dataclasses.replace(prepared.setup, request=dataclasses.replace(prepared.setup.request,
                                                                            return_token_ids=True))
    session = Session(setup, prompt_token_ids=rec.prompt_token_ids or None)
    made, notes = chunk_compare.deltas(session, rec)
    result = session.replay(_with_the_erring_output(session, made, script, prepared.deltas[-1].finish_reason))
    cmp = chunk_compare.compare(result, rec, setup.parser.label(), notes)
    if cmp.first_difference is None:
        return Outcome(cmp, None, served=served)
    at = next(s for s in cmp.steps if s.step == cmp.first_difference)
    where, a, b = first_field([chunk_compare.normal(c) for c in at.a], [chunk_compare.normal(c) for c in at.b])
    return Outcome(cmp, where, a, b, served)


def _with_the_erring_output(session, made: list, script: list[int], finish: str | None) -> list:
    """The capture's deltas, where the server streamed an error chunk in place of an output:
    that output is the script's ids the chunks did not carry, as serve parity's predict
    takes it. The error chunk carries no ids, so a capture alone cannot tell which output
    the server's parser raised on; the script can (the server was forced to emit it)."""
    from workbench.core.deltas import Delta, deltas_from_ids

    last = made[-1] if made else None
    if last is None or last.finish_reason != "error" or last.token_ids or "capture_error" not in last.extra:
        return made
    body = made[:-1]
    seen = sum(len(d.token_ids) for d in body)
    if script[:seen] != [t for d in body for t in d.token_ids] or seen >= len(script):
        return made
    groups = [d.token_ids for d in body] + [script[seen:]]
    eos = getattr(session.tokenizer, "eos_token_id", None)
    redone = list(deltas_from_ids(session.tokenizer, script, session.prompt_ids, session.params, groups,
                                  finish_reason=finish or "stop",
                                  stop_terminated=finish == "stop" and script[-1] == eos))
    return [Delta(m.token_ids, m.text, d.finish_reason if d is not last else m.finish_reason, d.engine_steps,
                  d.extra) for m, d in zip(redone, made)]


_MISSING = "(absent)"


def first_field(server: object, here: object, path: str = "") -> tuple[str, object, object]:
    """The first place two normalised chunk lists differ: (its path, the server's value, ours);
    path "" with the two lists when they hold a different number of chunks."""
    if isinstance(server, dict) and isinstance(here, dict):
        for k in [*server, *(k for k in here if k not in server)]:
            a, b = server.get(k, _MISSING), here.get(k, _MISSING)
            if a != b:
                return first_field(a, b, f"{path}.{k}" if path else k)
    elif isinstance(server, list) and isinstance(here, list) and (path or len(server) == len(here)):
        for i, (a, b) in enumerate(zip(server, here)):
            if a != b:
                return first_field(a, b, f"{path}[{i}]" if path else f"chunk {i + 1}")
        if len(server) != len(here):
            return f"{path} (length)", len(server), len(here)
    return path, server, here
