"""Hand a case on: a standalone pytest file, or a vLLM replay-test sample.

The pytest file is ``template.py`` with the case embedded as a Python
literal and ``core/messages.py`` + ``props.py`` pasted in, so it joins and asserts
exactly what ``check`` does and needs only vLLM and the tokenizer files. ``self_check`` runs the exported
tests in this process, to say up front whether they fail now.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.check import groupings as G
from workbench.check.contract import markers as parser_markers
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from vllm.tokenizers import TokenizerLike
    from workbench.core.deltas import Delta
    from workbench.core.parsers import ParserSpec
    from workbench.core.session import Session

HERE = Path(__file__).parent
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
API_ENDPOINTS = {"responses": "/v1/responses (the parser gets the ResponsesRequest)",
                 "messages": "/v1/messages (converted to a chat request by vLLM)"}


def request_fields(spec: ParserSpec) -> dict:
    """The ChatCompletionRequest fields ``request.build_request`` passes for this spec."""
    fields = {"model": "workbench", "messages": spec.messages, "include_reasoning": spec.include_reasoning}
    for key in ("tools", "tool_choice", "parallel_tool_calls", "max_tokens"):
        if getattr(spec, key) is not None:
            fields[key] = getattr(spec, key)
    if spec.chat_template_kwargs:
        fields["chat_template_kwargs"] = spec.chat_template_kwargs
    return fields


def vocab(tokenizer: TokenizerLike) -> dict[str, int]:
    decoder = getattr(tokenizer, "added_tokens_decoder", None) or {}
    return {t.content: i for i, t in sorted(decoder.items())}


def _groupings(n: int, report) -> list[dict]:
    from workbench.core import chunking as C

    out = [{"label": label, "sizes": list(sizes)} for label, sizes in G.whole(n) + G.k_batches(n, (2, 4))]
    out.append({"label": "holdback:1", "holdback": 1})
    for f in report.findings if report else ():
        label = f.extra.get("minimal_grouping") or f.extra.get("grouping") or f.chunking
        try:
            delay, sizes = C.hold_back_delay(label), C.sizes(label, n)
        except WorkbenchError:  # "source", "nonstream": no grouping of their own
            continue
        if delay is not None:
            out.append({"label": label, "holdback": delay})
        elif label != "token":
            out.append({"label": label, "sizes": list(sizes)})
    seen, unique = set(), []
    for g in out:
        if g["label"] not in seen:
            seen.add(g["label"])
            unique.append(g)
    return unique


def build_case(session: Session, deltas: Sequence[Delta], report=None) -> dict:
    from workbench.core.tokenizers import ensure_tokenizer, is_mistral, model_type, tokenizer_sha256
    from workbench.core.vllm_version import vllm_version

    spec = session.setup.parser
    api = getattr(session, "api", "chat")
    if api == "responses" and _harmony(session):
        raise WorkbenchError("export --api responses on gpt-oss: vLLM's Responses server does not call the "
                             "parser there (it reads the ids with HarmonyContext); export with --api chat")
    tokens = G.TokenStream.from_deltas(session, deltas)
    folder = ensure_tokenizer(session.setup.tokenizer)
    findings = [f.headline() for f in report.findings] if report else []
    return {
        "vllm_version": vllm_version(),
        "tokenizer": {"name": session.setup.tokenizer, "path": str(folder), "sha256": tokenizer_sha256(folder),
                      # how vLLM's server would load it and which Parser it composes
                      "mode": "mistral" if is_mistral(session.tokenizer) else "auto",
                      "model_type": model_type(session.tokenizer)},
        "vocab": vocab(session.tokenizer),
        "parser": {"tool_parser": spec.tool_parser, "reasoning_parser": spec.reasoning_parser},
        # the author's own code, copied beside the test (``beside``) and loaded from there; a
        # config's callables resolve only by the names the run trusted (core/trust.py)
        "code": {"plugins": [Path(p).name for p in session.setup.plugins],
                 "config": Path(spec.config).name if spec.config else None,
                 **({"trusted": _trusted(session)} if spec.config else {})},
        "enable_auto_tools": session.enable_auto_tools,
        "request": request_fields(session.setup.request),
        # --api: the request in that API's shape; on Responses the parser is handed the
        # ResponsesRequest itself (Messages: the chat request vLLM converts it to, above)
        "api": api,
        "api_request": ({k: v for k, v in (session.setup.api_request or {}).items() if k not in ("vllm_xargs", "stream")}
                        if api != "chat" else None),
        "chat_template_kwargs": session.setup.request.chat_template_kwargs,
        "prompt_token_ids": list(session.prompt_ids),
        "token_ids": tokens.ids, "token_texts": tokens.texts, "finish_reason": tokens.finish_reason,
        "markers": parser_markers(session),
        "groupings": _groupings(len(tokens), report),
        "findings_when_exported": findings,
    }


def _trusted(session: Session) -> dict:
    """The policy this run built the config with, by name: vLLM's callables, the ones the user
    allowed, the plugins' modules (their code is the plugin's, copied beside the test)."""
    names, plugins = session.policy.trusted()
    return {"callables": names, "plugin_modules": plugins}


def _harmony(session: Session) -> bool:
    from workbench.core import vllm_compat as compat

    return compat.is_harmony_class(session.parser_cls)


MESSAGES = HERE.parent / "core" / "messages.py"
_MESSAGES_IMPORT = re.compile(r"^from workbench\.core\.messages import (\([^)]*\)|.*)\n", re.M)


_TYPE_CHECKING_BLOCK = re.compile(r"^if TYPE_CHECKING:\n(?:(?:    .*)?\n)*", re.M)


def _body(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    body = text.split('"""', 2)[2]  # drop the module docstring
    # The pasted file imports nothing of the workbench; annotation-only imports never run anyway.
    body = _TYPE_CHECKING_BLOCK.sub("", body)
    return body.replace("from __future__ import annotations\n", "").strip() + "\n"


