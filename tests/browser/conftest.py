"""The site built once, served on 127.0.0.1, and one headless Chromium for all browser tests.

Chromium is Debian's (``apt-get install chromium``); Playwright drives it through
``executable_path`` and never downloads a browser. Without it the browser tests
are skipped with that reason, or fail when ``REQUIRE_BROWSER=1`` (as in CI).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .harness import CHROMIUM, LAUNCH_ARGS, ROOT, new_context, serve


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """``mkdocs build --strict`` once for the whole session, into a folder of its own."""
    folder = tmp_path_factory.mktemp("site")
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(folder)],
        cwd=ROOT, env=environment, capture_output=True, text=True)
    if result.returncode:
        pytest.fail(f"mkdocs build --strict failed:\n{result.stdout}{result.stderr}"[-6000:], pytrace=False)
    return folder


@pytest.fixture(scope="session")
def site(built_site):
    served, stop = serve(built_site)
    yield served
    stop()


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is missing: install Debian's Chromium (apt-get install chromium)"
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"{reason}; REQUIRE_BROWSER=1 makes that a failure", pytrace=False)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser):
    """A fresh, offline-guarded context per test: no storage shared between tests, and the
    test fails if any of its pages asked for a host other than localhost."""
    context, guard = new_context(browser)
    yield context
    context.close()
    assert not guard.blocked, "requests to other hosts (aborted):\n" + "\n".join(guard.blocked)


@pytest.fixture
def page(context):
    return context.new_page()
