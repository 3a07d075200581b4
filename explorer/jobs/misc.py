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
    import torch

    # The service's torch jobs are tiny (attention over <= 64 tokens, an embedding lookup).  On a
    # 2-core laptop that also runs the UI, torch's intra-op thread pool only adds wake-up latency
    # (0.4 ms calls spiking to ~60 ms under load), so the interactive app uses one thread.  The Lab
    # sets its own count while it trains and restores this one afterwards.
    torch.set_num_threads(1)
    return "torch " + torch.__version__
