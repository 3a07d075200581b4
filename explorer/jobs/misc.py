"""Small service-level jobs: warm-up (import torch off the UI thread), and a probe of where jobs run."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

from . import job


@dataclass(frozen=True)
class WarmUpRequest:
    """Import the heavy libraries on the worker so the first real job is quick."""

    key: str = "service.warmup"


@job(WarmUpRequest)
def warm_up(request: WarmUpRequest) -> str:
    import torch

    # The service's torch jobs are tiny (a rotation or an embedding lookup over <= 64 tokens).  On a
    # 2-core laptop that also runs the UI, torch's intra-op thread pool only adds wake-up latency
    # (0.4 ms calls spiking to ~60 ms under load), so the interactive app uses one thread.  The Lab
    # sets its own count while it trains and restores this one afterwards.
    torch.set_num_threads(1)
    return "torch " + torch.__version__


@dataclass(frozen=True)
class ProbeRequest:
    """Where do jobs run?  Answers the process id, when the job began (``time.monotonic()``: one clock for every
    process here) and whether torch is loaded there, after ``sleep_s`` seconds; raises ``ValueError(fail)`` when
    ``fail`` is set (the compute-process tests)."""

    sleep_s: float = 0.0
    fail: str = ""
    #: Import torch first and answer its thread count too.
    load_torch: bool = False
    key: str = "service.probe"


@job(ProbeRequest)
def probe(request: ProbeRequest) -> dict:
    began = time.monotonic()
    time.sleep(request.sleep_s)
    if request.fail:
        raise ValueError(request.fail)
    out: dict = {"pid": os.getpid(), "began": began, "torch": "torch" in sys.modules}
    if request.load_torch:
        import torch

        out["torch_threads"] = torch.get_num_threads()
    return out
