"""Take Pygments' ``<span class="n">`` (names) and ``"w"`` (whitespace) out of code.

Material colours ``.n`` as the code itself and ``.w`` not at all, so they change no
pixel, and they were a quarter of the measuring page (tests/test_code_weight.py checks
that Material still does so).
"""

import re

# Only spans holding plain text (no nested markup).
_INVISIBLE = re.compile(r'<span class="(?:n|w)">([^<]*)</span>')


def on_page_content(html, page, config, files):
    return _INVISIBLE.sub(r"\1", html)
