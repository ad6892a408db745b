"""The notebook math hook: TeX in Markdown cells becomes MathML, nothing else is
touched."""

from ptdocs.hooks.notebook_math import render_math

CELL = '<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown jp-MarkdownOutput" data-mime-type="text/markdown">{}</div>'


def test_inline_and_display_math_in_a_markdown_cell_become_mathml():
    page = render_math(
        CELL.format("<p>The derivative of $x^2$ is $2x$:</p><p>$$a &lt; b$$</p>")
    )
    assert "$" not in page
    assert (
        page.count('<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">')
        == 2
    )
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in page
    assert "<msup><mi>x</mi><mn>2</mn></msup>" in page
    assert (
        "<mo>&#x0003C;</mo>" in page
    )  # the escaped < became the operator, still escaped


def test_code_attributes_other_cells_and_prices_are_left_alone():
    untouched = [
        CELL.format("<p><code>print('$x$')</code></p>"),
        CELL.format('<p><a title="$x$" href="#">link</a></p>'),
        CELL.format("<pre>$x$</pre>"),
        # an output, not Markdown
        '<div class="jp-OutputArea-output"><pre>$x$</pre>$y$</div>',
        CELL.format("<p>costs $5 and $ 6</p>"),
        "<p>$x$</p>",  # outside any notebook cell
    ]
    for html in untouched:
        assert render_math(html) == html


def test_text_after_a_cell_is_outside_it():
    page = render_math(CELL.format("<p>$x$</p>") + "<p>$y$</p>")
    assert page.endswith("<p>$y$</p>") and "$x$" not in page
