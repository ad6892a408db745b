"""Every built page's headings go down one level at a time: a reader (or a screen
reader's outline) never meets an h3 right under an h1."""

from html.parser import HTMLParser


class _Headings(HTMLParser):
    def __init__(self):
        super().__init__()
        self.levels: list[tuple[int, str]] = []  # (level, id)

    def handle_starttag(self, tag, attrs):
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.levels.append((int(tag[1]), dict(attrs).get("id") or ""))


def skipped_levels(html: str) -> list[str]:
    """Each heading that is more than one level below the one before it (the first:
    below h0)."""
    parser = _Headings()
    parser.feed(html)
    problems, previous = [], 0
    for level, anchor in parser.levels:
        if level > previous + 1:
            problems.append(f"h{level} #{anchor} right after h{previous}")
        previous = level
    return problems


def test_a_skipped_level_is_found():
    assert skipped_levels("<h1>a</h1><h2>b</h2><h3>c</h3><h2>d</h2><h2>e</h2>") == []
    assert skipped_levels('<h1>a</h1><h3 id="c">c</h3>') == ["h3 #c right after h1"]
    assert skipped_levels('<h2 id="b">b</h2>') == ["h2 #b right after h0"]


def test_no_built_page_skips_a_heading_level(built_site):
    pages = sorted(
        path for path in built_site.rglob("*.html") if "assets" not in path.parts
    )
    assert len(pages) > 10
    problems = [
        f"/{page.relative_to(built_site).as_posix()}: {problem}"
        for page in pages
        for problem in skipped_levels(page.read_text(encoding="utf-8"))
    ]
    assert not problems, "\n".join(problems)
