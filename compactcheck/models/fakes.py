"""Honest local models: they answer from the request alone, deterministically, with no network.

``echo`` repeats the request. ``paraphrase`` rewords it the way a faithful summariser would: the
frame of each line and its stop words change, content words are lower-cased, and every
distinctive token (``compactcheck.invariants.tokens``) stays, in order, none invented. ``lossy``
repeats it but drops the distinctive tokens whose stable hash is even, and says which.
``wording`` restates it in a model's words, every fact kept (``compactcheck.models.wording``);
``phrasing`` restates each goal and rule in the shapes models give them, every fact kept
(``compactcheck.models.phrasing``); ``plant-KIND`` repeats it with one planted change of a
kind, and says which (``compactcheck.models.planting``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from compactcheck.invariants.tokens import NEGATIONS, STOPWORDS, TOKEN, distinctive_tokens
from compactcheck.models.model import Model
from compactcheck.models.phrasing import PhrasingModel
from compactcheck.models.planting import PLANT_KINDS, PlantingModel, planting
from compactcheck.models.request import ModelRequest
from compactcheck.models.wording import WordingModel

# Rewordings of stop words by stop words (or nothing), so that no content word is invented.
_SWAPS: dict[str, str] = {
    "the": "that",
    "a": "some",
    "an": "some",
    "is": "was",
    "are": "were",
    "to": "into",
    "for": "as",
    "with": "by",
    "and": "as",
    "use": "",
    "please": "",
    "must": "should",
    "should": "must",
    "can": "could",
    "will": "would",
    "this": "that",
}
# Sentence frames of stop words only, chosen per line by a stable hash.
_FRAMES = ("so", "as to that,", "and so", "in all,")


def stable_hash(text: str) -> int:
    """A hash of ``text`` that is the same in every process (unlike ``hash``)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


class EchoModel:
    """A model that repeats everything it was asked, system text and every turn, in order."""

    name = "echo"

    def answer(self, request: ModelRequest) -> str:
        """The request's whole text."""
        return request.text()


def paraphrase_line(line: str) -> str:
    """One line reworded: a new frame and stop words, content words lower-cased, names kept."""
    keep = set(distinctive_tokens(line))
    words: list[str] = []
    for index, match in enumerate(TOKEN.finditer(line)):
        word = match.group()
        lower = word.lower()
        # A capital that only opens the sentence names nothing: lower-cased, it stays nothing
        # behind the frame that now opens the line.
        named = word in keep and (index > 0 or bool(distinctive_tokens(word)))
        if named or lower in NEGATIONS:
            words.append(word if named else lower)
        elif lower in STOPWORDS:
            swapped = _SWAPS.get(lower, lower)
            if swapped:
                words.append(swapped)
        else:
            words.append(lower)
    frame = _FRAMES[stable_hash(line) % len(_FRAMES)]
    return f"{frame} {' '.join(words)}." if words else f"{frame}."


class ParaphraseModel:
    """A model that rewords what it repeats, keeping every distinctive token of every line."""

    name = "paraphrase"

    def answer(self, request: ModelRequest) -> str:
        """The request's text, reworded line by line (without the echo's role tags)."""
        texts = [request.system, *(turn.text for turn in request.turns)]
        lines = (line for text in texts for line in text.splitlines() if line.strip())
        return "\n".join(paraphrase_line(line) for line in lines)


class LossyModel:
    """A model that repeats what it was asked but drops some distinctive tokens.

    A token is dropped when its stable hash is even: the same tokens in every run and process.
    """

    name = "lossy"

    @staticmethod
    def drops(token: str) -> bool:
        """Whether this model drops ``token``."""
        return stable_hash(token) % 2 == 0

    def dropped(self, request: ModelRequest) -> tuple[str, ...]:
        """The distinctive tokens of the request that its answer leaves out, in order."""
        return tuple(t for t in distinctive_tokens(request.text()) if self.drops(t))

    def answer(self, request: ModelRequest) -> str:
        """The request's text without the tokens it drops (each replaced by a space)."""
        text = request.text()
        gone = set(self.dropped(request))
        pieces: list[str] = []
        last = 0
        for match in TOKEN.finditer(text):
            if match.group() in gone:
                pieces += [text[last : match.start()], " "]
                last = match.end()
        pieces.append(text[last:])
        return "".join(pieces)


FAKES: dict[str, Callable[[], Model]] = {
    "echo": EchoModel,
    "paraphrase": ParaphraseModel,
    "lossy": LossyModel,
    "wording": WordingModel,
    "phrasing": PhrasingModel,
    **{f"plant-{kind}": planting(kind) for kind in PLANT_KINDS},
}
"""The local models by name: free, deterministic, never recorded."""
FAKE_TYPES = (EchoModel, ParaphraseModel, LossyModel, WordingModel, PhrasingModel, PlantingModel)
