"""``workbench.table(data)``: a DataFrame (or records) in the widget's own table, for a
notebook's output where a column holds JSON, a verdict or prose. A raw DataFrame cuts such a
cell to pandas' ``max_colwidth`` and runs its last columns off a 1000 px notebook; this
table gives each column its natural width and wraps what does not fit between words
(``flow``), so every value is whole on screen, and keeps the table's own keys (j/k,
shift-click, Ctrl+C copies the rows' JSON) and resizable, hideable columns.

Each column is drawn by what it holds: numbers right-aligned; lists and dicts as JSON
(``", "`` between items, so it wraps); text whose whitespace matters (a delta's ``"\\n\\n"``,
leading or trailing spaces) with its whitespace shown (␣, \\n); any other text as prose, ␣-free.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from numbers import Number
from typing import TYPE_CHECKING, Any

from workbench.core.rows import LABEL, NUMBER, TEXT, Column
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.ui.table import RecordTable

KEY = "_n"  # the records' own key (1, 2, ...): never a column of the data


def _missing(v: Any) -> bool:
    if v is None:
        return True
    try:
        return isinstance(v, float) and math.isnan(v)
    except TypeError:
        return False


def _plain(v: Any) -> Any:
    """numpy scalars and arrays as Python values (JSON-able)."""
    import numpy as np

    if isinstance(v, (np.ndarray, np.generic)):
        return v.tolist()
    return v


def _raw(v: Any) -> Any:
    """A value for Ctrl+C's JSON: lists and dicts as they are, a missing one null."""
    v = _plain(v)
    if _missing(v):
        return None
    return sorted(v, key=str) if isinstance(v, (set, frozenset)) else v


def _is_json(v: Any) -> bool:
    return isinstance(v, (list, tuple, dict, set, frozenset))


def _significant(s: str) -> bool:
    """Whitespace that matters in a value: all of it, or at either end (a delta's "\\n\\n",
    " is"); a newline inside prose (a verdict quoting one) is prose's."""
    return s != s.strip()


def shown(v: Any) -> Any:
    """A value as the table draws it: JSON for a list or dict, the number or text as it is."""
    v = _plain(v)
    if _missing(v):
        return None
    if isinstance(v, (set, frozenset)):
        v = sorted(v, key=str)
    if _is_json(v):
        return json.dumps(v, ensure_ascii=False, default=str)
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, Number):
        return v
    return str(v)


def column(name: str, values: list[Any], title: str | None = None) -> Column:
    """One column's schema from its values (see the module's docstring)."""
    present = [_plain(v) for v in values if not _missing(_plain(v))]
    get = (lambda r, name=name: r.get(name))
    title = str(name) if title is None else title
    if present and all(isinstance(v, Number) and not isinstance(v, bool) for v in present):
        return Column(name, title, title, get, NUMBER, width=48, grow=0, fit=160)
    if any(_is_json(v) for v in present):
        return Column(name, title, f"{title} (JSON)", get, LABEL, width=160, grow=2, fit=480)
    texts = [str(v) for v in present]
    if any(_significant(t) for t in texts):
        return Column(name, title, f"{title} (␣ a space, \\n a newline)", get, TEXT, width=80, grow=1, fit=480)
    longest = max((len(t) for t in texts), default=0)
    # a short name or flag stays on one line; prose (a verdict, a note) wraps between words
    return Column(name, title, title, get, LABEL, width=48, grow=0 if longest <= 24 else 1.5, fit=480)


def _rows(data: Any) -> tuple[list[str], list[dict], None]:
    """(column names, one dict per row): a frame's index first unless it is 0, 1, ..."""
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        names = [str(c) for c in data.columns]
        if len(set(names)) != len(names):
            raise WorkbenchError(f"workbench.table: the frame's column names repeat: {names}")
        rows = [dict(zip(names, r)) for r in data.itertuples(index=False, name=None)]
        index = list(data.index)
        if index == list(range(len(index))):
            return names, rows, None
        label = str(data.index.name) if data.index.name is not None else "index"
        return [label, *names], [{label: i, **r} for i, r in zip(index, rows)], None
    if isinstance(data, Mapping) or isinstance(data, (str, bytes)) or not isinstance(data, Iterable):
        raise WorkbenchError(f"workbench.table: a DataFrame or a list of dicts, not {type(data).__name__}")
    rows = list(data)
    if not all(isinstance(r, Mapping) for r in rows):
        raise WorkbenchError("workbench.table: every row must be a dict (column -> value)")
    names: list[str] = []
    for r in rows:
        names += [str(k) for k in r if str(k) not in names]
    return names, [{str(k): v for k, v in r.items()} for r in rows], None


def table(data: Any, *, height: int = 400, role: str = "table") -> RecordTable:
    """``data`` (a pandas DataFrame, or a list of dicts) in the widget's table: each column at
    its natural width, JSON, verdicts and prose wrapped between words, nothing cut. A frame's
    index is its first column unless it is 0, 1, ...; ``height``: px before the rows scroll;
    ``role``: the name the browser keeps the column widths under (per notebook)."""
    from workbench.ui.inputs import check_height
    from workbench.ui.table import RecordTable

    names, rows, _ = _rows(data)
    # the front end names a column's cells by a CSS class: a name as a word of its own
    safe: dict[str, str] = {}
    for n in names:
        word = re.sub(r"\W", "_", n) or "_"
        while word in safe.values() or word == KEY:
            word += "_"
        safe[n] = word
    columns = [column(safe[n], [r.get(n) for r in rows], title=n) for n in names]
    t = RecordTable(columns, height=check_height(height), role=role, key=KEY, follow=False, flow=True)
    t.set_records([{KEY: i, **{safe[n]: v for n in names if (v := shown(r.get(n))) is not None}}
                   for i, r in enumerate(rows, 1)])
    # Ctrl+C: the rows' JSON under the data's own column names
    t.copy_text = lambda keys: "".join(json.dumps({n: _raw(rows[k - 1].get(n)) for n in names}, ensure_ascii=False,
                                                  default=str) + "\n" for k in keys if 0 < k <= len(rows))
    return t
