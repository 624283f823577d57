"""One copy of each front-end module (table, editor, diagram) per kernel, not one per widget.

anywidget syncs ``_esm`` and ``_css`` as traits of every instance, so each table carried
its own 33 KB of table.js and each workbench's editor its own 323 KB CodeMirror bundle.
A reloaded page gets every live widget's state in one ``request_states`` answer, which
JupyterLab's widget manager waits 4 s for (tests/ui/test_browser.py's look notebook: 2.6 MB,
half of it four copies of the editor). Here a ``Module`` widget carries a module's code
and CSS once; every instance's ``_esm`` is a stub of a few hundred bytes that waits for
that module in the page (keyed by the code's hash) and hands anywidget its default export.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import anywidget
import traitlets as T

# The page's modules by key; a slot is a promise that the Module resolves with the module.
_SLOTS = """const slots = (globalThis.__workbenchModules ??= {});
const slot = (key) => slots[key] ??= (() => { let resolve;
  const p = new Promise((r) => { resolve = r; }); p.resolve = resolve; return p; })();
"""

LOADER = _SLOTS + """export default {
  async initialize({ model }) {
    const key = model.get("key");
    if (!document.getElementById(key) && model.get("css")) {
      const style = Object.assign(document.createElement("style"), { id: key, textContent: model.get("css") });
      document.head.appendChild(style);
    }
    const url = URL.createObjectURL(new Blob([model.get("code")], { type: "text/javascript" }));
    try { slot(key).resolve(await import(/* webpackIgnore: true */ url)); } finally { URL.revokeObjectURL(url); }
  },
};
"""

STUB = _SLOTS + """export default async () => {
  const d = (await slot("{key}")).default;
  return typeof d === "function" ? await d() : d;
};
"""


class Module(anywidget.AnyWidget):
    """A module's code and CSS, sent once; never displayed."""

    _esm = LOADER
    key = T.Unicode("").tag(sync=True)
    code = T.Unicode("").tag(sync=True)
    css = T.Unicode("").tag(sync=True)


class Shared:
    """``esm``: the stub a widget class sets as its ``_esm``; ``ensure()`` before each
    instance opens its comm, so the page has the ``Module`` first (a new one when the
    last was closed, e.g. by ``Widget.close_all()``)."""

    def __init__(self, code: str, css: str = "") -> None:
        self.code, self.css = code, css
        self.key = "wb-module-" + hashlib.sha256((code + "\0" + css).encode()).hexdigest()[:16]
        self.esm = STUB.replace("{key}", self.key)
        self.module: Module | None = None

    @classmethod
    def of(cls, esm: Path, css: Path | None = None) -> Shared:
        return cls(esm.read_text(encoding="utf-8"), css.read_text(encoding="utf-8") if css else "")

    def ensure(self) -> Module:
        if self.module is None or self.module.comm is None:
            self.module = Module(key=self.key, code=self.code, css=self.css)
        return self.module
