"""Where a page belongs: its language, from its path under ``docs/``. Standard
library only, so that every module can import it (ptdocs.versions runs with a bare
Python)."""


def language(page: str) -> str:
    """The language of a page as the reports and the site name it, by its path under
    docs/ ("es/autograd.md"): its first folder. The one place that says so."""
    first, slash, _ = str(page).partition("/")
    if not slash:
        raise ValueError(f"{page}: a page lives under docs/<language>/")
    return first
