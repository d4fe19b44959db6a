"""The phases of a forward pass a model is expanded for, and the tokens each handles."""

from __future__ import annotations

__all__ = ["PHASES", "tokens_per_pass"]

#: Phases :func:`~ncu_roofline.theory.models.expand_model` knows.
PHASES: tuple[str, ...] = ("decode", "prefill")


def tokens_per_pass(phase: str, batch: int, seq: int) -> int:
    """Tokens one forward pass handles: ``batch`` new tokens in decode, ``batch x seq`` in prefill.

    Decode appends one token to each of ``batch`` sequences (generated
    tokens); prefill reads ``seq`` prompt tokens of each sequence.
    """
    return batch if str(phase).strip().lower() == "decode" else batch * seq
