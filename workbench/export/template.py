"""@TITLE@

Exported by the parser workbench (`workbench export`) from vLLM @VLLM_VERSION@. A
standalone pytest file: it needs only vLLM and the tokenizer files. The token ids,
their texts (as vLLM's detokenizer produced them), the request and the prompt ids
are embedded below; the test drives ``ParserManager.get_parser(...)`` and the
parser's ``parse`` / ``parse_delta`` directly and asserts what `workbench check`
asserts: the stream joins to the non-streaming answer, other groupings of the same
tokens into deltas give the one-token answer, and the chunks keep the client
contract. Differences in whitespace only, or None vs "", are allowed. It fails
while the bug is present and passes once it is fixed.

Tokenizer: set PARSER_TOKENIZER to a folder holding tokenizer.json (for example a
download of the model's Hugging Face repository) or, when online, a Hugging Face
model id; without it the folder below, where the workbench keeps it, is used.
The test checks that the tokenizer knows the embedded special tokens by id.

    PARSER_TOKENIZER=/path/to/tokenizer-folder pytest -q @FILENAME@

Your own parser: a plugin this case ran is loaded from its copy beside this file, as
`vllm serve --tool-parser-plugin FILE` loads it; a parser config is built from its copy
beside this file with vLLM's ParserEngineConfig and ParserEngine (the builder below is the
workbench's own, workbench/core/config/plain.py), its callables only by the names trusted
when it was exported, and an author's module they name (a converter) from its copy beside
this file. Fix the copy, and the test passes.
"""

from __future__ import annotations

import functools
import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("VLLM_NO_USAGE_STATS", "1")

CASE = {}  # @CASE@
HERE = os.path.dirname(os.path.abspath(__file__))

# -- the message model and the properties, copied from the workbench -------------
# (workbench/core/messages.py, then workbench/check/props.py)
# @PROPS@

# @PLAIN@


# -- driving vLLM ----------------------------------------------------------------
@functools.cache
def tokenizer():
    from vllm.tokenizers import get_tokenizer

    where = os.environ.get("PARSER_TOKENIZER") or CASE["tokenizer"]["path"]
    if os.path.isfile(os.path.join(where, "o200k_base.tiktoken")):  # gpt-oss: Harmony, offline
        os.environ.setdefault("TIKTOKEN_ENCODINGS_BASE", where)
    tok = get_tokenizer(where, tokenizer_mode=CASE["tokenizer"].get("mode", "auto"))
    vocab = tok.get_vocab()
    wrong = {t: i for t, i in CASE["vocab"].items() if vocab.get(t) != i}
    if wrong:
        raise RuntimeError(f"the tokenizer at {where} is not the one this case was made with "
                           f"({CASE['tokenizer']['name']}): these special tokens have other ids: {wrong}")
    return tok


def enable_auto_tools():
    return CASE.get("enable_auto_tools", CASE["parser"]["tool_parser"] is not None)


def parser_class(tok):
    """The Parser class vLLM runs for this case."""
    from vllm.parser.parser_manager import ParserManager
    from vllm.tool_parsers import ToolParserManager

    code, p = CASE.get("code") or {}, CASE["parser"]
    for name in code.get("plugins", []):  # as `vllm serve --tool-parser-plugin FILE` loads it
        ToolParserManager.import_tool_parser(os.path.join(HERE, name))
    if code.get("config"):
        try:
            import tomllib
        except ModuleNotFoundError:  # Python 3.10
            import tomli as tomllib
        with open(os.path.join(HERE, code["config"]), "rb") as f:
            data = tomllib.load(f)
        # the policy `workbench replay` builds it with: the names trusted when this was exported
        trusted = (code["trusted"]["callables"], code["trusted"]["plugin_modules"]) if "trusted" in code else None
        family = resolve(data["parser_class"], [HERE], trusted) if data.get("parser_class") else None
        cls = engine_class(config_from_data(data, [HERE], trusted), family)
        ParserManager.validate_parser_tokenizer(cls, tok, tool_parser_name=code["config"],
                                                reasoning_parser_name=code["config"])
        return cls
    return ParserManager.get_parser(tool_parser_name=p["tool_parser"],
                                    reasoning_parser_name=p["reasoning_parser"],
                                    enable_auto_tools=enable_auto_tools(),
                                    is_harmony=CASE["tokenizer"].get("model_type") == "gpt_oss",
                                    tokenizer=tok)


