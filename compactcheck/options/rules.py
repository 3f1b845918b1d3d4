"""What a run cannot take together: one place that checks the options' values as a whole."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from compactcheck.options.kinds import Front, OptionError
from compactcheck.options.schema import BY_KEY


def _named(front: Front, *keys: str) -> str:
    return ", ".join(BY_KEY[key].spelled(front) for key in keys)


def check_together(values: Mapping[str, Any], front: Front) -> None:
    """Refuse values that a run cannot take together (``OptionError``, one line, in ``front``'s
    spelling). Only the rules whose options ``values`` holds apply."""
    said = {key: BY_KEY[key].spelled(front) for key in BY_KEY}
    chosen = values.get("invariants")
    if chosen is not None and not list(chosen):
        # An empty choice would leave only the call law: a run that judges nothing else and
        # passes.
        raise OptionError(
            f"{said['invariants']}: expected one or more law ids (a,b,c), found none; leave it "
            "out to judge every law"
        )
    if "model" in values and values["model"] is None:
        given = [
            key
            for key in ("model_cache", "max_model_calls", "max_model_tokens", "offline")
            # 0 is a cap given (max_model_calls=0), not an option left out.
            if values.get(key) is not None and values.get(key) is not False
        ]
        if given:
            # A cap or cache without a model would silently do nothing.
            raise OptionError(
                f"{_named(front, *given)}: needs a model to apply to; name it with {said['model']}"
            )
    if values.get("transcripts") is not None:
        view = values.get("view")
        if view not in (None, "messages"):
            raise OptionError(
                f"{said['transcripts']} feeds the messages view; {said['view']} {view} has no "
                "transcripts"
            )
        if values.get("malformed"):
            raise OptionError(
                f"{said['transcripts']} and {said['malformed']}: a transcript is what it is"
            )
    workers, shards = values.get("workers") or 1, values.get("shards") or 1
    in_flight = values.get("in_flight")
    if in_flight is not None and in_flight < workers:
        # Each worker runs at least one shard at a time: fewer in flight than workers is a
        # count the run cannot keep.
        raise OptionError(
            f"{said['in_flight']} {in_flight} is below {said['workers']} {workers}: each worker "
            f"keeps at least one call in flight; give {said['in_flight']} {workers} or more, "
            f"or fewer {said['workers']}"
        )
    if in_flight is not None and in_flight > 1 and shards > 1:
        raise OptionError(
            f"{said['in_flight']} {in_flight} and {said['shards']} {shards} both cut each "
            f"target's budget; pick one: {said['in_flight']} for threads in this pytest process, "
            f"{said['shards']} for pytest-xdist (pytest -n)"
        )
    if workers > 1 and shards > 1:
        # Both cut each target's budget, each its own way (a pool in one process; a test id per
        # shard for xdist's workers): cut twice, neither run is one the other reproduces.
        raise OptionError(
            f"{said['workers']} {workers} and {said['shards']} {shards} both cut each target's "
            f"budget; pick one: {said['workers']} for a pool of processes in this pytest "
            f"process, {said['shards']} for pytest-xdist (pytest -n)"
        )
    piece = values.get("shard")
    profile = values.get("profile")
    if piece is not None and piece.count > 1 and values.get("seed") is None and profile != "ci":
        raise OptionError(
            f"{said['shard']} {piece.label} needs {said['seed']} S: the shards of one run must "
            f"share its seed, and the {profile} profile would pick a random one"
        )
    if profile == "ci" and values.get("redis") is not None:
        raise OptionError(
            f"the ci profile is deterministic and uses no example database; drop {said['redis']} "
            f"or use {said['profile']} campaign (or dev, read-only)"
        )
