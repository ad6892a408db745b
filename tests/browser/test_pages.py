"""Every page in every language loads cleanly, offline, and within its weight budget;
its copy buttons copy its code blocks; a notebook page shows its executed outputs;
nothing on it stands out of the content column at 1280 px, no block of code on it
scrolls sideways there, and axe-core finds no serious violation, in both colour
schemes; one page of each kind is kept as screenshots in ``reports/screenshots/``,
light and dark, at 1280 and 375 px (kept by CI with the other reports).

A page passes when, on a first load, the console shows no error, no script throws,
every request succeeds (no 4xx/5xx, none aborted) and no request leaves localhost.
The bytes each page transfers are written to ``reports/page-weight.json`` and held to
a budget per kind of page, so that a heavy asset (a web font, a vendored library, a
huge picture) cannot sneak in.

Each page is opened once for all these tests (the ``tour`` fixture,
harness.visit_every_page): a page load is most of what they cost.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sybil import Document

from ptdocs import translations
from ptdocs.pages import Block, PageBlockParser
from ptdocs.report import write_atomically

from .harness import (
    AXE,
    DEFAULT_LANGUAGE,
    LANGUAGES,
    REPORTS,
    ROOT,
    SCHEMES,
    SCREENSHOTS,
    Site,
    screenshot_pages,
    switch_scheme,
)
from .interface_language import BILINGUAL, QUOTED, untranslated

# kB transferred on a first load, measured (reports/page-weight.json), with headroom. A
# page's own bytes (HTML, inline CSS, pictures: a notebook's plots are inline PNGs) have
# a budget per kind; what every page shares has one per folder: assets/ (Material's
# bundle, the notebooks' shared CSS of ptdocs/hooks/notebook_css.py, the search worker)
# and each language's search index (es/search/ apart; ptdocs/hooks/search.py keeps code
# out of it). A heavier page needs a reason, and a new number here (the reasons of
# today's: issues 12, 15 and 25 in this file's history). And a page keeps room: it uses
# at most ROOM of its kind's budget, to grow by 15 % before a budget has to be raised.
OWN_BUDGET_KB = {"home": 150, "guide": 300, "results": 250, "notebook": 400}
SHARED_BUDGET_KB = {"assets/": 400, "search/": 200}
ROOM = 0.85


def listed(title: str, items: list[str]) -> str:
    """A failure message: ``title``, then one item a line."""
    return f"{title}:\n" + "\n".join(items)


def write_report(name: str, measured: str, **figures) -> None:
    """reports/<name>, what was measured and the figures, as JSON."""
    text = json.dumps({"measured": measured, **figures}, indent=2, ensure_ascii=False)
    write_atomically(REPORTS / name, text + "\n")


def test_the_nav_of_each_language_reaches_every_built_page(site):
    """'Every page' below is every built page, and none is left out of the
    navigation."""
    languages = {Site.language(page) for page in site.pages}
    assert len(languages) >= 2, f"one language only: {languages}"
    for language in languages:
        home = Site.in_language("", language)
        mine = {page for page in site.pages if Site.language(page) == language}
        missing = sorted(mine - site.links(home))
        assert not missing, f"built {language} pages its nav misses: {missing}"


def test_every_page_loads_without_errors_offline_and_within_budget(site, tour):
    loads = {path: visit.load for path, visit in tour.items()}

    pages, shared = {}, {}
    for path, item in loads.items():
        own = 0
        for url, size in item.responses.items():
            relative = url.removeprefix(site.url)
            bare = Site.in_language(relative, DEFAULT_LANGUAGE)  # es/search/ -> search/
            folder = next(
                (name for name in SHARED_BUDGET_KB if bare.startswith(name)), 0
            )
            if folder == "search/":  # each language's index has a budget of its own
                folder = Site.in_language(folder, Site.language(relative))
            if folder:
                shared.setdefault(folder, {})[relative] = size
            else:
                own += size
        pages[path] = {
            "kind": site.kind(path),
            "total_kB": _kb(item.transferred),
            "own_kB": _kb(own),
            "own_budget_kB": OWN_BUDGET_KB[site.kind(path)],
            "requests": item.requests,
        }
    shared_kb = {
        folder: {
            "kB": _kb(sum(files.values())),
            "budget_kB": SHARED_BUDGET_KB[Site.in_language(folder, DEFAULT_LANGUAGE)],
            "files_kB": {name: _kb(size) for name, size in sorted(files.items())},
        }
        for folder, files in sorted(shared.items())
    }
    write_report(
        "page-weight.json",
        "bytes transferred on a first load (headers and encoded bodies; the browser's "
        "own request for the page's icon left out), Chromium via Playwright, site "
        "served by http.server (no compression)",
        pages=pages,
        shared=shared_kb,
    )
    problems = [
        f"/{path}: {bad}" for path, load in loads.items() for bad in load.problems
    ]
    assert not problems, listed("pages that do not load cleanly", problems)
    heavy, tight = [], []
    for path, weight in pages.items():
        own, budget = weight["own_kB"], weight["own_budget_kB"]
        if own > budget:
            heavy.append(f"/{path}: {own} kB > {budget} kB ({weight['kind']})")
        if own > ROOM * budget:
            tight.append(f"/{path}: {own} kB, over {ROOM:.0%} of {budget} kB")
    heavy += [
        f"{folder} (on every page): {weight['kB']} kB > {weight['budget_kB']} kB"
        for folder, weight in shared_kb.items()
        if weight["kB"] > weight["budget_kB"]
    ]
    assert not heavy, listed("over their budget (reports/page-weight.json)", heavy)
    assert not tight, listed("budgets without 15 % to spare (page-weight.json)", tight)


def test_the_weight_counts_each_file_whole(site, tour):
    """Every response is counted at least at the size of the built file it served: a
    body that the browser reports short (a worker's script, reported as its headers
    alone) is caught."""
    short = []
    for path, visit in tour.items():
        for url, size in visit.load.responses.items():
            relative = urlsplit(url).path.removeprefix(site.mount)
            file = site.folder / relative
            if relative == "" or relative.endswith("/"):
                file /= "index.html"
            built = file.stat().st_size if file.is_file() else 0
            if size < built:
                short.append(
                    f"/{path}: {relative or '/'}: {size} counted, {built} built"
                )
    assert not short, listed("responses counted short (bytes)", short)


# A guide's main path is short enough to finish (issue 25): at most this tall at the
# tour's width, depth one click away in collapsed blocks. Its words are held by
# tests/test_page_length.py.
GUIDE_HEIGHT_PX = 15_000


def test_a_guide_page_is_at_most_15000_px_tall_at_1280_px(site, tour):
    guides = [path for path in site.pages if site.kind(path) == "guide"]
    heights = {path: tour[path].height for path in guides}
    assert heights and all(height > 0 for height in heights.values()), heights
    tall = [f"/{path}: {px} px" for path, px in heights.items() if px > GUIDE_HEIGHT_PX]
    assert not tall, listed(
        f"guide pages over {GUIDE_HEIGHT_PX} px at 1280 px wide (put depth into a "
        'collapsed block, ??? note "...", or a page of its own)',
        tall,
    )


def _kb(size: int) -> float:
    return round(size / 1000, 1)


def source_of(page: str, suffix: str) -> Path:
    """docs/<language>/<name><suffix> for a built page ('es/autograd/' ->
    docs/es/autograd.md)."""
    bare = Site.in_language(page, DEFAULT_LANGUAGE).rstrip("/")
    return ROOT / "docs" / Site.language(page) / f"{bare or 'index'}{suffix}"


# --- copy button ---


def shown_blocks(markdown: Path) -> list[str]:
    """The code of each Python block of a page, as the snippets make it appear."""
    regions = Document.parse(str(markdown), PageBlockParser())
    blocks = [region.parsed for region in regions if isinstance(region.parsed, Block)]
    return [
        "\n".join(line for include in block.includes for line in include.shown).rstrip()
        for block in blocks
    ]


def test_each_copy_button_copies_exactly_its_own_block(site, tour):
    """Each button names the code of its own block and nothing else to copy; that
    code is the source's block; and a reader's click on the last button of each page
    puts exactly that code on the clipboard. As Material's clipboard handler is the
    same for every button and reads only what is checked here (see
    harness.PAGE_FACTS), every button copies exactly its own block. (The last button,
    not the first: a handler that copied the page's first block would pass there.)"""
    checked = 0
    for path, visit in tour.items():
        markdown = source_of(path, ".md")
        if not markdown.is_file():
            continue  # notebooks: their copy buttons are nbconvert's
        buttons = visit.copy_buttons
        for index, button in enumerate(buttons):
            assert button["own"], f"/{path}: button {index} names another block"
            assert button["other"] is None, f"/{path}: button {index}: {button}"
        if buttons:
            assert visit.clicked == buttons[-1]["block"], f"/{path}: last button"
        # Every Python block of the page's source, in order, is one button's copy.
        expected = shown_blocks(markdown)
        remaining = iter(button["block"] for button in buttons)
        missing = [code for code in expected if code not in remaining]
        assert not missing, f"/{path}: {markdown.name} block uncopied:\n{missing[0]}"
        checked += len(expected)
    assert checked, "no Python block found on any page"


# --- notebooks ---


def cells(notebook: Path, kind: str = "code") -> list[str]:
    """The source of each cell of ``kind`` (code, markdown) of a notebook."""
    found = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in found if cell["cell_type"] == kind]


