"""What a run's options leave unsaid, settled once for every front end: profile, seed, and the
shared example database the profile uses."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from compactcheck.options.kinds import REDIS_URL_VARIABLE, Front
from compactcheck.options.schema import BY_KEY

Profile = Literal["dev", "ci", "campaign"]


def default(key: str, front: Front = "library") -> Any:
    """The table's default of option ``key`` for ``front``: the one place defaults are written."""
    return BY_KEY[key].default_for(front)


def redis_url(flag: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The Redis URL from ``--redis`` or else from COMPACTCHECK_REDIS_URL (empty means none)."""
    environ = os.environ if environ is None else environ
    url = flag if flag is not None else environ.get(REDIS_URL_VARIABLE)
    if url is None or not url.strip():
        return None
    return url.strip()


@dataclass(frozen=True)
class Settled:
    """A run's profile and seed, and the shared database its profile uses (None: none)."""

    profile: Profile
    seed: int
    # Whether the user named the seed: then a run replays it exactly, and failures saved in the
    # example database are not fed back in (they would change the shrunk witnesses).
    seed_given: bool
    redis: str | None = None


def settle(
    front: Front, values: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> Settled:
    """The profile, seed and shared database of a run from checked option values.

    The profile is the one given (``run --profile``); else, on the command line, ``ci`` under a
    CI variable and ``dev`` elsewhere; ``fuzz()`` with a Redis URL is a campaign; every other
    call, and every test of the plugin, is ``ci`` (its seed fixed, no example database). A seed
    not given (the command line's only: the library and the plugin default to 0) is 0 in ``ci``
    and a fresh random one otherwise. The shared database is Redis (``--redis``, else
    COMPACTCHECK_REDIS_URL on the command line) outside ``ci``.
    """
    environ = os.environ if environ is None else environ
    profile: Profile
    given = values.get("profile")
    if given is not None:
        profile = given
    elif front == "cli":
        profile = "ci" if environ.get("CI") else "dev"
    elif front == "library" and values.get("redis") is not None:
        profile = "campaign"
    else:
        profile = "ci"
    seed = values.get("seed")
    chosen = seed if seed is not None else (0 if profile == "ci" else _fresh_seed())
    url = None
    if profile != "ci":
        url = redis_url(values.get("redis"), environ if front == "cli" else {})
    return Settled(profile, chosen, seed_given=seed is not None, redis=url)


def _fresh_seed() -> int:
    # Imported here: the plugin reads this package in every pytest session, and secrets brings
    # hmac with it.
    import secrets

    return secrets.randbelow(2**32)


def settle_campaign(values: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> Settled:
    """A time-boxed campaign's (``compactcheck fuzz``): the campaign profile, a seed that only
    starts its series (never replayed: its finds in the example database are fed back in)."""
    settled = settle("cli", {**values, "profile": "campaign"}, environ)
    return Settled(settled.profile, settled.seed, seed_given=False, redis=settled.redis)
