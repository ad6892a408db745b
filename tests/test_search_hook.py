"""One search index per language (ptdocs/hooks/search.py): the split, the page's
base, the build."""

import json
import re
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urljoin

import pytest
from jinja2.utils import htmlsafe_json_dumps

from ptdocs import results
from ptdocs.hooks import search

CONFIG = {
    "lang": ["en", "es"],
    "separator": "[\\s\\-]+",
    "pipeline": ["stopWordFilter"],
    "fields": {"title": {"boost": 1000.0}},
}


def _doc(location, title, text, **more):
    return {"location": location, "title": title, "text": text, **more}


def _without(mapping, key):
    return {k: v for k, v in mapping.items() if k != key}


# A combined index as mkdocs-static-i18n leaves it: both languages, locations from root.
COMBINED = {
    "config": CONFIG,
    "docs": [
        _doc("", "Home", "gradient"),
        _doc("autograd/", "Autograd", "gradient"),
        _doc("autograd/#leaves", "Leaves", "leaf tensors"),
        _doc("estimates/", "Estimates", "an English page whose name starts with es"),
        _doc("es/", "Inicio", "gradiente"),
        _doc("es/autograd/", "Autograd", "gradiente"),
        _doc("es/autograd/#hojas", "Hojas", "tensores hoja", boost=2),
    ],
}


def _locations(index):
    return [doc["location"] for doc in index["docs"]]


def test_each_language_gets_its_own_pages_with_its_own_lunr_language():
    split = search.split_index(COMBINED, "en", ["es"])
    assert set(split) == {"en", "es"}
    english = _locations(split["en"])
    assert english == ["", "autograd/", "autograd/#leaves", "estimates/"]
    # Relative to es/, where Spanish pages resolve them (their config.base).
    assert _locations(split["es"]) == ["", "autograd/", "autograd/#hojas"]
    assert split["en"]["config"]["lang"] == ["en"]
    assert split["es"]["config"]["lang"] == ["es"]
    # The rest of an entry and of the config is kept as the search plugin wrote it.
    hojas = {**COMBINED["docs"][-1], "location": "autograd/#hojas"}
    assert split["es"]["docs"][2] == hojas
    for index in split.values():
        assert _without(index["config"], "lang") == _without(CONFIG, "lang")


def test_the_split_leaves_the_combined_index_as_it_was():
    before = json.dumps(COMBINED, sort_keys=True)
    search.split_index(COMBINED, "en", ["es"])
    assert json.dumps(COMBINED, sort_keys=True) == before


def _page(base, translations="Escriba para buscar"):
    """A page as Material writes it: its config through Jinja's tojson (HTML-safe)."""
    config = dict(base=base, features=["search.highlight"], search="../../assets/w.js")
    config["translations"] = {"search.result.none": translations}
    return (
        '<html><head></head><body><script id="__config" type="application/json">'
        + str(htmlsafe_json_dumps(config))
        + '</script><script src="../../assets/b.js"></script></body></html>'
    )


def _config(html):
    script = r'<script id="__config" type="application/json">(.*?)</script>'
    return json.loads(re.search(script, html).group(1))


SPANISH_PAGES = [
    ("es/", ".."),
    ("es/autograd/", "../.."),
    ("es/exercises/derivatives/", "../../.."),
]


@pytest.mark.parametrize("page, base", SPANISH_PAGES)
def test_a_spanish_page_resolves_its_base_to_the_spanish_root(page, base):
    config = _config(search.with_language_base(_page(base), "es"))
    # As Material's bundle does: new URL(config.base, location), then search/...json.
    root = urljoin(f"http://site/{page}", config["base"])
    assert root == "http://site/es/"
    index = "search/search_index.json"
    assert urljoin(root, index) == "http://site/es/" + index
    assert urljoin(root, "autograd/#hojas") == "http://site/es/autograd/#hojas"
    assert _without(config, "base") == _without(_config(_page(base)), "base")


