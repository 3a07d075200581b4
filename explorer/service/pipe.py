"""The way to the compute child and back: requests go in from the UI thread as they are due, and a reader thread
waits for the replies (process mode; see :class:`~explorer.service.ComputeService`).

A worker thread that also sent each request cost a drag step about a millisecond (docs/performance.md): it woke for
a request only once the UI thread let go of the interpreter, after syncing the panel's controls.  Here a request is
in the child the moment the policy lets it start, and several may wait there (the child runs them in turn and the
replies come in the same order), so no key waits for the reply of the one before it to be read.  The replies are
read off the UI thread, as before: the reader waits for the pipe with the interpreter let go, unpickles the reply
and hands it to the UI thread as a queued call.  It waits on the pipe of the child it last wrote to even when
nothing is in the child, so that writing a request does not wake it: a woken reader takes the interpreter the moment
the UI thread lets go of it to write, and the UI thread gets it back only a wake-up later.

The UI thread does not read the pipe itself from a ``QSocketNotifier``: with GLib's event loop, the one Qt uses on
Linux, that left a third of the bench's first drags without a turn of the event loop for 45–100 ms
(docs/performance.md, the third pass's sixth stop).
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


#: A request pickled larger than this waits until the child has answered what it has before it is written (the UI
#: thread writes it, and a pipe takes about 200 kB before a write waits for the child to read).
BIG_REQUEST = 64 * 1024
#: The reader looks at whether it is closed at least this often while it waits for a child that is quiet.
WAIT_S = 0.5


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
        self._sent: deque[tuple[Any, worker.Route]] = deque()  # (tag, route) of each request written, oldest first
        self._outbox: deque[tuple[Any, bytes]] = deque()  # (tag, payload) not written yet (see BIG_REQUEST)
        self._route: worker.Route | None = None  # the child last written to: the reader waits on its pipe
        self._closed = False
        self._replied.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        self.reader = threading.Thread(target=self._read, name="pe-compute-reader", daemon=True)
        self.reader.start()

    def in_child(self) -> int:
        """How many requests are written to the child and not answered yet."""
        with self._cv:
            return len(self._sent)

    def send(self, tag: Any, request: Any) -> tuple[str, str] | None:
        """Hand ``request`` to the child; its reply comes back with ``tag``.  Returns the error of a request that
        cannot be pickled, else None."""
        try:
            payload = worker.pickled(request)
        except worker.JobError as exc:
            return worker.failure(exc)
        self._outbox.append((tag, payload))
        self._flush()
        return None

    def _flush(self) -> None:
        """Write what the outbox holds, in order, up to a big request the child is not free for yet.  The lock is not
        held while writing: a write that waits for the child to read must not keep the reader from its replies."""
        while self._outbox:
            tag, payload = self._outbox[0]
            with self._cv:
                if self._closed:
                    return
                if self._sent and len(payload) > BIG_REQUEST:
                    return  # written from _deliver once the child has answered
            self._outbox.popleft()
            try:
                route = self.child.route()
            except worker.ChildCrashed:  # closed: the service is stopping
                return
            with self._cv:
                self._sent.append((tag, route))
                if route is not self._route:  # the reader waits for this child's pipe from now on
                    self._route = route
                    self._cv.notify()
            self.child.write(route, payload)

    def close(self) -> None:
        """Forget what was sent and let the reader leave (the service closes the child, which ends a wait for a
        reply at once); join :attr:`reader` after."""
        with self._cv:
            self._closed = True
            self._sent.clear()
            self._outbox.clear()
            self._cv.notify_all()

    def _read(self) -> None:
        while True:
            with self._cv:
                while not self._closed and (route := self._waited_on()) is None:
                    self._cv.wait()
                if self._closed or route is None:
                    return
            if not self._replied_by(route):
                continue
            with self._cv:
                if self._closed:
                    return
                if not self._sent or self._sent[0][1] is not route:  # nothing asked of it: that child has gone
                    if self._route is route:
                        self._route = None
                    continue
                tag = self._sent[0][0]
            self._receive(tag, route)

    def _waited_on(self) -> worker.Route | None:
        """The pipe to wait on (with the lock held): the oldest unanswered request's, even closed (receiving on it
        fails what was sent by it), else the last child's while its pipe is open."""
        if self._sent:
            return self._sent[0][1]
        route = self._route
        return None if route is None or route.closed else route

    @staticmethod
    def _replied_by(route: worker.Route) -> bool:
        """Wait up to WAIT_S, with the interpreter let go, for ``route``'s child to reply or to end (True)."""
        try:
            return route.conn.poll(WAIT_S)
        except (OSError, ValueError):  # closed meanwhile
            return True

    def _receive(self, tag: Any, route: worker.Route) -> None:
        """Take the reply to ``tag`` (the oldest request, sent by ``route``) and hand it to the UI thread; a child found
        dead fails every request still in it."""
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
                answers = [(t, None, elapsed, crashed) for t, r in self._sent if r is route]
                self._sent = deque(entry for entry in self._sent if entry[1] is not route)
                if self._route is route:
                    self._route = None
        try:
            self._replied.emit(answers)
        except RuntimeError:  # deleted during shutdown
            return

    @Slot(object)
    def _deliver(self, answers: list[Answer]) -> None:
        with self._cv:
            if self._closed:
                return
        self._flush()  # a big request that waited for the child to be free
        self._answered(answers)
