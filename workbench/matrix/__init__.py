"""A conformance matrix: shipped cases (``parsers/cases/<parser>/<case>.toml``), each a model
output with the answer a client should get, run over vLLM versions, frontends, APIs and
groupings. A middle floor like corpus: it may use core, check, engine, lanes, rustfe,
capture and corpus, never ui or cli.

    expect.py       each case's non-streaming answer on one version, a session per shared setting
    cases.py        the case files: load_cases (files, folders, globs), answer_of, compare; the
                    taxonomy, the named tool sets and the known divergences (load_divergences, allowed)
"""