def test_the_rewritten_config_stays_safe_inside_its_script_element():
    closing = "</script><b>x</b>"
    html = search.with_language_base(_page("..", translations=closing), "es")
    closed = "a string of the config closed the script element"
    assert html.count("</script>") == 2, closed
    assert _config(html)["translations"]["search.result.none"] == closing


def test_a_page_without_materials_config_is_a_clear_error():
    with pytest.raises(search.SearchIndexError, match="__config"):
        search.with_language_base("<html><body></body></html>", "es")


# --- what Material indexes


def _material_index(html: str, title="Page") -> list[dict]:
    """``html`` as Material's search plugin indexes a page's content: its entries."""
    from material.plugins.search.plugin import SearchIndex

    index = SearchIndex(lang=["en"], separator="[\\s\\-]+", pipeline=[], fields={})
    page = SimpleNamespace(content=html, toc=[], url="page/", meta={}, title=title)
    index.add_entry_from_context(page)
    return index.entries


# A guide's code block as pymdownx.highlight writes it, then notebook cells as nbconvert
# and mkdocs-jupyter write them: heading permalink, prompt, copy button and the text it
# copies, code and output.
PAGE = """<p>Call <code>unsqueeze</code> to add a dimension.</p>
<div class="highlight"><pre><span></span><code><span class="n">x</span><span class="o">.</span><span class="n">unsqueeze</span>
<span class="c1"># &gt; tensor([[1]])</span></code></pre></div>
<div class="jp-Cell"><div class="jp-InputPrompt jp-InputArea-prompt">
</div><div class="jp-RenderedMarkdown"><h1 id="paso">Paso y tolerancias<a class="anchor-link" href="#paso">¶</a></h1>
<p>La tabla usa el paso.</p></div></div>
<div class="jp-Cell jp-CodeCell"><div class="jp-InputPrompt jp-InputArea-prompt">In\xa0[1]:</div>
<div class="zeroclipboard-container"><clipboard-copy for="cell-1"><span class="notice" hidden="">Copied!</span>
</clipboard-copy></div><div class="highlight-ipynb hl-python"><pre>y = 2</pre></div>
<div class="clipboard-copy-txt" id="cell-1">y = 2</div><div class="jp-OutputArea-child">
<div class="jp-OutputPrompt jp-OutputArea-prompt">Out[1]:</div>
<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="text/plain"><pre>2</pre></div>
</div></div>"""


def test_code_outputs_and_notebook_chrome_stay_on_the_page_but_out_of_the_index():
    before = _material_index(PAGE)
    assert any(e["title"].endswith("¶") for e in before), "the case this guards against"
    assert "y = 2" in " ".join(entry["text"] for entry in before)
    marked = search.kept_out_of_search(PAGE)
    # The reader's page keeps every element, only gaining Material's exclusion attribute.
    assert marked.replace(" data-search-exclude", "") == PAGE
    assert marked.count("data-search-exclude") == 9
    assert search.kept_out_of_search(marked) == marked, "marked twice"
    entries = _material_index(marked)
    assert [entry["title"] for entry in entries] == ["Page", "Paso y tolerancias"]
    text = " ".join(entry["text"] for entry in entries)
    left_out = ["¶", "In\xa0[1]", "Out[1]", "Copied!", "y = 2", "tensor([[1]])"]
    for words in [*left_out, "x.unsqueeze", "<pre>"]:
        assert words not in text, words
    # The prose, inline code included, is what search finds.
    assert "Call <code>unsqueeze</code> to add a dimension." in text
    assert "La tabla usa el paso." in text


def test_only_code_outputs_and_notebook_chrome_are_marked():
    others = (
        '<a class="headerlink" href="#a">¶</a><a class="anchor-links">x</a>'
        '<div class="jp-InputPrompts">y</div><span class="anchor-link">z</span>'
        '<code class="highlight">inline</code><div class="highlighted">w</div>'
    )
    assert search.kept_out_of_search(others) == others


