"""The bench's QApplication: while a ledger is attached, every event it delivers is recorded."""

from __future__ import annotations

import threading

from PySide6.QtWidgets import QApplication

from .split import FrameLedger


class TimedApplication(QApplication):
    """A QApplication that tells :attr:`ledger` (when set) each event it delivers, with its receiver, so the
    frame split can name what is left of a frame outside the parts the app marks (see :mod:`.split`).

    With no ledger each event costs one Python call more than a plain QApplication; the bench's window runs in
    one of these whether or not a drag is being recorded, so its other timings pay that too (about 1 µs an
    event, a few hundred events a frame).
    """

    ledger: FrameLedger | None = None

    def notify(self, receiver, event) -> bool:  # noqa: D102 - Qt override
        ledger = self.ledger
        if ledger is None or threading.get_ident() != ledger.thread:  # a worker's event loop is no frame's
            return super().notify(receiver, event)
        ledger.enter_event(receiver, event)
        try:
            return super().notify(receiver, event)
        finally:
            ledger.leave()
