"""A whole corpus of recordings: `workbench corpus` checks (or diffs) every one, on a
local process pool or on Ray, writes one results line per recording as it finishes,
and reports findings by kind, fixed in / new in per vLLM version.

``workbench.corpus(paths, ...)`` in a notebook is this package called: it runs the same
command, shows the report and returns a DataFrame (notebook.py).
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