def test_notebook_pages_show_their_executed_outputs_and_pictures(site, tour):
    notebooks = [path for path in site.pages if site.kind(path) == "notebook"]
    assert {Site.language(path) for path in notebooks} == set(LANGUAGES), notebooks
    pictured = set()
    for path in notebooks:
        # read after the page's load event: its pictures were loaded
        shown = tour[path].notebook
        code = cells(source_of(path, ".ipynb"))
        # No "In [1]:" prompts, English only in nbconvert (mkdocs.yml: no_prompt).
        prompts = [text.replace("\xa0", " ").strip() for text in shown["prompts"]]
        assert not [text for text in prompts if text], f"/{path}: {prompts}"
        outputs = [text for text in shown["outputs"] if text.strip()]
        assert outputs, f"/{path}: no executed output is shown"
        # Math is typeset (MathML: ptdocs/hooks/notebook_math.py), not left as $TeX$.
        raw = [text for text in shown["prose"] if re.search(r"\$[^\s$][^$]*\$", text)]
        assert not raw, f"/{path}: TeX shown as typed: {raw[0]!r}"
        for width, height in shown["formulas"]:
            assert width > 0 and height > 0, f"/{path}: a formula is not displayed"
        for index, (width, height, displayed) in enumerate(shown["pictures"]):
            assert min(width, height) > 0 and displayed > 100, f"/{path}: {index}"
        if shown["pictures"]:
            pictured.add(path)
        if any("matplotlib" in cell or "plt." in cell for cell in code):
            assert shown["pictures"], f"/{path}: it plots, but shows no picture"
    pictured_languages = {Site.language(path) for path in pictured}
    assert pictured_languages == set(LANGUAGES), f"pictures only on {sorted(pictured)}"


