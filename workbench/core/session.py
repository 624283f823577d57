"""A replay session: tokenizer + parser + request, then any number of streams.

``Session`` does once what vLLM's server does at start-up and per request
(compose the parser class, validate it against the tokenizer, build the
request, run ``adjust_request`` on a throwaway instance, render the prompt),
then ``replay(deltas)`` drives fresh parser instances over a stream and returns
the rows plus the streaming and non-streaming answers.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from workbench.core import faces, parsers, plugins, request as req, trust
from workbench.core.faces import bodies
from workbench.core.deltas import Delta, deltas_from_ids, deltas_from_text, grouped
from workbench.core.messages import Final
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.rows import Row
from workbench.core.runner import StreamRun, nonstream
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any
    from vllm.parser.abstract_parser import Parser

    from workbench.core.chunking import GivenDeltas

DEFAULT_MAX_TOKENS = 4096


@dataclass
class Setup:
    tokenizer: str = "qwen3"
    parser: ParserSpec = field(default_factory=lambda: ParserSpec("hermes", "qwen3"))
    request: RequestSpec = field(default_factory=RequestSpec)
    chunking: str = "token"
    plugins: tuple[str, ...] = ()
    allow_callables: tuple[str, ...] = ()  # module:attr names a config's callables may use beyond the table
    trust_spelling: str = "cli"  # how a refusal says to trust a callable: "cli" (--allow-callable) or "notebook"
    chat_template: str | None = None  # --chat-template FILE's text: renders (boxed) instead of the tokenizer's
    chat_template_file: str | None = None  # that FILE's path (its name and sha256 go in a recording's header)
    trust_template: bool = False  # --trust-template: a template the request carries renders (boxed)
    # Which API's client reads the stream (workbench.core.faces) and, for responses /
    # messages, the request in that API's own shape: ``request`` is then what vLLM's
    # converters render from it (set by the Session; --messages/--tools become a body).
    api: str = "chat"
    api_request: dict | None = None


@dataclass
class Result:
    rows: list[Row]
    stream_final: Final  # what a streaming client joins from the sent chunks
    nonstream_final: Final  # the non-streaming response's message
    parser: dict
    text: str
    token_ids: list[int]

    @cached_property
    def stream(self) -> dict:
        """``stream_final`` as the JSON `--json` prints."""
        return self.stream_final.to_dict()

    @cached_property
    def nonstream(self) -> dict:
        return self.nonstream_final.to_dict()

    @property
    def errors(self) -> list[Row]:
        return [r for r in self.rows if r.error]

    def to_dict(self) -> dict:
        return {"parser": self.parser, "stream": self.stream, "nonstream": self.nonstream,
                "text": self.text, "rows": [r.to_dict() for r in self.rows]}


class Session:
    def __init__(self, setup: Setup, prompt_token_ids: list[int] | None = None) -> None:
        from workbench.core.tokenizers import load_tokenizer
        from workbench.core.vllm_compat import size_regex_cache

        size_regex_cache()
        self.setup = setup
        self.api = faces.check_api(setup.api)
        self.plugins = tuple(plugins.load(path) for path in setup.plugins)
        if not setup.parser.config:  # with a config, a plugin may bring only its callables
            for plugin in self.plugins:
                plugins.require_parsers(plugin)
        self.policy = trust.for_plugins(self.plugins, setup.allow_callables, setup.trust_spelling)
        self.tokenizer = load_tokenizer(setup.tokenizer)
        self.parser_cls = parsers.compose(setup.parser, self.tokenizer, self.policy, self.plugins)
        self.parser_info = parsers.describe(self.parser_cls)
        self.enable_auto_tools = parsers.auto_tools(self.parser_cls)
        if self.api != "chat":
            if setup.api_request is None:
                setup.api_request = bodies.body_of(self.api, setup.request)
            setup.request = bodies.spec_of(self.api, setup.api_request, self.tokenizer)
        self.request = self._adjusted_request()
        self.prompt_ids = (list(prompt_token_ids) if prompt_token_ids is not None
                           else self._render_prompt())
        self.params = req.sampling_params(self.request, setup.request.max_tokens or DEFAULT_MAX_TOKENS)

    def _adjusted_request(self):
        """The request after ``adjust_request`` on a throwaway parser, as vLLM's renderer does."""
        if self.api == "chat":
            request = req.build_request(self.setup.request)
        else:
            request = bodies.parser_request(self.api, self.setup.api_request or {}, self.tokenizer)
        cls = self.parser_cls
        if cls is None:
            return request
        if cls.always_adjust_request or cls.reasoning_parser_cls is not None or request.tool_choice != "none":
            try:
                request = cls(self.tokenizer, request.tools, model_config=None,
                              chat_template_kwargs=self.setup.request.chat_template_kwargs
                              ).adjust_request(request=request)
            except Exception as e:
                raise WorkbenchError(f"adjust_request failed: {type(e).__name__}: {e}") from None
        return request

    def _render_prompt(self) -> list[int]:
        """The prompt ids as the server renders them for this API (gpt-oss on Responses:
        Harmony messages, no chat template)."""
        from workbench.core import vllm_compat as compat

        if self.api == "responses" and compat.is_harmony_class(self.parser_cls):
            from workbench.core.faces import harmony

            return harmony.prompt_ids(self.request)
        return req.render_prompt(self.tokenizer, self.setup.request, self.setup.chat_template,
                                 self.setup.trust_template)

    def use_parser_class(self, parser_cls: type[Parser] | None) -> None:
        """Swap the composed Parser class (a reloaded config); tokenizer and prompt stay."""
        self.parser_cls = parser_cls
        self.parser_info = parsers.describe(parser_cls)
        self.enable_auto_tools = parsers.auto_tools(parser_cls)
        self.request = self._adjusted_request()
        self.params = req.sampling_params(self.request, self.setup.request.max_tokens or DEFAULT_MAX_TOKENS)

    def request_view(self) -> dict:
        """What adjust_request decided: special tokens and the constraint, if any."""
        so = self.request.structured_outputs
        return {"tool_choice": _jsonable(self.request.tool_choice),
                "skip_special_tokens": self.request.skip_special_tokens,
                "structured_outputs": so.model_dump(exclude_none=True) if hasattr(so, "model_dump")
                else (vars(so) if so is not None else None)}

    def deltas_from_text(self, text: str, chunking: str | None = None,
                         finish_reason: str = "stop") -> list[Delta]:
        """The deltas of ``text`` (then EOS when it stops), cut by the request's max_tokens
        as the engine would."""
        return deltas_from_text(self.tokenizer, text, self.prompt_ids, self.params,
                                chunking or self.setup.chunking, finish_reason=finish_reason,
                                max_tokens=self.setup.request.max_tokens)

    def regroup(self, deltas: list[Delta], chunking: str) -> list[Delta]:
        """The same token ids grouped differently, re-detokenized by vLLM's detokenizer."""
        ids = [t for d in deltas for t in d.token_ids]
        finish = deltas[-1].finish_reason or "stop"
        return grouped(self.tokenizer, ids, self.prompt_ids, self.params, chunking, finish,
                       stop_terminated=self._stopped(ids, finish))

    def _stopped(self, ids: Sequence[int], finish: str) -> bool:
        from workbench.core.tokenizers import stop_token_ids

        return finish == "stop" and bool(ids) and ids[-1] in stop_token_ids(self.tokenizer)

    def deltas_from_groups(self, groups: list[list[int]], finish_reason: str = "stop") -> list[Delta]:
        """Exactly these deltas (token ids per delta), detokenized as vLLM does."""
        ids = [t for g in groups for t in g]
        return list(deltas_from_ids(self.tokenizer, ids, self.prompt_ids, self.params, groups,
                                    finish_reason=finish_reason,
                                    stop_terminated=self._stopped(ids, finish_reason)))

    def deltas_from_pieces(self, pieces: list[str], finish_reason: str = "stop") -> tuple[list[Delta], list[str]]:
        """(deltas, notes) for a client's delta texts: the joined text's ids (then EOS when it
        stops), each token in the delta its text ends in, so the boundaries are the pieces'."""
        whole = deltas_from_text(self.tokenizer, "".join(pieces), self.prompt_ids, self.params, "token",
                                 finish_reason=finish_reason)
        ends, at = [], 0
        for piece in pieces:
            at += len(piece)
            ends.append(at)
        groups: list[list[int]] = [[] for _ in pieces]
        k = done = 0
        for d in whole:
            done += len(d.text)
            while k < len(ends) - 1 and done > ends[k]:
                k += 1
            groups[k].extend(d.token_ids)
        out = [g for g in groups if g] or [[]]
        deltas = self.deltas_from_groups(out, whole[-1].finish_reason or finish_reason)
        notes = []
        if [d.text for d in deltas] != [p for p, g in zip(pieces, groups) if g]:
            first = next(i for i, (d, p) in enumerate(zip(deltas, pieces)) if d.text != p)
            notes.append(f"delta {first + 1}: a token spans the boundary of the given texts, so the "
                         f"delta is {deltas[first].text!r}, not {pieces[first]!r}")
        return deltas, notes

    def deltas_from_given(self, given: GivenDeltas, finish_reason: str = "stop") -> tuple[list[Delta], list[str]]:
        """(deltas, notes) for ``--deltas`` (``core.chunking.GivenDeltas``): texts or token-id lists."""
        if given.texts is not None:
            return self.deltas_from_pieces(given.texts, finish_reason)
        groups = given.ids or []
        size = len(self.tokenizer)
        bad = [t for g in groups for t in g if t >= size]
        if bad:
            raise WorkbenchError(f"--deltas: token id {bad[0]} is not in the {self.setup.tokenizer} vocabulary "
                                 f"({size} ids)")
        return self.deltas_from_groups(groups, finish_reason), []

    def stream(self, keep_rows: bool = True) -> StreamRun:
        return StreamRun(self.parser_cls, self.tokenizer, self.request, self.prompt_ids,
                         self.setup.request.chat_template_kwargs, keep_rows=keep_rows)

    def machines(self) -> list[dict]:
        """The graphs of every engine inside the parser (none for a hand-written parser)."""
        from workbench.core.machine import graph

        return [graph(eng.config, role) for role, eng in self.stream().engines.items()]

    def nonstream(self, text: str, token_ids: Sequence[int], finish_reason: str = "stop") -> Final:
        return nonstream(self.parser_cls, self.tokenizer, self.request, self.prompt_ids,
                         self.setup.request.chat_template_kwargs, text, token_ids,
                         self.enable_auto_tools, finish_reason)

    def replay(self, deltas: list[Delta]) -> Result:
        if not deltas:
            raise WorkbenchError("no deltas to replay")
        run = self.stream()
        with _gc_paused():
            for d in deltas:
                run.feed(d)
        return self.result_of(run, deltas[-1].finish_reason or "stop")

    def result_of(self, run: StreamRun, finish_reason: str = "stop") -> Result:
        """A fed stream's Result: its rows, what the client joined and the non-streaming
        answer (one more fresh parser over the whole text)."""
        text, token_ids = run.text, run.token_ids
        return Result(rows=run.rows, stream_final=run.result.final(),
                      nonstream_final=self.nonstream(text, token_ids, finish_reason),
                      parser=self.parser_info, text=text, token_ids=token_ids)


@contextmanager
def _gc_paused():
    """Rows keep dozens of objects per delta alive, and every cyclic-GC pass rescans them:
    paused, a 40,000-delta replay ran 1.5-1.8x faster (bench/recording_scale.py)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _jsonable(value: Any):
    return value.model_dump() if hasattr(value, "model_dump") else value
