"""No English prose on a Spanish page where the project writes the text: its code's
comments, strings and output, a notebook's printed lines and table headers, alt texts
and the pages' own text (see written_language.py for what counts, and what torch
writes)."""

from __future__ import annotations

from .harness import DEFAULT_LANGUAGE, Site
from .written_language import Excused, Unit, code_units, english_units, is_english_prose


def units_of(visit) -> list[Unit]:
    units = [Unit("text", text) for _where, text, _section in visit.interface]
    for block in visit.code:
        units += code_units(block)
    if visit.notebook:
        units += [
            Unit("output", line.strip())
            for text in visit.notebook["outputs"]
            for line in text.split("\n")
            if line.strip()
        ]
    return units


def english_units_of(tour, path) -> set[Unit]:
    twin = Site.in_language(path, DEFAULT_LANGUAGE)
    return set(units_of(tour[twin])) if twin in tour else set()


def test_no_english_prose_on_spanish_pages(tour):
    excused = Excused.from_catalog("es")
    spanish = [path for path in tour if Site.language(path) == "es"]
    assert spanish, "no Spanish page was built"
    problems, counted = [], 0
    for path in spanish:
        units = units_of(tour[path])
        counted += len(units)
        found = english_units(units, english_units_of(tour, path), excused)
        problems += [f"/{path} {unit.kind}: {unit.text!r}" for unit in found]
    assert counted > 3000, counted  # every page's texts, code and outputs were read
    assert not problems, (
        f"{len(problems)} English texts on Spanish pages (translate them in "
        "locale/es/LC_MESSAGES/snippets.po or the page):\n" + "\n".join(problems)
    )


def test_a_planted_english_sentence_is_counted(site, context, tour):
    """The count on a Spanish page into which an English sentence, an English string
    in a code block and an English line of output were planted: all three, and
    nothing else."""
    page = context.new_page()
    path = "es/autograd/"
    page.goto(site.page_url(path), wait_until="load")
    page.evaluate("""() => {
        const article = document.querySelector("article")
        article.insertAdjacentHTML("beforeend", "<p>The gradient is stored in the leaf.</p>"
            + "<pre>print(f'the gradient of x is {x.grad}')\\n# > the gradient of x is 6</pre>")
    }""")
    from .harness import COPY_BUTTONS, PAGE_FACTS, Visit

    facts = page.evaluate(PAGE_FACTS, COPY_BUTTONS)
    planted = Visit(None, **facts)
    found = english_units(
        units_of(planted), english_units_of(tour, path), Excused.from_catalog("es")
    )
    assert [unit.text for unit in found] == [
        "The gradient is stored in the leaf.",
        "the gradient of x is {x.grad}",
        "the gradient of x is 6",
    ]


def test_what_reads_as_english_prose():
    english = [
        "The gradient is stored in the leaf.",
        "f as a function of one argument",
        "a second backward through a freed graph should raise",
        "moved: 3 to fail, 0 to pass",
    ]
    not_english = [
        "El gradiente se guarda en la hoja.",
        "requires_grad=True",
        "torch.float32 True",
        "x.grad is None",
        "PyTorch, NumPy",
        "tensor([2., 4.])",
        "eps=1e-06 gradcheck False",
        "cpu",
        "de la forma cerrada: the closed form",
    ]
    assert [text for text in english if not is_english_prose(text)] == []
    assert [text for text in not_english if is_english_prose(text)] == []