# --- screenshots ---


def test_screenshot_of_each_kind_of_page_in_each_language(site, tour):
    """The screenshots are taken during the tour (harness.visit_every_page)."""
    chosen, missing = screenshot_pages(site)
    for name, path in chosen.items():
        visit = tour[path]
        assert visit.lang == Site.language(path), f"/{path}: <html lang={visit.lang!r}>"
        assert visit.title, f"/{path}: no visible title"
        shots = visit.screenshots
        assert SCREENSHOTS / f"{name}.png" in shots, f"/{path}: no {name}.png"
        assert all(shot.is_file() for shot in shots), f"/{path}: {shots}"
        # Both schemes and widths: light at 1280 px is name.png, the others say which.
        expected = {f"{name}{end}.png" for end in ("", "-375", "-dark", "-dark-375")}
        assert expected <= {shot.name for shot in shots}, f"/{path}: {shots}"
    assert not missing, f"no page of these kinds was built: {missing}"


# --- the reader's language: no interface text left in English on a Spanish page ---


def test_no_english_interface_text_on_spanish_pages(tour):
    spanish = [path for path in tour if Site.language(path) == "es"]
    assert spanish, "no Spanish page was built"
    problems = []
    for path in spanish:
        twin = Site.in_language(path, DEFAULT_LANGUAGE)
        assert twin in tour, f"/{path}: no English twin /{twin}"
        found = untranslated(tour[path].interface, tour[twin].interface)
        problems += [
            f"/{path} {section}: {where} {text!r}"
            for where, text, section in found
            if (path, section) not in BILINGUAL and (path, text) not in QUOTED
        ]
    assert not problems, listed(
        f"{len(problems)} interface texts in English on Spanish pages (translate "
        "them, or add a word that is the same in both languages to SAME_IN_BOTH)",
        problems,
    )


