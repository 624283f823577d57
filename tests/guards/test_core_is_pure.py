"""workbench.core (and the widget-free ui logic) never import ipywidgets/IPython/anywidget;
workbench.lanes never loads the widget or the CLI; `import workbench` loads neither
ipywidgets nor vLLM. (Lazy imports inside functions: tests/guards/test_import_graph.py.)"""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import workbench.core

CHECK = """
import importlib, sys
for name in {modules!r}:
    importlib.import_module(name)
bad = sorted(m for m in sys.modules if m.split('.')[0] in ('ipywidgets', 'IPython', 'ipykernel', 'anywidget'){extra})
print(','.join(bad))
"""


def _fresh(modules: list[str], extra: str = "") -> str:
    out = subprocess.run([sys.executable, "-c", CHECK.format(modules=modules, extra=extra)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def package_modules(package) -> list[str]:
    return [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
            if not m.name.rsplit(".", 1)[-1].startswith("_")]


def core_modules() -> list[str]:
    return package_modules(workbench.core)


def test_core_never_imports_widgets():
    # Every core module, imported in a fresh interpreter (vLLM may load; widgets may not).
    assert _fresh(core_modules()) == ""


def test_ui_logic_and_other_layers_are_widget_free():
    assert _fresh(["workbench.ui", "workbench.ui.state", "workbench.ui.transitions", "workbench.ui.settings",
                   "workbench.ui.tools", "workbench.ui.runtime", "workbench.ui.controller", "workbench.ui.views",
                   "workbench.ui.what_runs", "workbench.ui.diagnose", "workbench.ui.inputs",
                   "workbench.ui.final", "workbench.ui.sources", "workbench.ui.recordings",
                   "workbench.check", "workbench.engine"]) == ""


def test_lanes_never_load_the_widget_or_the_cli():
    import workbench.lanes

    found = _fresh(package_modules(workbench.lanes),
                   extra=" or m.startswith(('workbench.ui', 'workbench.cli'))")
    assert found == ""


def test_import_workbench_is_cheap():
    # Lazy exports: neither ipywidgets nor vLLM at `import workbench`.
    assert _fresh(["workbench"], extra=" or m == 'vllm' or m.startswith('vllm.')") == ""


DEFERRED = """
import sys, workbench, jsonschema
from workbench.core import deferred
stand_in = type(sys.modules["rfc3987_syntax"]) is deferred._Deferred
checker = jsonschema.FormatChecker()
got = [checker.conforms(v, f) for v in ("http://ex.com/ä", "not an iri") for f in ("iri", "iri-reference")]
import rfc3987_syntax.syntax_helpers as real
want = [real.is_valid_syntax(t, v) for v in ("http://ex.com/ä", "not an iri") for t in ("iri", "iri_reference")]
print(stand_in, got == want, type(sys.modules["rfc3987_syntax"]) is deferred._Deferred)
"""


def test_jsonschemas_iri_grammar_is_compiled_only_when_used():
    # importing jsonschema (vLLM does, through mistral_common) leaves rfc3987_syntax's 38
    # grammars uncompiled; an IRI check then gives what the real module gives
    out = subprocess.run([sys.executable, "-c", DEFERRED], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "False"]
