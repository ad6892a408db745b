"""The offline check is not a formality: a CDN script added to a page is caught.

Every browser test runs in a context that aborts and records any request to a
host other than localhost (``harness.OfflineGuard``); the link checker reports
assets from another host. Here a copy of the built site gets the kind of line
that creeps in with a plugin or a copied snippet, and both must flag it.
"""

from __future__ import annotations

import shutil

import pytest

from ptdocs.linkcheck import check

from .harness import Site, load, new_context, serve

CDN_SCRIPT = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"


@pytest.fixture
def site_with_a_cdn_script(built_site, tmp_path):
    folder = tmp_path / "site"
    shutil.copytree(built_site, folder)
    page = Site(folder).of_kind("guide", "en")[0]
    index = folder / page / "index.html"
    html = index.read_text(encoding="utf-8")
    index.write_text(
        html.replace("</head>", f'<script src="{CDN_SCRIPT}"></script></head>', 1),
        encoding="utf-8",
    )
    served, stop = serve(folder)
    yield served, page
    stop()


def test_the_offline_guard_aborts_and_reports_a_cdn_script(
    browser, site_with_a_cdn_script
):
    site, page_path = site_with_a_cdn_script
    context, guard = new_context(browser)
    try:
        result = load(context.new_page(), site.page_url(page_path))
    finally:
        context.close()
    assert guard.blocked == [CDN_SCRIPT]
    assert any(CDN_SCRIPT in failure for failure in result.failed), result.failed


def test_the_link_checker_reports_a_cdn_script_as_an_external_asset(
    site_with_a_cdn_script,
):
    site, page_path = site_with_a_cdn_script
    report = check([site.page_url(page_path)], site.url)
    assert [(problem.page, problem.target) for problem in report.external_assets] == [
        (site.page_url(page_path), CDN_SCRIPT)
    ]