def test_what_counts_as_an_untranslated_text():
    # Shown on both pages: names, numbers, a failure line and two English texts.
    both = [
        ["title", "Permanent link", "a"],
        ["text", "PyTorch", ""],
        ["text", "535 µs", "b"],
        ["text", "✗ rel_error 0.98 > 0.05", "b"],
        ["text", "Made with", ""],
        ["text", "Material for MkDocs", ""],
        ["text", "keras.io", ""],
    ]
    english = [*both, ["alt", "Plot", ""]]
    spanish = [*both[:4], ["alt", "Gráfica", "b"], *both[4:]]
    spanish.append(["title", "Permanent link", "c"])  # once only, in its first section
    assert untranslated(spanish, english) == [
        ("title", "Permanent link", "a"),
        ("text", "Made with", ""),
    ]


# --- layout: nothing wider than the content column at 1280 px ---


def test_nothing_stands_out_of_the_content_column_at_1280_px(tour):
    """In both colour schemes, the page does not scroll sideways, nothing stands out
    of the content column unless a box of its own scrolls it within the column's
    margins, tables fit the column (a notebook's output has a box of its own), and no
    block of code scrolls sideways, a notebook's input and output included (issue 25:
    shown code and what it prints are formatted to 88 columns, and ptdocs.css sizes
    code so that 88 columns fit). What is measured: harness.LAYOUT."""
    problems, blocks = [], 0
    for path, visit in tour.items():
        for scheme, layout in visit.layout.items():
            where = f"/{path} ({scheme})"
            width, viewport = layout["width"], layout["viewport"]
            if width > viewport:
                problems.append(f"{where}: the page is {width} px wide in {viewport}")
            problems += [f"{where}: {item}" for item in layout["outside"]]
            problems += [f"{where}: {item}" for item in layout["wide_tables"]]
            code = layout["scrolling_code"]
            problems += [f"{where}: scrolls sideways: {block}" for block in code]
            blocks += layout["code_blocks"]
    assert blocks > 0, "no block of code measured"
    assert not problems, listed("sideways overflow at 1280 px", problems)


# --- accessibility: axe-core on every page, both schemes ---

# axe's violations that are not the site's own, by rule and target: markup of Material's
# that the site does not write, each with the reason it stays. Kept small: anything else
# that axe calls serious or critical fails the test.
NOT_OURS = {
    # Material's search box is a role="dialog" without a name (partials/search.html);
    # the site does not override that partial, and a copy of it would have to follow
    # every Material release.
    ("aria-dialog-name", ".md-search"),
}
FAILING = {"serious", "critical"}


def test_no_serious_accessibility_violation_on_any_page_in_either_scheme(tour):
    figures = {scheme: {} for scheme in SCHEMES}
    problems = []
    for path, visit in tour.items():
        for scheme, violations in visit.axe.items():
            for bad in violations:
                impact, rule = bad["impact"], bad["rule"]
                by_impact = figures.setdefault(scheme, {})
                by_impact[impact] = by_impact.get(impact, 0) + bad["count"]
                ours = [at for at in bad["targets"] if (rule, at) not in NOT_OURS]
                if impact in FAILING and ours:
                    problems.append(
                        f"/{path} ({scheme}): {rule} ({impact}, {bad['count']}x) "
                        f"{bad['help']}: {ours[:3]} {bad['summary']}"
                    )
    light = {f"/{path}": visit.layout["light"] for path, visit in tour.items()}
    write_report(
        "accessibility.json",
        "axe-core (axe-playwright-python's axe.min.js) on every page at 1280 px, in "
        "each colour scheme; code blocks checked by one token of each kind "
        "(harness.AXE); nodes by impact, then every violation by page and scheme",
        nodes_by_impact=figures,
        not_ours=sorted(f"{rule} {target}" for rule, target in NOT_OURS),
        code_blocks_scrolling_sideways={
            path: [len(layout["scrolling_code"]), layout["code_blocks"]]
            for path, layout in light.items()
        },
        violations={
            f"/{path} ({scheme})": violations
            for path, visit in tour.items()
            for scheme, violations in visit.axe.items()
            if violations
        },
    )
    schemes = {scheme for visit in tour.values() for scheme in visit.axe}
    assert schemes == set(SCHEMES), "a scheme was not checked"
    assert not problems, listed(
        f"{len(problems)} serious or critical accessibility violations (see "
        "reports/accessibility.json)",
        problems,
    )


