"""The site's plugin (ptdocs/plugin.py): every step's event functions run, in ORDER."""

import pkgutil
from types import SimpleNamespace

import pytest
from mkdocs.config.base import ValidationError
from mkdocs.plugins import PluginCollection, get_plugins

from ptdocs import hooks, plugin


def test_every_event_function_of_every_step_is_in_the_order_once():
    listed = [
        (event, name)
        for event, groups in plugin.ORDER.items()
        for names in groups.values()
        for name in names.split()
    ]
    assert len(listed) == len(set(listed))
    steps = {info.name for info in pkgutil.iter_modules(hooks.__path__)} - {"preview"}
    assert set(plugin.STEPS) == steps  # preview is the ptdocs-preview plugin
    defined = {
        (attribute[3:], name)
        for name, module in plugin.STEPS.items()
        for attribute in vars(module)
        if attribute.startswith("on_") and callable(getattr(module, attribute))
    }
    assert set(listed) == defined


def test_mkdocs_finds_both_plugins_by_their_entry_points():
    installed = get_plugins()
    assert installed["ptdocs"].load() is plugin.Site
    assert installed["ptdocs-preview"].load() is hooks.preview.Preview


def _site(steps, monkeypatch, calls):
    for name in ("search", "code_weight", "notebooks"):

        def on_page_content(html, page, config, files, name=name):
            calls.append(name)
            return None if name == "code_weight" else html + f"<{name}>"

        monkeypatch.setattr(plugin.STEPS[name], "on_page_content", on_page_content)
    site = plugin.Site()
    errors, warnings = site.load_config({"steps": steps})
    assert errors == [] and warnings == []
    collection = PluginCollection()
    collection["ptdocs"] = site
    return collection


def test_the_steps_chosen_run_in_the_order_and_keep_the_page_when_one_returns_none(
    monkeypatch,
):
    calls = []
    collection = _site(["search", "code_weight", "notebooks"], monkeypatch, calls)
    html = collection.on_page_content("<p>", page=None, config=None, files=None)
    assert calls == ["notebooks", "code_weight", "search"]  # ORDER's, not the option's
    assert html == "<p><notebooks><search>"
    calls.clear()
    collection = _site(["search", "notebooks"], monkeypatch, calls)
    assert (
        collection.on_page_content("<p>", page=None, config=None, files=None)
        == "<p><notebooks><search>"
    )
    assert calls == ["notebooks", "search"]


def test_by_default_every_step_runs():
    site = plugin.Site()
    site.load_config({})
    assert site.config.steps == list(plugin.STEPS)


def test_an_unknown_step_is_a_configuration_error():
    errors, _ = plugin.Site().load_config({"steps": ["stamps"]})
    assert (
        errors
        and isinstance(errors[0][1], ValidationError)
        and "stamps" in str(errors[0][1])
    )


def test_the_events_at_another_priority_run_there(monkeypatch):
    """post_build: for each language (100, before i18n's -100 builds the next one), and
    once after all."""
    site = plugin.Site()
    site.load_config({})
    collection = PluginCollection()
    collection["ptdocs"] = site
    priorities = [
        getattr(method, "mkdocs_priority", 0)
        for method in collection.events["post_build"]
    ]
    assert priorities == [100, -200]
    calls = []
    for name in ("notebooks", "downloads", "results", "search", "not_found"):
        monkeypatch.setattr(
            plugin.STEPS[name],
            "on_post_build",
            lambda config, name=name: calls.append(name),
        )
    collection.on_post_build(config=SimpleNamespace())
    assert calls == ["notebooks", "downloads", "results", "search", "not_found"]


@pytest.mark.parametrize("event", sorted(plugin.ORDER))
def test_each_event_is_one_mkdocs_knows(event):
    assert event in PluginCollection().events
