"""The writing door: every text the workbench writes for a person passes the encoder of
its medium, as every input passes the reading door (``core/door.py``).

terminal.py   a value shown in a terminal: C0, C1, ESC, DEL, bidi overrides and line
              separators shown escaped, a newline in a value never ends a line; ``say``
              (a line from a constant template), the door's rich ``Console`` and ``Table``,
              ``Stream`` (stdout and stderr of the CLI: what escaped every value, escaped again)
jsontext.py   JSON for stdout and files: strict, and no control or bidi character raw
markdown.py   a report: inline text and table cells escaped (no markup, no raw HTML),
              code spans and fences longer than any backtick run in their content
html.py       a page: text and attributes escaped, JSON inside ``<script>`` with ``<``,
              ``>``, ``&`` and U+2028/9 escaped
command.py    a command line to paste: every word quoted (shlex; bash's $'...' for a control
              character), ``NAME=value`` words first
python.py     generated Python (exported tests): values as literals, comments and
              docstrings that cannot close, the file parsed with ``ast`` before it is written

``tests/core/writing/test_door.py`` checks with ``ast`` that nothing else writes for a person.
"""