def test_the_tours_axe_run_finds_planted_colour_and_structure_violations(site, context):
    """The tour's axe script (harness.AXE) on a guide with a pale paragraph, a
    picture without alt text and a link told from its sentence by a colour barely
    different from the text's: in the light scheme it reports all three (the
    structure rules and the contrast of the marked looks run together), in the dark
    one the two colour rules alone; and it leaves no mark behind. The link's colour
    is the text's mixed a quarter of the way to the background, so it stays readable
    (color-contrast passes it) in either scheme: link-in-text-block alone fails it. A
    link of exactly the text's colour would not do: axe passes that (allowSameColor)."""
    from axe_playwright_python.base import AXE_FILE_PATH

    context.add_init_script(path=AXE_FILE_PATH)
    page = context.new_page()
    page.goto(site.page_url("autograd/"), wait_until="load")
    page.evaluate("""() => {
        const pale = document.createElement("p")
        pale.id = "planted-pale"
        pale.textContent = "A pale paragraph, planted by the test."
        pale.style.color = "#e8e8e8"
        pale.style.background = "#ffffff"
        const article = document.querySelector("article")
        article.append(pale)
        article.insertAdjacentHTML("beforeend", '<img id="planted-image" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">')
        const sentence = document.createElement("p")
        sentence.innerHTML = 'Plain words of a sentence, then <a id="planted-link" href="#">a link</a>, then more plain words.'
        const link = sentence.querySelector("a")
        link.style.color = "color-mix(in srgb, currentColor 75%, var(--md-default-bg-color))"
        link.style.textDecoration = "none"
        article.append(sentence)
    }""")
    found = {}
    for scheme in ("light", "dark"):
        switch_scheme(page, scheme)
        found[scheme] = {
            (violation["rule"], target)
            for violation in page.evaluate(AXE, scheme == "light")
            for target in violation["targets"]
        }
    colour = {
        ("color-contrast", "#planted-pale"),
        ("link-in-text-block", "#planted-link"),
    }
    assert colour | {("image-alt", "#planted-image")} <= found["light"]
    assert colour <= found["dark"]
    assert ("color-contrast", "#planted-link") not in found["light"] | found["dark"]
    assert "image-alt" not in {rule for rule, _ in found["dark"]}, "structure twice"
    assert page.locator("[data-ptdocs-look]").count() == 0


# --- the lesson first ---

# The first screen of a laptop and of a phone (issue 25).
FIRST_SCREENS = {"laptop": (1280, 800), "phone": (375, 667)}
# What stands between a page's title and its introduction (the paragraph that starts
# with the first words of the one under the title in its source), and where that
# paragraph is. Admonitions and collapsed blocks are named by their title. And, wherever
# they are in the page's HTML (not only between the two), the download buttons, download
# boxes and verification stamp that come before the introduction: they close the page
# (ptdocs/hooks/downloads.py, notebooks.py, stamp.py).
AFTER_THE_LESSON = "a[download], .ptdocs-downloads, .ptdocs-stamp"
FIRST_SCREEN = """start => {
    const title = document.querySelector("article h1")
    if (!title) return null
    const words = element => element.innerText.replace(/\\s+/g, " ").trim()
    const before = []
    let element = title.nextElementSibling
    for (; element && !(element.tagName === "P" && words(element).startsWith(start)); element = element.nextElementSibling)
        before.push(element.querySelector(".admonition-title, summary")?.innerText.trim()
                    ?? element.tagName.toLowerCase() + "." + [...element.classList].join(".") + " " + words(element).slice(0, 40))
    if (!element) return {before, top: null}
    const intro = element
    const ahead = [...document.querySelectorAll($AFTER_THE_LESSON)]
        .filter(item => item.compareDocumentPosition(intro) & Node.DOCUMENT_POSITION_FOLLOWING)
        .map(item => item.tagName.toLowerCase() + "." + [...item.classList].join(".") + " " + words(item).slice(0, 40))
    const box = element.getBoundingClientRect()
    return {before, ahead, top: Math.round(box.top), bottom: Math.round(box.bottom), screen: innerHeight,
            intro: words(element).slice(0, 60)}
}""".replace("$AFTER_THE_LESSON", json.dumps(AFTER_THE_LESSON))


