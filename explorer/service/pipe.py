"""The UI thread's side of the compute child's pipe: requests go in as they are due, and the event loop says when
replies are there (process mode on POSIX; see :class:`~explorer.service.ComputeService`).

A worker thread between the UI thread and the child cost a drag step about 1.5 ms (docs/performance.md): it woke for
a request only once the UI thread let go of the interpreter (after syncing the panel's controls), and its reply was
read, unpickled and queued back to the UI thread the same way.  Here a request is in the child the moment it is
sent, several may wait there (the child runs them in turn, the replies come in the same order), and the replies are
read when the UI thread is next in its event loop (a ``QSocketNotifier`` on the pipe, enabled while a reply is due).
Windows cannot watch a pipe that way: there the service keeps a worker thread that waits for the child.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QSocketNotifier, Slot

from .. import worker

#: What a reply becomes: ``(tag, value, elapsed ms, error)`` — ``tag`` as given to :meth:`ChildPipe.send`, ``error``
#: None or ``(message, details)``.
Answer = tuple[Any, Any, float, "tuple[str, str] | None"]


class ChildPipe(QObject):
    """Send requests to ``child`` without waiting, and hand its replies to ``answered`` (a list of
    :data:`Answer`, oldest first) from the event loop, on the thread that owns this object."""

    def __init__(self, child: worker.ComputeProcess, answered: Callable[[list[Answer]], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.child = child
        self._answered = answered
        self._sent: deque[Any] = deque()  # the tags of the requests in the child, oldest first
        self._notifier: QSocketNotifier | None = None
        self._watched: Any = None  # the connection the notifier watches (a new child is a new pipe)

    def __len__(self) -> int:
        """How many requests the child has not answered yet."""
        return len(self._sent)

    def send(self, tag: Any, request: Any) -> tuple[str, str] | None:
        """Hand ``request`` to the child; its reply comes back with ``tag``.  Returns the error of a request that
        could not be sent (it cannot be pickled, or the process was closed), else None."""
        try:
            self.child.send(request)
        except Exception as exc:  # noqa: BLE001 - a request that cannot be sent is its own requester's error
            return worker.failure(exc)
        self._sent.append(tag)
        conn = self.child.connection
        if self._notifier is None or self._watched is not conn:
            self._unwatch()
            self._notifier = QSocketNotifier(conn.fileno(), QSocketNotifier.Type.Read, self)
            self._notifier.activated.connect(self._on_readable)
            self._watched = conn
        self._notifier.setEnabled(True)
        return None

    def close(self) -> None:
        """Stop watching the pipe and forget what was sent (the service closes the child)."""
        self._unwatch()
        self._sent.clear()

    def _unwatch(self) -> None:
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.deleteLater()
            self._notifier = self._watched = None

    @Slot()
    def _on_readable(self) -> None:
        """The child has answered (or died): read every reply there is, then hand them over."""
        if self._notifier is not None:
            self._notifier.setEnabled(False)  # off before the pipe may be closed under it (a child that died)
        answers: list[Answer] = []
        while self._sent:
            conn = self.child.connection
            if answers and (conn is None or not conn.poll(0)):
                break
            tag = self._sent.popleft()
            t0 = time.perf_counter()
            try:
                value, elapsed = self.child.receive()
                answers.append((tag, value, elapsed, None))
            except worker.ChildCrashed as exc:  # every request still in it went down with it
                lost = [tag, *self._sent]
                self.close()
                answers += [(t, None, (time.perf_counter() - t0) * 1e3, worker.failure(exc)) for t in lost]
            except Exception as exc:  # noqa: BLE001 - every job error goes back to the requester
                answers.append((tag, None, (time.perf_counter() - t0) * 1e3, worker.failure(exc)))
        if self._sent and self._notifier is not None:
            self._notifier.setEnabled(True)
        if answers:
            self._answered(answers)
