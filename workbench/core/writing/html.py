"""Text for an HTML page (the corpus report, a page's tables: ``pages/page_table.py``).

``text`` is a value in an element or an attribute (quotes escaped too; bidi controls
shown escaped, since a browser reorders text by them). ``script_json`` is data inside a
``<script type="application/json">``: the HTML parser reads a script's text before JSON
does, so ``<`` (``</script>``, ``<!--``), ``>`` and ``&`` are escaped as ``\\u003c``
and the like, and U+2028/9 too (JavaScript source until ES2019); ``script_code`` is our
own JavaScript inlined, with ``</`` and ``<!--`` broken the same way.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from workbench.core.writing import jsontext, terminal

if TYPE_CHECKING:
    from typing import Any

_IN_SCRIPT = re.compile("[<>&\u2028\u2029]")


def text(value: object) -> str:
    """``value`` as HTML text or a quoted attribute's value."""
    return html.escape(terminal.layout("" if value is None else str(value)), quote=True)


def script_json(value: Any) -> str:
    """``value`` as JSON text that no HTML parser ends or comments out inside ``<script>``."""
    return _IN_SCRIPT.sub(lambda m: f"\\u{ord(m.group()):04x}", jsontext.dumps(value))


def script_code(source: str) -> str:
    """Our own JavaScript inside ``<script>``: ``</`` and ``<!--`` cannot end or hide it."""
    return source.replace("</", "<\\/").replace("<!--", "<\\!--")
