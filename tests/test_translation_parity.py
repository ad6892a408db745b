"""The real site: every page has its Spanish twin, with the same structure, in the
glossary's words.

Freshness is not checked here on purpose: an English page may change before its
translation catches up; `python -m ptdocs.translations status` lists those pages and
the site shows their readers a notice.
"""

import re
import warnings

import pytest

from ptdocs.snippets import ROOT
from ptdocs.translations import (
    DOCS,
    HASH_LENGTH,
    OUTDATED,
    TARGET,
    OutdatedTranslation,
    compare,
    freshness,
    glossary,
    glossary_problems,
    missing_twins,
    recorded_hash,
    twins,
)

GUIDES = {"en": ROOT / "CONTRIBUTING.md", "es": ROOT / "CONTRIBUTING.es.md"}


def test_every_page_has_its_twin_in_the_other_language():
    problems = missing_twins(DOCS)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", twins(DOCS))
def test_twins_have_the_same_snippets_blocks_headings_and_links(page):
    problems = compare(DOCS, page)
    assert not problems, "\n".join(problems)


def test_both_guides_hold_the_same_glossary():
    english, spanish = (glossary(path) for path in GUIDES.values())
    assert len(english) >= 20
    assert [(t.english, t.spanish, t.avoid) for t in english] == [
        (t.english, t.spanish, t.avoid) for t in spanish
    ]


def test_spanish_pages_follow_the_glossary():
    problems = glossary_problems(DOCS, glossary(GUIDES["es"]))
    assert not problems, "\n".join(problems)


def test_outdated_translations_are_reported_and_records_are_well_formed():
    """An outdated page is a warning in the test summary (it still builds, with a
    notice); a record that is not a hash, typed by hand instead of by `mark`, is a
    failure."""
    malformed = []
    for page in twins(DOCS):
        recorded = recorded_hash(DOCS, DOCS / TARGET / page)
        if recorded is not None and not re.fullmatch(
            rf"[0-9a-f]{{{HASH_LENGTH}}}", recorded
        ):
            malformed.append(
                f"docs/{TARGET}/{page}: translation_of is {recorded!r}; write it with "
                f"python -m ptdocs.translations mark docs/{TARGET}/{page}"
            )
        state = freshness(DOCS, page)
        if state.state == OUTDATED:
            warnings.warn(
                OutdatedTranslation(f"{state.page}: {state.reason}"), stacklevel=1
            )
    assert not malformed, "\n".join(malformed)


def test_each_language_runs_the_same_number_of_examples_per_page(site_conftest):
    pages = site_conftest.pages  # the site's Sybil

    def count(path):
        return len(list(pages.parse(path).examples()))

    english = {
        p.relative_to(ROOT / "docs" / "en"): count(p)
        for p in (ROOT / "docs" / "en").rglob("*.md")
    }
    spanish = {
        p.relative_to(ROOT / "docs" / "es"): count(p)
        for p in (ROOT / "docs" / "es").rglob("*.md")
    }
    assert english == spanish
    assert sum(english.values()) > 0