def _nav_page(label, heading, meta=None):
    toc = SimpleNamespace(items=[SimpleNamespace(title=heading)]) if heading else None
    return SimpleNamespace(title=label, toc=toc, meta=meta if meta is not None else {})


def test_a_menu_label_the_title_does_not_say_becomes_a_search_tag():
    title = "Measuring PyTorch: setup, computation and useful throughput"
    page = _nav_page("Measuring performance", title)
    search.with_menu_words(page)
    assert page.meta == {"tags": ["Measuring performance"]}
    entries = _material_index("<h1 id='m'>Measuring PyTorch</h1><p>Timer.</p>")
    assert "tags" not in entries[0], "Material adds tags only from page.meta"
    same = _nav_page("Tensors", "Tensors", {"search": {"boost": 3}})
    search.with_menu_words(same)
    assert same.meta == {"search": {"boost": 3}}
    search.with_menu_words(page)
    assert page.meta == {"tags": ["Measuring performance"]}, "added twice"


# --- the hook in a build


def _build(
    tmp_path, index=COMBINED, languages=("en", "es"), building=False, features=()
):
    site = tmp_path / "site"
    (site / "search").mkdir(parents=True, exist_ok=True)
    (site / search.INDEX).write_text(json.dumps(index))
    i18n = SimpleNamespace(building=building, build_languages=list(languages))
    i18n.default_language = i18n.current_language = languages[0]
    theme = {"features": list(features)}
    config = SimpleNamespace(site_dir=str(site), plugins={"i18n": i18n}, theme=theme)
    return site, config


