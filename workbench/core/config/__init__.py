"""Parser formats as data: ``parsers/*.toml`` <-> vLLM's ``ParserEngineConfig``.

    io.py       load a TOML file (extends, problems as values with field path and line)
    build.py    the checked TOML dict -> ParserEngineConfig; callables through core.trust
    spelling.py a config's fields in the spelling of the vLLM that runs it (0.33 <-> 0.34), or one line
    lines.py    field path -> line in the file, for problems and the editor
    toml_text.py  a ParserEngineConfig -> readable TOML text (one transition per line)
    from_vllm.py  every vLLM engine family -> its TOML (``workbench export-config``)
    export_python.py  a config -> a vLLM plugin module (``export-config --python``) for vllm serve
    parser.py   a config -> a composed vLLM Parser class
    plain.py    a config's data -> ParserEngineConfig and class, stdlib + vLLM only (pasted into exports)
"""