def intro_start(path: str) -> str:
    """The first words of a page's introduction, the paragraph under its title, from
    its source (a notebook's: its Markdown cells)."""
    markdown = source_of(path, ".md")
    if markdown.is_file():
        text = markdown.read_text(encoding="utf-8")
    else:
        text = "\n\n".join(cells(source_of(path, ".ipynb"), "markdown"))
    if text.startswith("---\n"):
        text = text.split("\n---\n", 1)[1]
    lines = text.split("\n")
    title = next(index for index, line in enumerate(lines) if line.startswith("# "))
    first = next(line for line in lines[title + 1 :] if line.strip())
    return " ".join(re.sub(r"[`*_\[\]]", "", first).split()[:3])


@pytest.mark.usefixtures("empty_search_index")
def test_every_page_opens_with_its_lesson_on_the_first_screen(site, page):
    """At 1280x800 and at 375x667, in every language, on every page (home, guides,
    results, notebooks): nothing comes between a page's title and its introduction
    (no stamp, no downloads, no test command, no admonition), no download button or
    verification stamp comes before it anywhere in the page, and the whole
    introduction is on the first screen. The one exception is a translation's
    out-of-date notice, which the reader must see first: after it, the introduction
    still begins on the first screen."""
    pages = site.pages
    assert {"home", "guide", "notebook"} <= {site.kind(path) for path in pages}
    # The notice on a translation that lags its English page, in every language: a
    # warning the reader must see before reading, as a failing example's is.
    notices = {words["outdated_title"] for words in translations.MESSAGES.values()}
    problems = []
    for name, (width, height) in FIRST_SCREENS.items():
        page.set_viewport_size({"width": width, "height": height})
        for path in pages:
            page.goto(site.page_url(path), wait_until="load")
            seen = page.evaluate(FIRST_SCREEN, intro_start(path))
            where = f"/{path} ({name}, {width}x{height})"
            if seen is None or seen["top"] is None:
                start = intro_start(path)
                problems.append(
                    f"{where}: no title, or no paragraph {start!r}... below"
                )
                continue
            others = [item for item in seen["before"] if item not in notices]
            screen = f"below the first screen ({seen['screen']} px)"
            if others:
                problems.append(f"{where}: before the introduction: {others}")
            elif seen["ahead"]:
                problems.append(f"{where}: downloads or stamp first: {seen['ahead']}")
            elif seen["before"] and seen["top"] >= seen["screen"]:
                problems.append(
                    f"{where}: after the out-of-date notice, the introduction starts "
                    f"at {seen['top']} px, {screen}"
                )
            elif not seen["before"] and seen["bottom"] > seen["screen"]:
                problems.append(
                    f"{where}: the introduction ends at {seen['bottom']} px, {screen}: "
                    f"{seen['intro']!r}..."
                )
    assert not problems, listed("pages that do not open with their lesson", problems)


# --- titles ---


def test_every_page_title_is_page_then_site_in_its_language(site):
    """The <title> of every page, the home pages included, is "Page - Site", in the
    page's language (Material writes the site's name alone on the default language's
    home page: overrides/main.html)."""
    import mkdocs.config

    config = mkdocs.config.load_config(str(ROOT / "mkdocs.yml"))
    names, homes = {}, {}
    for language in config["plugins"]["i18n"].config.languages:
        names[language.locale] = language.site_name or config["site_name"]
        home = (language.nav_translations or {}).get("Home", "Home")
        homes[language.locale] = f"{home} - {names[language.locale]}"
    wrong = []
    for path in site.pages:
        language = Site.language(path)
        title = re.search(r"<title>(.*?)</title>", site.html(path), re.S)[1].strip()
        expected = homes[language] if site.kind(path) == "home" else None
        if not title.endswith(f" - {names[language]}") or expected not in (None, title):
            wrong.append(f"/{path}: {title!r}, not {expected or 'Page - Site'!r}")
    assert not wrong, listed("titles not of the form 'Page - Site'", wrong)