def props_source() -> str:
    """core/messages.py then check/props.py (less its import of messages), to paste."""
    props = _body(HERE.parent / "check" / "props.py")
    if len(_MESSAGES_IMPORT.findall(props)) != 1:
        raise RuntimeError("check/props.py must import core/messages.py in one statement")
    return _body(MESSAGES) + "\n\n" + _MESSAGES_IMPORT.sub("", props)


def plain_source() -> str:
    """core/config/plain.py, to paste: how a config's copy becomes its parser."""
    return ("# -- a parser config -> vLLM's ParserEngineConfig, copied from the workbench ---------\n"
            "# (workbench/core/config/plain.py)\n" + _body(HERE.parent / "core" / "config" / "plain.py"))


def parser_label(case: dict) -> str:
    """'hermes + qwen3', 'config ferret.toml', 'ferret + - (plugin ferret_parser.py)'."""
    code, spec = case.get("code") or {}, case["parser"]
    if code.get("config"):
        label = f"config {code['config']}"
    else:
        label = f"{spec['tool_parser'] or '-'} + {spec['reasoning_parser'] or '-'}"
    if code.get("plugins"):
        label += f" (plugin {', '.join(code['plugins'])})"
    return label


def render_pytest(case: dict, filename: str) -> str:
    """The pytest file's text, through the writing door (core/writing/python.py): the title,
    version and file name are docstring text that cannot close it, the case is a literal,
    and the whole is parsed with ``ast`` before anyone writes it."""
    from workbench.core.writing import python

    template = (HERE / "template.py").read_text(encoding="utf-8")
    title = (f"Parser check: {parser_label(case)} on {case['tokenizer']['name']}, "
             f"{len(case['token_ids'])} tokens")
    if case.get("api", "chat") != "chat":
        title += f", as vLLM serves it on {API_ENDPOINTS[case['api']]}"
    if case["findings_when_exported"]:
        title += "\n\nFindings when exported:\n" + "\n".join("- " + h for h in case["findings_when_exported"])
    # the template is a Python file: its three code placeholders sit in a literal and comments
    template = (template.replace("CASE = {}  # @CASE@", "CASE = @CASE@").replace("# @PROPS@", "@PROPS@")
                .replace("# @PLAIN@", "@PLAIN@"))
    out = python.fill(template, {
        "TITLE": python.in_docstring(title), "VLLM_VERSION": python.in_docstring(case["vllm_version"]),
        "FILENAME": python.in_docstring(filename), "CASE": python.literal(case, pretty=True),
        "PROPS": props_source(), "PLAIN": plain_source() if (case.get("code") or {}).get("config") else ""})
    return python.module(out, filename, docstring_starts=title)


