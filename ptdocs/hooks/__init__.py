"""The steps of the site's build, one module each; ptdocs/plugin.py runs them, in its
ORDER."""
