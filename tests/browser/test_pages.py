"""Every page in every language loads cleanly, offline, and within its weight budget.

A page passes when, on a first load, the console shows no error, no script
throws, every request succeeds (no 4xx/5xx, none aborted) and no request leaves
localhost. The bytes each page transfers are written to
``reports/page-weight.json`` and held to a budget per kind of page, so that a
heavy asset (a web font, a vendored library, a huge picture) cannot sneak in.
"""

from __future__ import annotations

import json

from ptdocs.report import write_atomically

from .harness import DEFAULT_LANGUAGE, REPORTS, Site, load

# kB transferred on a first load, measured (see reports/page-weight.json) and
# given headroom for the pages to grow. A page's own bytes (its HTML, inline
# CSS and pictures) have a budget per kind: a notebook page carries nbconvert's
# ~600 kB of inline CSS and its plots as inline PNGs. What every page shares,
# the theme's assets and the search indexes (each language's pages share its
# own, es/search/ for Spanish: ptdocs/hooks/search.py), has one budget per
# folder. A heavier page needs a reason, and a new number here.
# Guides 250 -> 300 kB and search 600 -> 800 kB: the expert review of issue 12 added the topics a
# reader of each guide expects (tensors: 14 sections; measuring: compile, profiler, autocast, cost
# per accepted result), about twice the code per page; the measuring page is the heaviest guide
# (about 280 kB, of which highlighted code is three quarters), after dropping the per-line code
# anchors (93 kB) and the raw metadata listing (35 kB).
OWN_BUDGET_KB = {"home": 150, "guide": 300, "results": 250, "notebook": 1500}
SHARED_BUDGET_KB = {"assets/": 400, "search/": 800}


def test_the_nav_of_each_language_reaches_every_built_page(site):
    """'Every page' below is every built page, and none is left out of the navigation."""
    languages = {Site.language(page) for page in site.pages}
    assert len(languages) >= 2, f"one language only: {languages}"
    for language in languages:
        home = Site.in_language("", language)
        mine = {page for page in site.pages if Site.language(page) == language}
        missing = mine - site.links(home)
        assert not missing, f"built {language} pages that its home page's nav does not reach: {sorted(missing)}"


def test_every_page_loads_without_errors_offline_and_within_budget(site, page):
    loads = {path: load(page, site.page_url(path)) for path in site.pages}

    pages, shared = {}, {}
    for path, item in loads.items():
        own = 0
        for url, size in item.responses.items():
            relative = url.removeprefix(site.url)
            bare = Site.in_language(relative, DEFAULT_LANGUAGE)  # es/search/... -> search/...
            folder = next((name for name in SHARED_BUDGET_KB if bare.startswith(name)), None)
            if folder:
                shared.setdefault(folder, {})[relative] = size
            else:
                own += size
        pages[path] = {"kind": site.kind(path), "total_kB": _kb(item.transferred), "own_kB": _kb(own),
                       "own_budget_kB": OWN_BUDGET_KB[site.kind(path)], "requests": item.requests}
    shared_kb = {folder: {"kB": _kb(sum(files.values())), "budget_kB": SHARED_BUDGET_KB[folder],
                          "files_kB": {name: _kb(size) for name, size in sorted(files.items())}}
                 for folder, files in sorted(shared.items())}
    write_atomically(REPORTS / "page-weight.json", json.dumps(
        {"measured": "bytes transferred on a first load (headers and encoded bodies), "
                     "Chromium via Playwright, site served by http.server (no compression)",
         "pages": pages, "shared": shared_kb}, indent=2, ensure_ascii=False) + "\n")

    problems = [f"/{path}: {problem}" for path, item in loads.items() for problem in item.problems]
    assert not problems, "pages that do not load cleanly:\n" + "\n".join(problems)
    heavy = [f"/{path}: {weight['own_kB']} kB > {weight['own_budget_kB']} kB ({weight['kind']})"
             for path, weight in pages.items() if weight["own_kB"] > weight["own_budget_kB"]]
    heavy += [f"{folder} (on every page): {weight['kB']} kB > {weight['budget_kB']} kB"
              for folder, weight in shared_kb.items() if weight["kB"] > weight["budget_kB"]]
    assert not heavy, "pages over their weight budget (see reports/page-weight.json):\n" + "\n".join(heavy)


def _kb(size: int) -> float:
    return round(size / 1000, 1)