def write_pytest(path: str | Path, case: dict, force: bool = False,
                 code: list[tuple[str, str]] | None = None) -> Path:
    """Write the test; ``code``: the author's files to copy beside it (``export_code.copies``),
    checked before anything is written."""
    from workbench.export import authored as export_code
    from workbench.core import outputs

    p = Path(path)
    if not _NAME.match(p.stem):
        raise WorkbenchError(f"{p.name}: the test file name must be a Python identifier (test_NAME.py)")
    text = render_pytest(case, p.name)
    outputs.refuse_existing(p, force)
    export_code.targets(p.parent, code or [], force)
    written = outputs.write_text(p, text, force)
    export_code.write(p.parent, code or [], force)
    return written


def vllm_sample(case: dict, nonstream: dict, sample_id: str, description: str = "") -> dict:
    """One line of vLLM's replay-test samples (tests/parser/engine/replay_harness.py ``Sample``).

    The expected values are the non-streaming answer; a stop-terminating EOS is left
    out of ``tokens`` (it carries no text).
    """
    pairs = [[i, t] for i, t in zip(case["token_ids"], case["token_texts"])]
    eos_last = case["finish_reason"] == "stop" and pairs and pairs[-1][1] == ""
    calls = []
    for c in nonstream.get("tool_calls") or []:
        try:
            args = json.loads(c["arguments"]) if c["arguments"] else {}
        except (ValueError, RecursionError):
            args = c["arguments"]
        calls.append({"name": c["name"], "arguments": args})
    p = case["parser"]
    return {"id": sample_id, "description": description,
            "source": f"parser workbench export; vLLM {case['vllm_version']}; "
                      f"{p['tool_parser'] or '-'}+{p['reasoning_parser'] or '-'}; tokenizer "
                      f"{case['tokenizer']['name']} sha256 {case['tokenizer']['sha256'][:16]}",
            "vocab": case["vocab"], "tokens": pairs[:-1] if eos_last else pairs,
            "expected_reasoning": nonstream.get("reasoning"),
            "expected_content": nonstream.get("content"),
            "expected_tool_calls": calls, "tools": case["request"].get("tools"),
            "chat_template_kwargs": case["chat_template_kwargs"] or None,
            "prompt_token_ids": case["prompt_token_ids"]}


def write_sample(path: str | Path, sample: dict, force: bool = False) -> Path:
    from workbench.core import outputs

    return outputs.write_text(path, outputs.strict_json(sample) + "\n", force)


def self_check(path: str | Path, tokenizer_folder: str | None = None) -> list[tuple[str, str]]:
    """Run the exported tests here: [(test id, failure message)] for those that fail."""
    from workbench.core import outputs

    p = outputs.written_at(path)  # in a lane, its copy there (the calling process writes the file)
    name = f"_workbench_export_{p.stem}"
    spec = importlib.util.spec_from_file_location(name, p)
    module = importlib.util.module_from_spec(spec)
    old = os.environ.get("PARSER_TOKENIZER")
    if tokenizer_folder:
        os.environ["PARSER_TOKENIZER"] = tokenizer_folder
    sys.modules[name] = module  # dataclasses look their module up while the file runs
    try:
        spec.loader.exec_module(module)
        tests = [("test_stream_joins_to_the_nonstreaming_answer", module.test_stream_joins_to_the_nonstreaming_answer, ())]
        for g in module.CASE["groupings"]:
            tests.append((f"test_grouping_gives_the_one_token_answer[{g['label']}]",
                          module.test_grouping_gives_the_one_token_answer, (g,)))
        for g in [module.ONE_TOKEN] + module.CASE["groupings"]:
            tests.append((f"test_client_contract[{g['label']}]", module.test_client_contract, (g,)))
        failures = []
        for test_id, fn, args in tests:
            try:
                fn(*args)
            except AssertionError as e:
                failures.append((test_id, str(e).splitlines()[0] if str(e) else "assertion failed"))
        return failures
    finally:
        sys.modules.pop(name, None)
        if tokenizer_folder:
            if old is None:
                os.environ.pop("PARSER_TOKENIZER", None)
            else:
                os.environ["PARSER_TOKENIZER"] = old
