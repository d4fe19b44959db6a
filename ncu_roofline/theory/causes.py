"""Likely causes of a kernel's excess DRAM traffic (measured bytes over the theory's
minimum), by kernel family: what the excess-traffic finding suggests to look at."""

from __future__ import annotations

__all__ = ["CAUSES", "causes_for"]

#: Likely causes of excess DRAM traffic, by family.
CAUSES: dict[str, str] = {
    "attention_decode": (
        "paged attention reading each KV head once per query head (GQA), split-KV partials, "
        "whole pages loaded for partly filled blocks"
    ),
    "attention_prefill": "K/V re-read for every query tile without L2 reuse, spilled scores",
    "gemm": "no reuse or poor tiling across CTAs, split-K partials, activations re-read per tile",
    "gemv": "split-K partial sums, unvectorised loads (sector over-fetch), weights read more than once",
    "grouped_gemm": "activations gathered per expert assignment, padded expert tiles, weights re-read",
}
_DEFAULT_CAUSES = "no reuse or tiling, uncoalesced or strided access (sector over-fetch), re-reads, register spills"


def causes_for(family: str | None) -> str:
    """The likely causes of excess DRAM traffic for a kernel family."""
    return CAUSES.get(family or "", _DEFAULT_CAUSES)
