"""The site's own machinery: snippet includes, the Sybil page runner, mkdocs hooks."""
