"""What a comparison measures a group's change in (its *basis*), and the noise
below which nothing changed: the choices the command line offers.

``time``
    total kernel time (what the user waits for);
``cycles``
    total elapsed SM cycles: independent of the clock the GPU ran at, so a
    runner with another (or an unlocked) clock is not mistaken for a code
    change;
``per-launch``
    mean time per launch, for profiles that captured different numbers of
    launches;
``auto``
    ``cycles`` when the two sides' SM clocks differ by more than the noise,
    ``time`` otherwise.

Plain Python: ``compare --help`` shows the choices without numpy.
"""

from __future__ import annotations

__all__ = ["BASES", "DEFAULT_NOISE", "resolve_basis"]

#: The bases ``compare`` accepts; ``total`` is the former name of ``time``.
BASES: tuple[str, ...] = ("auto", "time", "cycles", "per-launch")

#: Default relative change of a group's total time below which it counts as unchanged.
DEFAULT_NOISE = 0.02


def resolve_basis(basis: str, clocks_differ: bool, has_cycles: bool) -> tuple[str, str]:
    """The basis ``auto`` stands for, and why: ``(basis, reason)``."""
    if basis == "total":
        basis = "time"
    if basis != "auto":
        return basis, "chosen"
    if not clocks_differ:
        return "time", "the SM clocks agree within noise or are unknown"
    if not has_cycles:
        return "time", "the SM clocks differ but the exports carry no elapsed cycles"
    return "cycles", "the SM clocks differ beyond noise"
