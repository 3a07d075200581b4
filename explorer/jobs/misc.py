"""Small service-level jobs: warm-up (import torch off the UI thread)."""

from __future__ import annotations

from dataclasses import dataclass

from . import job


@dataclass(frozen=True)
class WarmUpRequest:
    """Import the heavy libraries on the worker so the first real job is quick."""

    key: str = "service.warmup"


@job(WarmUpRequest)
def warm_up(request: WarmUpRequest) -> str:
    import torch  # noqa: F401  (the point of this job)

    return "torch " + torch.__version__
