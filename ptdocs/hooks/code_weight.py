"""Code blocks without the markup that changes nothing on screen.

Pygments wraps every name in ``<span class="n">`` and every run of whitespace it
keeps apart in ``<span class="w">``. Material colours ``.n`` with
``--md-code-hl-name-color``, which it sets to the code's own colour
(``var(--md-code-fg-color)``), and ``.w`` not at all: the spans change no pixel, and
they were a quarter of the measuring page (2,600 names in the benchmark module's
listing, about 60 kB). This hook takes them out; tests/test_code_weight.py checks
that Material still gives names the code's colour, so the day it does not, the test
says so.
"""

import re

# Only these two classes, and only spans holding plain text (no nested markup).
_INVISIBLE = re.compile(r'<span class="(?:n|w)">([^<]*)</span>')


def unwrap(html: str) -> str:
    return _INVISIBLE.sub(r"\1", html)


def on_page_content(html, page, config, files):
    return unwrap(html)
