"""Developer tools: not needed to build or test the site (see CONTRIBUTING.md)."""
