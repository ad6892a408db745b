"""The strict build produces both languages, rendered notebooks and twin language links."""

import re
from urllib.parse import urljoin

import pytest



@pytest.fixture
def site(built_site):
    return built_site


def alternates(html):
    """The language switcher's links (the head's hreflang links are removed, see language_links.py)."""
    return dict((lang, href) for href, lang in
                re.findall(r'<a href="([^"]*)" hreflang="([a-z]+)" class="md-select__link"', html))


def test_both_languages_are_built(site):
    assert (site / "index.html").is_file()
    assert (site / "es" / "index.html").is_file()
    assert '<html lang="es"' in (site / "es" / "index.html").read_text()


@pytest.mark.parametrize("prefix", ["", "es/"])
def test_notebook_pages_are_rendered_with_executed_outputs(site, prefix):
    html = (site / prefix / "exercises" / "first-gradient" / "index.html").read_text()
    assert '"cells":' not in html, "the notebook was shipped as raw JSON"
    # The printed gradient comes from running the notebook during the build.
    assert "tensor(6.)" in html
    assert "autograd agrees with 2x at x = 3.0" in html


@pytest.mark.parametrize("page", ["", "exercises/first-gradient/", "autograd/"])
def test_the_language_link_of_each_page_points_at_its_twin(site, page):
    english = alternates((site / page / "index.html").read_text())
    spanish = alternates((site / "es" / page / "index.html").read_text())
    # Resolve the links against each page's own URL, as the browser does.
    assert urljoin(f"http://site/{page}", english["es"]) == f"http://site/es/{page}"
    assert urljoin(f"http://site/es/{page}", spanish["en"]) == f"http://site/{page}"
