"""The way to the compute child and back: requests go in from the UI thread as they are due, and a reader thread
waits for the replies (process mode; see :class:`~explorer.service.ComputeService`).

A worker thread that also sent each request cost a drag step about a millisecond (docs/performance.md): it woke for
a request only once the UI thread let go of the interpreter, after syncing the panel's controls.  Here a request is
in the child the moment the policy lets it start, and several may wait there (the child runs them in turn and the
replies come in the same order), so no key waits for the reply of the one before it to be read.  The replies are
read off the UI thread, as before: the reader waits for the pipe with the interpreter let go, unpickles the reply
and hands it to the UI thread as a queued call.  (The UI thread reading the pipe itself, from a ``QSocketNotifier``,
was tried: with GLib's event loop, the one Qt uses on Linux, it left the heartbeat of a third of the bench's first
drags without a turn for 45–100 ms.)
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from .. import worker

#: What a reply becomes: ``(tag, value, elapsed ms, error)`` — ``tag`` as given to :meth:`ChildPipe.send`, ``error``
#: None or ``(message, details)``.
Answer = tuple[Any, Any, float, "tuple[str, str] | None"]


class ChildPipe(QObject):
    """Send requests to ``child`` without waiting, and hand its replies to ``answered`` (a list of :data:`Answer`)
    on the thread that owns this object, in the order they were sent."""

    _replied = Signal(object)  # from the reader thread: a queued call to _deliver

    def __init__(self, child: worker.ComputeProcess, answered: Callable[[list[Answer]], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.child = child
        self._answered = answered
        self._cv = threading.Condition()
        self._sent: deque[tuple[Any, Any]] = deque()  # (tag, route) of each request in the child, oldest first
        self._closed = False
        self._replied.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        self.reader = threading.Thread(target=self._read, name="pe-compute-reader", daemon=True)
        self.reader.start()

    def __len__(self) -> int:
        """How many requests the child has not answered yet."""
        with self._cv:
            return len(self._sent)

    def send(self, tag: Any, request: Any) -> tuple[str, str] | None:
        """Hand ``request`` to the child; its reply comes back with ``tag``.  Returns the error of a request that
        could not be sent (it cannot be pickled, or the process was closed), else None."""
        with self._cv:  # (sent under the lock: the reader reads each reply from the pipe its request went by)
            if self._closed:
                return ("the compute process has stopped", "")
            try:
                route = self.child.send(request)
            except Exception as exc:  # noqa: BLE001 - a request that cannot be sent is its own requester's error
                return worker.failure(exc)
            self._sent.append((tag, route))
            self._cv.notify()
        return None

    def close(self) -> None:
        """Forget what was sent and let the reader leave (the service closes the child, which ends a wait for a
        reply at once); join :attr:`reader` after."""
        with self._cv:
            self._closed = True
            self._sent.clear()
            self._cv.notify_all()

    def _read(self) -> None:
        while True:
            with self._cv:
                while not self._sent and not self._closed:
                    self._cv.wait()
                if self._closed:
                    return
                tag, route = self._sent[0]
            t0 = time.perf_counter()
            crashed = None
            try:
                value, elapsed = self.child.receive(route)
                answers: list[Answer] = [(tag, value, elapsed, None)]
            except worker.ChildCrashed as exc:
                crashed, answers = worker.failure(exc), []
            except Exception as exc:  # noqa: BLE001 - every job error goes back to the requester
                answers = [(tag, None, (time.perf_counter() - t0) * 1e3, worker.failure(exc))]
            with self._cv:
                if self._closed:
                    return
                if crashed is None:
                    self._sent.popleft()
                else:  # every request still in that child went down with it
                    elapsed = (time.perf_counter() - t0) * 1e3
                    answers = [(t, None, elapsed, crashed) for t, r in self._sent if r[1] is route[1]]
                    self._sent = deque(entry for entry in self._sent if entry[1][1] is not route[1])
            try:
                self._replied.emit(answers)
            except RuntimeError:  # deleted during shutdown
                return

    @Slot(object)
    def _deliver(self, answers: list[Answer]) -> None:
        with self._cv:
            if self._closed:
                return
        self._answered(answers)
