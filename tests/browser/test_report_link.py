""" "Report a problem with this page" on an English and a Spanish page, as a reader
 finds it: after
the lesson, in the page's language, opening the repository's issue form with the
page's fields filled in. The link is read, not followed: the tests never leave the
local site."""

from __future__ import annotations

import subprocess
from urllib.parse import parse_qsl, urlsplit

import mkdocs.config
import pytest

from ptdocs.downloads import requirements
from ptdocs.snippets import ROOT

CONFIG = mkdocs.config.load_config(str(ROOT / "mkdocs.yml"))


@pytest.mark.usefixtures("empty_search_index")
@pytest.mark.parametrize(
    "path, language, text",
    [
        ("autograd/", "en", "Report a problem with this page"),
        ("es/autograd/", "es", "Informar de un problema en esta página"),
    ],
)
def test_the_report_link_opens_the_form_with_the_pages_fields(
    site, page, path, language, text
):
    page.goto(site.page_url(path), wait_until="domcontentloaded")
    link = page.get_by_role("link", name=text, exact=True)
    assert link.count() == 1
    assert (link.get_attribute("target"), link.get_attribute("rel")) == (
        "_blank",
        "noopener",
    )
    # After the lesson: below the page's last code block, inside the article.
    assert link.evaluate("a => a.closest('article') !== null")
    last_code = page.locator("article pre").last.bounding_box()
    assert link.bounding_box()["y"] > last_code["y"] + last_code["height"]
    address = urlsplit(link.get_attribute("href"))
    assert (
        f"{address.scheme}://{address.netloc}{address.path}"
        == CONFIG["repo_url"].rstrip("/") + "/issues/new"
    )
    fields = dict(parse_qsl(address.query))
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    assert fields["template"] == "page-problem.yml"
    assert fields["page"].endswith("/" + path) and fields["language"] == language
    assert fields["commit"].removesuffix("-dirty") == head
    assert fields["torch"] == requirements(ROOT)["torch"]
