"""The catalogue: assembled from the views' packages, typed per view, strict about names."""

from __future__ import annotations

from collections import Counter

import pytest

from compactcheck.invariants import (
    Facts,
    Invariant,
    SnapshotAfter,
    SnapshotBefore,
    View,
    parse_messages,
)
from compactcheck.invariants.catalogue import VIEWS, UnknownInvariantError, catalogue, select
from compactcheck.invariants.errors import CompactcheckError
from compactcheck.invariants.laws import messages, session, snapshot
from compactcheck.invariants.laws.messages import Messages
from compactcheck.invariants.session.exchange import SessionAfter, SessionBefore

FACTS = Facts(goal="fix the login bug")


def test_the_catalogue_lists_each_views_package_in_catalogue_order() -> None:
    assert catalogue() == [*snapshot.LAWS, *messages.LAWS, *session.LAWS]
    assert catalogue("snapshot") == list(snapshot.LAWS)
    assert catalogue("messages") == list(messages.LAWS)
    assert catalogue("session") == list(session.LAWS)


@pytest.mark.parametrize("view", VIEWS)
def test_each_view_lists_only_its_own_laws_each_once(view: View) -> None:
    laws = catalogue(view)
    assert laws
    assert {law.view for law in laws} == {view}
    repeated = [name for name, times in Counter(law.id for law in laws).items() if times > 1]
    assert not repeated


def test_a_caller_cannot_change_the_catalogue_through_what_it_returns() -> None:
    laws = catalogue("messages")
    laws.clear()
    assert catalogue("messages") == list(messages.LAWS)


def test_an_unknown_view_is_an_error_naming_the_known_views() -> None:
    with pytest.raises(UnknownInvariantError) as raised:
        catalogue("x")  # type: ignore[call-overload]
    message = str(raised.value)
    assert "'x'" in message
    assert "\n" not in message
    assert all(view in message for view in VIEWS)
    assert isinstance(raised.value, CompactcheckError)


@pytest.mark.parametrize(
    ("include", "exclude"), [(["goal_preserved", "goal_preserve"], []), (None, ["goal_preserve"])]
)
def test_an_unknown_id_is_an_error_naming_the_views_ids(
    include: list[str] | None, exclude: list[str]
) -> None:
    with pytest.raises(UnknownInvariantError) as raised:
        select("messages", include, exclude)
    message = str(raised.value)
    unknown, _, known = message.partition("known:")
    assert "'goal_preserve'" in unknown
    assert "'goal_preserved'" not in unknown
    assert "\n" not in message
    assert all(law.id in known for law in messages.LAWS)


def test_an_id_of_another_view_is_unknown_to_this_one() -> None:
    # Callers that take ids for several views at once narrow them to the view's own first
    # (compactcheck.base.selection does), so a typo is still caught there.
    with pytest.raises(UnknownInvariantError, match="'shrinks'"):
        select("messages", ["shrinks"])


def test_an_id_with_a_line_break_still_gives_a_one_line_message() -> None:
    with pytest.raises(UnknownInvariantError) as raised:
        select("session", exclude=["tool_pairing\nprogress"])
    assert "\n" not in str(raised.value)


def test_select_narrows_by_include_and_exclude_in_catalogue_order() -> None:
    chosen = select("messages", ["progress", "tool_pairing", "non_empty"], ["non_empty"])
    assert [law.id for law in chosen] == ["tool_pairing", "progress"]
    assert select("messages", []) == []


def test_laws_are_typed_by_their_views_models() -> None:
    # The assignments are what this test checks, under mypy: each view's laws take that
    # view's own models, so a law handed another view's data does not type-check.
    snapshot_laws: list[Invariant[SnapshotBefore, SnapshotAfter]] = catalogue("snapshot")
    session_laws: list[Invariant[SessionBefore, SessionAfter]] = select("session")
    messages_laws: list[Invariant[Messages, Messages]] = select("messages", ["non_empty"])
    assert snapshot_laws
    assert session_laws
    [non_empty] = messages_laws
    finding = non_empty.check(parse_messages([{"role": "user", "content": "hi"}]), (), FACTS)
    assert not finding.holds
    with pytest.raises(AttributeError):
        # Raw dicts are not messages: mypy rejects the call (the ignore would be unused, and so
        # an error, if it did not), and at run time the law fails on the first attribute read.
        non_empty.check([{"role": "user", "content": "hi"}], [], FACTS)  # type: ignore[list-item]
