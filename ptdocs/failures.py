"""A page example's failure, said in the reader's language.

A run records each failure as data (ptdocs.pages' ``Failure.record``), never as an
English sentence: ``{"file": ..., "line": 4, "kind": "output", "shown": ...,
"printed": ...}``; kinds ``output``, ``exception`` (``error``), ``value`` (a
prose-values check: ``said``, ``expression``, ``got``) and ``other`` (``message``).
Only what the code printed or raised stays as it was, shown as code.
"""

from __future__ import annotations

from .catalog import Texts, placeholder_names

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
KINDS = ("output", "exception", "value")  # any other kind: "other"


def inline_code(text: str) -> str:
    """Inline Markdown code that survives any text (a failure may hold backticks)."""
    return "`` " + text.replace("`", "'") + " ``"


def describe(language: str, failure: dict) -> str:
    """One failure as a sentence in ``language``, what the code said as inline code."""
    if "file" not in failure:  # an unreadable page: the parser's message says where
        return inline_code(str(failure.get("message", "?")))
    s = STRINGS.in_language(language)
    file = inline_code(str(failure["file"]))
    kind = failure.get("kind") if failure.get("kind") in KINDS else "other"
    values = {  # each value its sentence names; a side with no line (None): "nothing"
        key: s["nothing"]
        if failure.get(key) is None
        else inline_code(str(failure[key]))
        for key in placeholder_names(STRINGS.english[kind]) - {"where"}
    }
    where = s["where"].format(file=file, line=failure.get("line", "?"))
    return s[kind].format(where=where, **values)
