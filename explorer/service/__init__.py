"""The compute service: every numeric job runs on a service-owned worker; the UI thread never computes.

:mod:`.core` holds :class:`ComputeService` (interactive requests, one policy per key) and :class:`Handle`;
:mod:`.long` the long jobs (the Lab's training) on workers of their own; :mod:`.results` what comes back.
"""

from .core import FINISHED, ComputeService, Handle, stop_all
from .long import LongHandle
from .results import Failure, Result

__all__ = ["FINISHED", "ComputeService", "Failure", "Handle", "LongHandle", "Result", "stop_all"]
