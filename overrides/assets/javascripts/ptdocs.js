// A box that scrolls sideways must take the keyboard's focus, or a reader without a mouse cannot
// scroll it (axe: scrollable-region-focusable). Material does this for its code blocks; these are
// the boxes it leaves out: a notebook's code cell and a table's scroll wrapper (which Material's
// own script puts in, before this one runs: document$ is Material's, for scripts like this one).
document$.subscribe(function () {
  document.querySelectorAll(".md-typeset .highlight-ipynb, .md-typeset .md-typeset__scrollwrap")
    .forEach(function (box) {
      if (box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight)
        box.setAttribute("tabindex", "0")
    })
})
