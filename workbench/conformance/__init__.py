"""A conformance matrix: shipped cases (``parsers/cases/<parser>/<case>.toml``), each a model
output with the answer a client should get, run over vLLM versions, frontends, APIs and
groupings. A middle floor like corpus: it may use core, check, engine, lanes, rustfe,
capture and corpus, never ui or cli. ``workbench.matrix(...)`` in a notebook is
ui/matrix_view.py over this package (`workbench matrix` is the command).

    expect.py       each case's non-streaming answer on one version, a session per shared setting
    cases.py        the case files: load_cases (files, folders, globs), answer_of, compare; the
                    taxonomy, the named tool sets and the known divergences (load_divergences, allowed)
    sources.py      what `workbench matrix CASES...` reads: case files and ai-dynamo fixture files
    dynamo.py       ai-dynamo's fixtures-stream-v2 YAML: load as cases, export our cases as fixtures
    runs.py         where a cell runs: in this process, a lane's replay, or vllm-rs; its outcome
    rust_names.py   the parser names a vllm-rs registers, asked of the binary
    cells.py        a cell's verdict (match, differs, stream≠nonstream, error, n/a), names, --against, --require
    task.py         one (case, version, frontend) on a pool or Ray worker: all its APIs x groupings
    run.py          a run: groupings made concrete, recordings for replay, the tasks on the corpus's pool or Ray
    pyrs.py         Python against Rust: parser names per frontend and version, agreement per case
    html.py         the matrix as one static page: summary, filters, a cell's first divergent step
"""

from __future__ import annotations
