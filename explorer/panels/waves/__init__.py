"""Waves panel: the sinusoidal encoding as eight linked views (see :mod:`.panel`)."""

from .panel import WavesPanel

__all__ = ["WavesPanel"]
