"""mkdocs hook: a page under docs/ that mkdocs.yml's nav does not name is listed under
"More pages" at the end of the nav, so a page that lands before its nav line is still
reachable (and a nav line for a page that does not exist still fails the strict build)."""

from __future__ import annotations

from mkdocs.structure.nav import Section


def on_nav(nav, config, files):  # noqa: ANN001, ANN201 (mkdocs' hook signature)
    named = {id(page) for page in nav.pages}
    extra = sorted((f.page for f in files.documentation_pages() if f.page is not None and id(f.page) not in named),
                   key=lambda page: page.file.src_uri)
    if not extra:
        return nav
    section = Section("More pages", extra)
    for page in extra:
        page.parent = section
    nav.items.append(section)
    nav.pages.extend(extra)
    for before, page in zip(nav.pages, nav.pages[1:]):
        before.next_page, page.previous_page = page, before
    return nav