@functools.cache
def parser_and_request():
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    tok = tokenizer()
    cls = parser_class(tok)
    if CASE.get("api") == "responses":  # /v1/responses: the parser is handed the ResponsesRequest itself
        from vllm.entrypoints.openai.responses.protocol import ResponsesRequest

        request = ResponsesRequest(**{**CASE["api_request"], "stream": True})
    else:  # chat, and /v1/messages (vLLM converts it to this chat request first)
        request = ChatCompletionRequest(**CASE["request"])
    if cls is not None and (cls.always_adjust_request or cls.reasoning_parser_cls is not None
                            or request.tool_choice != "none"):
        request = cls(tok, request.tools, model_config=None,
                      chat_template_kwargs=CASE["chat_template_kwargs"]).adjust_request(request=request)
    return cls, request


def new_parser():
    cls, request = parser_and_request()
    if cls is None:
        return None, request
    return cls(tokenizer(), request.tools, chat_template_kwargs=CASE["chat_template_kwargs"],
               model_config=None), request


def deltas_of(grouping):
    """[(token ids, text)] for a grouping: sizes over the tokens, or text held back."""
    ids, texts = CASE["token_ids"], CASE["token_texts"]
    if "holdback" in grouping:
        out, held = [], []
        for i, (tid, text) in enumerate(zip(ids, texts)):
            held.append(text)
            if i == len(ids) - 1:
                chunk, held = "".join(held), []
            elif len(held) > grouping["holdback"]:
                chunk = held.pop(0)
            else:
                chunk = ""
            out.append(([tid], chunk))
        return out
    out, i = [], 0
    for size in grouping["sizes"]:
        out.append((ids[i:i + size], "".join(texts[i:i + size])))
        i += size
    return out


def stream(grouping):
    """(per-step deltas, what a streaming client ends up with)."""
    parser, request = new_parser()
    deltas = deltas_of(grouping)
    steps = []
    for n, (ids, text) in enumerate(deltas):
        if parser is None:
            steps.append(MessageDelta(content=text))
            continue
        msg = parser.parse_delta(text, list(ids), request, CASE["prompt_token_ids"],
                                 finished=n == len(deltas) - 1)
        steps.append(MessageDelta.from_vllm(msg))
    return steps, accumulate(steps)


def nonstream():
    parser, request = new_parser()
    text = "".join(CASE["token_texts"])
    if parser is None:
        return Final(content=text)
    parser.set_prompt_token_ids(CASE["prompt_token_ids"])
    reasoning, content, calls = parser.parse(text, request, enable_auto_tools=enable_auto_tools(),
                                             model_output_token_ids=CASE["token_ids"])
    return Final(reasoning if request.include_reasoning else None, content,
                 tuple(ToolCall(i, None, c.name, c.arguments) for i, c in enumerate(calls or [])))


def severe(final, reference):
    return {d.field: (d.a, d.b) for d in differences(final, reference, MESSAGE_FIELDS)
            if d.severity == SEVERE}


# -- the tests ---------------------------------------------------------------------
ONE_TOKEN = {"label": "token", "sizes": [1] * len(CASE["token_ids"])}


def test_stream_joins_to_the_nonstreaming_answer():
    steps, final = stream(ONE_TOKEN)
    differs = severe(final, nonstream())
    assert not differs, "stream != non-stream (field: (stream, non-stream)): " + repr(differs)


@pytest.mark.parametrize("grouping", CASE["groupings"], ids=lambda g: g["label"])
def test_grouping_gives_the_one_token_answer(grouping):
    _, final = stream(grouping)
    _, reference = stream(ONE_TOKEN)
    differs = severe(final, reference)
    assert not differs, (f"{grouping['label']} != one-token deltas (field: (grouping, one-token)): "
                         + repr(differs))


@pytest.mark.parametrize("grouping", [ONE_TOKEN] + CASE["groupings"], ids=lambda g: g["label"])
def test_client_contract(grouping):
    steps, _ = stream(grouping)
    problems = [f"step {p['step']}: {p['detail']}" for p in contract_problems(steps, CASE["markers"])]
    if grouping is ONE_TOKEN:
        problems += [f"non-stream: marker {m!r} in {f}" for f, m in marker_leaks(nonstream(), CASE["markers"])]
    assert not problems, "; ".join(problems)
