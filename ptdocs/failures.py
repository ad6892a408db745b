"""A page example's failure, said in the reader's language.

A test run records each failure as data, as :mod:`ptdocs.pages` made it
(``Failure.record``, carried by :mod:`ptdocs.report`), never read back out of an
English sentence: ``{"file": "snippets/demo.py", "line": 4, "kind": "output",
"shown": "tensor([1., 2.])", "printed": "tensor([1, 2])"}``. The stamp under a page's
title and the compatibility page write the sentence here, in the page's language,
from the catalog (``locale/<language>/LC_MESSAGES/ interface.po``); only what the
code itself printed or raised (Python's own exception text) stays as it was, shown as
code. Kinds:

* ``output``: what a statement printed differs from its ``# >`` lines (``shown``,
  ``printed``: the
  first line that differs on each side; null where that side has no such line);
* ``exception``: the example raised ``error`` (``"AttributeError: ..."``);
* ``value``: a prose-values check: the prose says ``said`` for ``expression``, the
  code gives ``got``;
* ``other``: anything else (a setup error, a malformed snippet), its first line as
  ``message``.

A result written before failures were data holds each as a string: it is shown as
code, as then.
"""

from __future__ import annotations

from collections.abc import Callable

from .catalog import Texts

STRINGS = Texts(
    "failures",
    {
        "where": "{file}, line {line}",
        "output": "{where}: prints {printed} where the page shows {shown}",
        "nothing": "nothing",
        "exception": "{where}: raises {error}",
        "value": "{where}: the prose says {said} for {expression}, the code gives "
        "{got}",
        "other": "{where}: {message}",
    },
)


def describe(language: str, failure: dict | str, code: Callable[[str], str]) -> str:
    """One failure as a sentence in ``language``; ``code`` writes a piece of code or
    output inline."""
    if isinstance(failure, str):  # a result from before failures were data
        return code(failure)
    if (
        "file" not in failure
    ):  # a page its parser could not read: the message says where
        return code(str(failure.get("message", "?")))
    s = STRINGS.in_language(language)
    kind = failure.get("kind")
    where = s["where"].format(
        file=code(str(failure.get("file", "?"))), line=failure.get("line", "?")
    )

    def shown(key: str) -> str:
        value = failure.get(key)
        return s["nothing"] if value is None else code(str(value))

    if kind == "output":
        return s["output"].format(
            where=where, printed=shown("printed"), shown=shown("shown")
        )
    if kind == "exception":
        return s["exception"].format(where=where, error=shown("error"))
    if kind == "value":
        return s["value"].format(
            where=where,
            said=shown("said"),
            expression=shown("expression"),
            got=shown("got"),
        )
    return s["other"].format(where=where, message=shown("message"))
