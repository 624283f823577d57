"""Widget-free HTML: the table component in a page without a kernel.

page_table.py  records under a column schema (``core.rows.Column``) drawn by the widget's own
               table module and CSS (workbench/ui/static/table.js, table.css: read as files),
               inlined in the page; the corpus report (corpus/html.py) uses it
"""
