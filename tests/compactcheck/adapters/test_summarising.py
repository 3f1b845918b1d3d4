"""Which built-in targets take the run's --model is declared once (``SUMMARISING``): the
adapters are handed the model by it, `compactcheck targets` says so, and the help points there
rather than naming a few."""

from __future__ import annotations

import json

import pytest

from compactcheck.adapters import ADAPTERS, SUMMARISING, TAKES_MODEL, MissingExtraError
from compactcheck.cli import main
from compactcheck.models import ModelSlot
from compactcheck.targets.registry import resolve


def test_every_summarising_target_says_so_in_the_listing_and_no_other(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert set(ADAPTERS) >= SUMMARISING
    assert main(["targets", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    marked = {row["target"] for row in listed if TAKES_MODEL in row["description"]}
    assert marked == SUMMARISING


def test_the_model_help_names_no_target_but_the_listing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    start = help_text.index("--model NAME the model")
    model_help = help_text[start : help_text.index("--model-cache", start)]
    assert "compactcheck targets" in model_help
    assert not [target for target in ADAPTERS if target in model_help]
    assert "docs/how-to/recorded-traffic.md" in help_text


@pytest.mark.parametrize("target", sorted(ADAPTERS))
def test_an_adapter_is_handed_the_model_exactly_when_it_summarises(target: str) -> None:
    try:
        opened = resolve(target, model=ModelSlot("echo"))
    except MissingExtraError as error:
        pytest.skip(str(error))
    try:
        assert (opened.model is not None) == (target in SUMMARISING)
    finally:
        opened.close()
