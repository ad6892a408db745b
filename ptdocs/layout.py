"""Where a page belongs. Standard library only: ptdocs.versions runs with a bare
Python."""


def language(page: str) -> str:
    """A page's language, by its path under docs/ ("es/autograd.md"): its first
    folder."""
    first, slash, _ = str(page).partition("/")
    if not slash:
        raise ValueError(f"{page}: a page lives under docs/<language>/")
    return first
