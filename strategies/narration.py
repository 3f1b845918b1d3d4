"""The assistant's words for an action, in the views that show a run as chat text."""

from __future__ import annotations

from compactcheck.strategies.turns import ActivateSkill, CompleteStep, FailAttempt, Say, StartStep

# Every action but a tool batch, which a view shows as calls rather than words.
Spoken = Say | StartStep | CompleteStep | FailAttempt | ActivateSkill


def narration(action: Spoken, *, skill_description: bool = True) -> str:
    """What the assistant writes when it takes ``action``.

    ``skill_description`` adds what an activated skill is for (the session view leaves it out).
    """
    if isinstance(action, Say):
        return action.text
    if isinstance(action, StartStep):
        return f"Starting step {action.step_id}."
    if isinstance(action, CompleteStep):
        return f"Step {action.step_id} is complete: {'; '.join(action.evidence)}."
    if isinstance(action, FailAttempt):
        return f"That did not work: {action.text}."
    about = f" ({action.description})" if skill_description else ""
    return f"Activating the {action.name} skill{about}."