def _read(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_after_the_last_language_build_each_language_has_its_index(tmp_path):
    site, config = _build(tmp_path)
    search.on_post_build(config)
    split = search.split_index(COMBINED, "en", ["es"])
    assert _read(site / search.INDEX) == split["en"]
    assert _read(site / "es" / search.INDEX) == split["es"]


def test_a_language_build_inside_the_i18n_loop_leaves_the_index_alone(tmp_path):
    site, config = _build(tmp_path, building=True)
    search.on_post_build(config)
    assert _read(site / search.INDEX) == COMBINED
    assert not (site / "es" / "search").exists()


def test_a_language_without_pages_in_the_index_is_a_clear_error(tmp_path):
    docs = [doc for doc in COMBINED["docs"] if not doc["location"].startswith("es/")]
    english_only = {**COMBINED, "docs": docs}
    site, config = _build(tmp_path, index=english_only)
    with pytest.raises(search.SearchIndexError, match="no page of 'es'"):
        search.on_post_build(config)
    assert _read(site / search.INDEX) == english_only, "half the split was written"


def test_a_language_lunr_cannot_process_is_a_clear_error(tmp_path):
    site, config = _build(tmp_path, languages=("en", "xx"))
    with pytest.raises(search.SearchIndexError, match="'xx'"):
        search.on_post_build(config)


def test_only_pages_of_another_language_get_a_new_base():
    i18n = SimpleNamespace(default_language="en", current_language="en")
    config = SimpleNamespace(plugins={"i18n": i18n})
    assert search.on_post_page(_page(".."), None, config) == _page("..")
    i18n.current_language = "es"
    assert _config(search.on_post_page(_page(".."), None, config))["base"] == "../es/"


INSTANT = ["navigation.instant", "navigation.instant.preview"]


@pytest.mark.parametrize("feature", INSTANT)
def test_features_that_need_the_sitemap_under_the_base_are_refused(tmp_path, feature):
    _, config = _build(tmp_path, features=["search.highlight", feature])
    with pytest.raises(search.SearchIndexError, match=feature):
        search.on_config(config)


# --- the real build


def _download_words() -> set[str]:
    from ptdocs.downloads import TEXTS

    keys = ("notebook", "script", "run_page")
    return {texts[key] for texts in TEXTS.values() for key in keys}


def _stamp_words() -> set[str]:
    """The start of every stamp text in every language (before its first placeholder)."""
    from ptdocs.hooks.stamp import STRINGS

    keys = ("verified", "unverified", "failed", "notebook_ran")
    texts = [strings[key] for strings in STRINGS.values() for key in keys]
    forms = [t for x in texts for t in ([x] if isinstance(x, str) else x.forms)]
    starts = {text.split("{")[0].strip() for text in forms}
    return {start for start in starts if len(start) > 8}


STAMP = (
    r'<aside class="md-source-file ptdocs-end ptdocs-stamp[^"]*" data-search-exclude>'
    r'|<div class="admonition failure" data-search-exclude>'
)


@pytest.mark.parametrize("language", ["", "es"], ids=["en", "es"])
def test_the_built_index_holds_the_pages_words_not_their_code_stamp_or_downloads(
    built_site, language
):
    index = Path(language) / search.INDEX
    docs = _read(built_site / index)["docs"]
    chrome = _stamp_words() | _download_words()
    assert chrome, "nothing to look for"
    for doc in docs:
        where, text = f"{index}: {doc['location']!r}", doc["text"]
        title, prompt = doc["title"], re.search(r"\b(In|Out)\xa0?\[\d*\]:", text)
        assert "¶" not in title, f"{where}: a permalink in the title {title!r}"
        assert not prompt, f"{where}: a notebook prompt"
        # Code blocks, output lines, notebook cells and outputs are left out (inline code
        # in the prose stays).
        assert "<pre>" not in text, f"{where}: a code block: {text[:80]!r}"
        found = [words for words in chrome if words in text]
        assert not found, f"{where}: the stamp or the downloads indexed: {found[0]!r}"
    # Every page with examples still shows readers its stamp (at its end or its title).
    folder = built_site / language
    stamped = 0
    for location in {doc["location"].partition("#")[0] for doc in docs}:
        html = (folder / location / "index.html").read_text(encoding="utf-8")
        if "ptdocs-downloads" in html or 'class="jupyter-wrapper"' in html:  # examples
            assert re.search(STAMP, html), f"{location}: no stamp"
            stamped += 1
    assert stamped >= 5, "fewer pages with code than the guides and notebooks"


@pytest.mark.parametrize("language", ["en", "es"])
def test_measured_tables_stay_on_the_page_but_out_of_the_index(built_site, language):
    folder = built_site / ("es" if language == "es" else "")
    words = " ".join(doc["text"] for doc in _read(folder / search.INDEX)["docs"])
    w = results.STRINGS.in_language(language)
    compared = w["latency_of"].format(label="[2]")
    # A column title of each table: the sample, the run, a comparison.
    headers = [("measuring", "latency_<wbr>iqr"), ("results", w["columns"][3])]
    for page, header in [*headers, ("results", compared)]:
        html = (folder / page / "index.html").read_text(encoding="utf-8")
        th = rf"<th[^>]*>(<code>)?{re.escape(header)}"
        assert re.search(th, html), (page, header)
        assert header not in words, f"{language}: {header!r} is in the search index"


def test_the_built_site_has_one_index_per_language(built_site):
    for language in ("en", "es"):
        folder = built_site / ("es" if language == "es" else "")
        index = _read(folder / search.INDEX)
        assert index["config"]["lang"] == [language]
        pages = {doc["location"].partition("#")[0] for doc in index["docs"]}
        assert "autograd/" in pages and "" in pages
        for location in pages:
            assert (folder / location / "index.html").is_file(), (folder, location)
            assert not location.startswith("es/"), f"a Spanish page in {folder}'s index"
    # Every Spanish page loads the Spanish index; every English page the root one.
    for html in built_site.rglob("index.html"):
        page = html.parent.relative_to(built_site).as_posix()
        if page.split("/")[0] in ("assets", "search"):
            continue
        page = "" if page == "." else page + "/"
        base = _config(html.read_text(encoding="utf-8"))["base"]
        root = "http://site/es/" if page.startswith("es/") else "http://site/"
        assert urljoin(f"http://site/{page}", base) == root, page
