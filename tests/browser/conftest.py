"""The site built once, served on 127.0.0.1, and one headless Chromium for all
browser tests (the tour of every page starts a second one for half of it: see
harness.tour).

Chromium is Debian's (``apt-get install chromium``); Playwright drives it through
``executable_path`` and never downloads a browser. Without it the browser tests are
skipped with that reason, or fail when ``REQUIRE_BROWSER=1`` (as in CI).
"""

from __future__ import annotations

import os

import pytest

from .harness import (
    CHROMIUM,
    assert_offline,
    empty_search_indexes,
    launch,
    new_context,
    serve,
)
from .harness import tour as harness_tour


@pytest.fixture(scope="session")
def site(built_site):
    served, stop = serve(built_site)
    yield served
    stop()


# Package scope: Playwright's sync API keeps an event loop running in this thread
# while it is open, and tests after the browser tests (nbclient) need their own.
@pytest.fixture(scope="package")
def browser():
    if not CHROMIUM.exists():
        reason = (
            f"{CHROMIUM} is missing: "
            "install Debian's Chromium (apt-get install chromium)"
        )
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(
                f"{reason}; REQUIRE_BROWSER=1 makes that a failure", pytrace=False
            )
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture(scope="package")
def tour(browser, site):
    """Every page of the site, opened once for all the tests that check every page
    (see harness.tour and harness.visit_every_page), in offline-guarded contexts of
    their own: by page path, what each visit saw."""
    visits, blocked = harness_tour(browser, site)
    assert_offline(blocked)
    return visits


@pytest.fixture
def context(browser):
    """A fresh, offline-guarded context per test: no storage shared between tests,
    and the test fails if any of its pages asked for a host other than localhost."""
    context, guard = new_context(browser)
    yield context
    context.close()
    assert_offline(guard.blocked)


@pytest.fixture
def page(context):
    return context.new_page()


@pytest.fixture
def empty_search_index(context, site):
    """For tests where search is not under test: see harness.empty_search_indexes."""
    empty_search_indexes(context, site)
