"""A whole corpus of recordings: `workbench corpus` checks (or diffs) every one, on a
local process pool or on Ray, writes one results line per recording as it finishes,
and reports findings by kind, fixed in / back in / new in per vLLM version.

``workbench.corpus(paths, ...)`` in a notebook is this package called: it runs the same
spec, shows the report and returns a DataFrame (notebook.py). Every recording runs
through the core (``runs.on_spec`` on a ``RunSpec``), never the command line.

    files.py        which recordings a run covers (folders, files, globs; each once, stable order)
    spec.py         what every recording gets: one RunSpec and check's (or diff's) options, the files; the --resume key
    task.py         one recording, the worker side: its bytes -> its results line
    run.py          a run: find, skip what --resume has, run on the pool or Ray, write each line
    pool.py         the local process pool (forked workers, one recording each at a time)
    ray_runner.py   the same tasks on Ray: an actor per CPU, one call per recording
    results.py      the results file: one JSON line per recording, flushed
    progress.py     done / total, findings so far, rate, ETA
    summary.py      the report as data: findings by kind x version, smallest examples, errors
    html.py         the report as one self-contained page (its tables: pages/page_table.py)
    notebook.py     workbench.corpus(...): progress bar and report in the cell, a DataFrame back
    synth.py        --synth N -o DIR: recordings to try a run on
    scenarios.py    model output in each family's own markup, for synth and tests
"""

from __future__ import annotations

import sys
import types


class _CallableModule(types.ModuleType):
    # `workbench.corpus` is both this package and the notebook call the issue names:
    # importing a submodule binds the package to that attribute, so the package itself calls.
    def __call__(self, *paths, **options):
        from workbench.corpus.notebook import corpus

        return corpus(*paths, **options)


sys.modules[__name__].__class__ = _CallableModule
