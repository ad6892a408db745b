"""ptdocs/hooks/code_weight.py: names and whitespace lose their spans, and nothing
else does."""

import re
from pathlib import Path

import material

from ptdocs.hooks import code_weight
from ptdocs.snippets import ROOT


def test_names_and_whitespace_lose_their_spans_and_keep_their_text():
    html = (
        '<span class="n">x</span><span class="w"> </span><span class="o">=</span>'
        '<span class="n">torch</span><span class="p">.</span>'
        '<span class="n">ones</span>'
    )
    kept = 'x <span class="o">=</span>torch<span class="p">.</span>ones'
    assert code_weight.on_page_content(html, None, None, None) == kept


def test_material_gives_names_the_code_colour_so_the_spans_changed_nothing():
    # If Material ever colours names apart, unwrapping them changes what readers see.
    css = Path(material.__file__).parent / "templates" / "assets" / "stylesheets"
    text = "".join(path.read_text(encoding="utf-8") for path in css.glob("*.css"))
    colours = set(re.findall(r"--md-code-hl-name-color:([^;}]*)", text))
    assert colours == {"var(--md-code-fg-color)"}, colours
    ours = ROOT / "overrides" / "assets" / "stylesheets" / "ptdocs.css"
    assert "--md-code-hl-name-color" not in ours.read_text(encoding="utf-8")
