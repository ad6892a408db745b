"""The "Report a problem with this page" issue form, and the link to it on each page.

The form is checked against GitHub's issue-forms schema as check-jsonschema vendors
it (``vendor.github-issue-forms``, from SchemaStore), as the workflows are against
theirs; the link must fill fields that the form has.
tests/browser/test_report_link.py reads the link on built pages, in both languages.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.parse
from types import SimpleNamespace

import mkdocs.config
import pytest
import yaml
from mkdocs.exceptions import PluginError

from ptdocs import output_check, problem_report
from ptdocs.snippets import ROOT

TEMPLATE = ROOT / ".github" / "ISSUE_TEMPLATE" / output_check.TEMPLATE


def validate(*paths) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-issue-forms",
            *map(str, paths),
        ],
        capture_output=True,
        text=True,
    )


def test_the_form_matches_githubs_schema_and_a_broken_one_does_not(tmp_path):
    result = validate(TEMPLATE)
    assert result.returncode == 0, result.stdout + result.stderr
    broken = tmp_path / "broken.yml"
    broken.write_text(
        TEMPLATE.read_text(encoding="utf-8").replace("type: textarea", "type: essay", 1)
    )
    assert validate(broken).returncode != 0


def test_every_field_a_link_fills_is_a_field_of_the_form():
    form = yaml.safe_load(TEMPLATE.read_text(encoding="utf-8"))
    ids = {item["id"] for item in form["body"] if "id" in item}
    filled = problem_report.fields(
        "https://example.org/es/autograd/", "es", "abc", "2.13.0"
    )
    # The rest a downloaded page's check fills in (ptdocs.output_check).
    assert set(filled) - {"title"} | {"expected", "saw", "environment"} == ids


def test_both_languages_are_in_every_label():
    form = yaml.safe_load(TEMPLATE.read_text(encoding="utf-8"))
    assert " / " in form["name"] and " / " in form["description"]
    for item in form["body"]:
        if item["type"] != "markdown":
            assert " / " in item["attributes"]["label"], item["id"]


@pytest.fixture(scope="module")
def config():
    return mkdocs.config.load_config(str(ROOT / "mkdocs.yml"))


def page_of(source: str, url: str):
    return SimpleNamespace(
        url=url, file=SimpleNamespace(abs_src_path=str(ROOT / "docs" / source))
    )


@pytest.mark.parametrize(
    "source, url, text",
    [
        ("en/autograd.md", "autograd/", "Report a problem with this page"),
        (
            "es/exercises/derivatives.ipynb",
            "es/exercises/derivatives/",
            "Informar de un problema en esta página",
        ),
    ],
)
def test_the_link_names_the_page_its_language_commit_and_torch(
    config, source, url, text
):
    from ptdocs.hooks import report_link

    html = report_link.on_page_content(
        "<p>Lesson.</p>", page_of(source, url), config, None
    )
    assert html.startswith(
        '<p>Lesson.</p>\n<p class="ptdocs-report" data-search-exclude>'
    )
    assert f">{text}</a></p>" in html
    href = html.split('href="')[1].split('"')[0].replace("&amp;", "&")
    address, _, query = href.partition("?")
    assert address == config["repo_url"].rstrip("/") + "/issues/new"
    fields = dict(urllib.parse.parse_qsl(query))
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    assert fields["commit"].removesuffix("-dirty") == head.strip()
    assert fields["torch"] == "2.13.0"
    assert fields["language"] == source.split("/")[0]
    assert fields["page"] == config["site_url"].rstrip("/") + "/" + url
    assert fields["template"] == TEMPLATE.name


def test_a_repository_that_is_not_on_github_stops_the_build(config):
    from ptdocs.hooks import report_link

    with pytest.raises(PluginError, match="repo_url must be"):
        report_link.on_config({**config, "repo_url": "https://gitlab.com/o/r"})
