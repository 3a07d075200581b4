"""The compute process: jobs run in a child process that holds numpy and torch (no Qt here).

The UI process paints; a job running beside it on a thread shares its GIL (the UI thread held it 88 %
of a drag, and jobs took 1.1–2× longer), and importing torch there adds ~141k objects to every full
garbage collection.  So :class:`~explorer.service.ComputeService` keeps its scheduling policy in the UI
process and hands each request to :class:`ComputeProcess`: one child started
with multiprocessing's "spawn" (never a plain fork of a Qt process) that runs ``jobs.run(request)``
and sends the response back (12–400 kB; pickling costs well under a millisecond).  A long job (the
Lab's training) runs in a child of its own through :func:`run_long`, with pause and cancel shared as
multiprocessing events and progress sent over a pipe.

No child outlives the app: :meth:`ComputeProcess.close` asks the child to leave and terminates it if
it does not; a child ignores Ctrl+C (the terminal sends SIGINT to the whole process group; the parent
ends it as it shuts down) and leaves by itself when its parent is gone.  A child that dies (killed,
out of memory) is reported as :class:`ChildCrashed` and started afresh for the next job.

``PE_EXPLORER_COMPUTE=thread`` (or ``ComputeService(mode="thread")``) keeps the jobs on the service's
thread in the UI process, as before: the test suite uses it for tests that stand in their own jobs.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.reduction import ForkingPickler
from typing import Any

#: Environment variable choosing where jobs run: "process" (the default) or "thread".
MODE_ENV = "PE_EXPLORER_COMPUTE"
MODES = ("process", "thread")

_CTX = mp.get_context("spawn")


class ChildCrashed(RuntimeError):
    """The compute process ended without answering (killed, crashed, out of memory)."""


class JobError(Exception):
    """A job raised in the child: ``message`` for the banner, ``details`` its traceback."""

    def __init__(self, message: str, details: str) -> None:
        super().__init__(message)
        self.message, self.details = message, details


def compute_mode(mode: str | None = None) -> str:
    """Where jobs run: ``mode`` if given, else ``$PE_EXPLORER_COMPUTE``, else "process"."""
    chosen = (mode or os.environ.get(MODE_ENV) or "process").strip().lower()
    if chosen not in MODES:
        raise ValueError(f"{MODE_ENV} must be one of {', '.join(MODES)}, got {chosen!r}")
    return chosen


def error_message(exc: BaseException) -> str:
    """A job's error for the banner: a ValueError's message as it is, anything else with its type."""
    return str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"


def failure(exc: BaseException) -> tuple[str, str]:
    """A job's error as its requester gets it: ``(message, details)``."""
    if isinstance(exc, JobError):
        return exc.message, exc.details
    if isinstance(exc, ChildCrashed):
        return str(exc), ""
    return error_message(exc), traceback.format_exc()


def limit_blas_threads(n: int = 1) -> bool:
    """Limit numpy's BLAS (OpenBLAS, MKL) to ``n`` threads in this process; False without threadpoolctl.

    OpenBLAS's helper thread spins after each call: 0.75–1.8 CPU-seconds per 2-second drag on a
    2-core laptop, while the UI thread waited for a free core.  The jobs' matrices are small, so one
    thread loses nothing.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a dependency; an old environment still runs
        return False
    import numpy  # noqa: F401 - threadpoolctl limits the BLAS libraries already loaded

    threadpool_limits(limits=n, user_api="blas")
    return True


def describe_exit(code: int | None) -> str:
    if code is None:
        return "it did not answer"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


# -- in the child ----------------------------------------------------------------------------------
#: The cores this process may run on, as it started (the children are given them: see explorer.service.cores).
ALLOWED_CPUS: frozenset[int] = frozenset(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else frozenset()


def _watch_parent(parent_pid: int) -> None:
    while True:
        if os.getppid() != parent_pid:  # the parent died without closing us (SIGKILL): leave too
            os._exit(0)
        time.sleep(0.5)


def every_core(cpus: frozenset[int] = ALLOWED_CPUS) -> None:
    """Run the calling thread on ``cpus`` (the app's as it started): a thread or a child started from the UI thread
    while a slider is held inherits its one core (explorer.service.cores)."""
    if cpus and hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, cpus)


def _child_setup(parent_pid: int, cpus: frozenset[int] = frozenset()) -> None:
    every_core(cpus)  # the parent's cores as it started
    # Ctrl+C in a terminal reaches the whole process group: the parent decides, and ends this child.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="pe-parent-watch", daemon=True).start()
    limit_blas_threads(1)
    # Torch, imported later by the first job that needs it, sizes its thread pool from this: one thread from its
    # first call (the warm-up's set_num_threads(1) comes after the panels' first jobs, and never again in a child
    # started anew after a crash).  The jobs' torch calls are small: a pool only adds wake-ups beside the UI.
    os.environ["OMP_NUM_THREADS"] = "1"


def serve(conn, parent_pid: int, cpus: frozenset[int] = frozenset()) -> None:
    """The compute child's loop: a request in, ``("ok", value, ms)`` or ``("error", message, details)`` out."""
    _child_setup(parent_pid, cpus)
    from . import jobs

    jobs._load_all()
    # What the imports made (torch's ~141k objects) lives as long as the child: out of every collection's
    # walk (a full one took about 130 ms here, and held the drag step that came with it for as long).
    gc.collect()  # (the imports' garbage is not kept for good)
    gc.freeze()
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):  # the parent has gone
            return
        except Exception as exc:  # noqa: BLE001 - a request this side cannot unpickle is that job's error
            reply: tuple = ("error", error_message(exc), traceback.format_exc())
        else:
            if request is None:
                return
            t0 = time.perf_counter()
            try:
                value = jobs.run(request)
                reply = ("ok", value, (time.perf_counter() - t0) * 1e3)
            except Exception as exc:  # noqa: BLE001 - every job error goes back to the requester
                reply = ("error", error_message(exc), traceback.format_exc())
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return
        except Exception as exc:  # noqa: BLE001 - a response that cannot be pickled
            conn.send(("error", error_message(exc), traceback.format_exc()))


def _run_long_child(fn, control_type, cancel_ev, running_ev, writer, parent_pid: int,
                    cpus: frozenset[int] = frozenset()) -> None:
    _child_setup(parent_pid, cpus)
    control = control_type()
    control.use_events(cancel_ev, running_ev)
    try:
        value = fn(control, lambda p: writer.send(("progress", p)))
    except Exception as exc:  # noqa: BLE001 - a failed job must reach its requester
        writer.send(("error", (error_message(exc), traceback.format_exc())))
    else:
        writer.send(("result", value))
    writer.close()


# -- in the parent ---------------------------------------------------------------------------------
_MAIN_LOCK = threading.Lock()


def start_without_main(proc) -> None:
    """Start ``proc`` (spawn) without it importing the parent's ``__main__``.

    Spawn re-runs the main script in the child (as ``__mp_main__``) to find functions defined there; a
    script that opens the window without an ``if __name__ == "__main__":`` guard (a student's, a
    screenshot script) then opened a second window in the child, which tried to start a compute process
    of its own during its bootstrapping: a RuntimeError in every plot.  Our targets live in importable
    modules (this one, ``explorer.lab``), so the main module is hidden from the preparation data while
    the child starts: it imports only what its target needs (faster, too).
    """
    main = sys.modules.get("__main__")
    with _MAIN_LOCK:
        saved: dict[str, object] = {k: main.__dict__[k] for k in ("__spec__", "__file__")
                                    if main is not None and k in main.__dict__}
        try:
            if main is not None:
                main.__dict__["__spec__"] = None
                main.__dict__.pop("__file__", None)
            proc.start()
        finally:
            if main is not None:
                main.__dict__.update(saved)
                if "__spec__" not in saved:
                    main.__dict__.pop("__spec__", None)


def _end(proc, timeout: float) -> None:
    """Wait up to ``timeout`` for ``proc`` to leave, then terminate it, then kill it; reap it."""
    proc.join(max(0.0, timeout))
    if proc.is_alive():
        proc.terminate()
        proc.join(1.0)
    if proc.is_alive():  # pragma: no cover - SIGTERM is not ignored in the child
        proc.kill()
        proc.join(1.0)


class Route:
    """The child a request went to and the parent's end of its pipe, with how many requests sent by it are not
    answered yet (only the thread that receives on it closes its pipe once the child has died)."""

    __slots__ = ("proc", "conn", "unanswered", "closed")

    def __init__(self, proc, conn) -> None:
        self.proc, self.conn, self.unanswered, self.closed = proc, conn, 0, False


class ComputeProcess:
    """One compute child that runs ``jobs.run(request)``: started on first use, again after a crash.

    :meth:`send` (or :meth:`route` and :meth:`write`) is meant for one thread and :meth:`receive` for one thread,
    the same or another (the UI thread sends and the service's pipe reader receives; elsewhere the service's worker
    does both, :meth:`call`); :meth:`close` may come from any.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._route: Route | None = None  # the child now, and its pipe
        self._closed = False
        #: How many children were started (1, plus one per restart after a crash).
        self.starts = 0

    @property
    def pid(self) -> int | None:
        """The child's process id, while it runs."""
        route = self._route
        return route.proc.pid if route is not None and route.proc.is_alive() else None

    def _start(self) -> Route:
        parent, child = _CTX.Pipe()
        proc = _CTX.Process(target=serve, args=(child, os.getpid(), ALLOWED_CPUS), name="pe-compute-process",
                            daemon=True)
        start_without_main(proc)
        child.close()  # ours closed, the child's end is the only one: its death reads as EOF here
        self._route = Route(proc, parent)
        self.starts += 1
        return self._route

    def _forget(self, route: Route) -> None:
        with self._lock:
            if self._route is route:
                self._route = None
            self._close_pipe(route)

    @staticmethod
    def _close_pipe(route: Route) -> None:
        """Close ``route``'s pipe once (with the lock held): the receiving thread and close() may both get here, and a
        second close could hit a descriptor the system has given to something else by then."""
        if not route.closed:
            route.closed = True
            route.conn.close()

    def route(self) -> Route:
        """The way to the child, started first if there is none or it died (a dead child's pipe is left to whoever
        receives on it: the reader may be in the middle of finding that it died).  Raises :class:`ChildCrashed` once
        closed."""
        with self._lock:
            if self._closed:
                raise ChildCrashed("the compute process has stopped")
            old = self._route
            if old is not None and old.proc.is_alive():
                return old
            if old is not None:
                old.proc.join(0.1)
                if not old.unanswered:  # nobody waits on it: ours to close
                    self._close_pipe(old)
            return self._start()

    def write(self, route: Route, payload: bytes) -> None:
        """Send a pickled request (``ForkingPickler.dumps``) by ``route``; its reply comes to :meth:`receive`.  A
        child found gone here is reported by :meth:`receive`."""
        with self._lock:
            route.unanswered += 1
        try:
            route.conn.send_bytes(payload)
        except (EOFError, OSError):
            pass  # the child is gone: receive() finds it

    def send(self, request) -> Route:
        """Hand ``request`` to the child without waiting for it (:meth:`route`, then :meth:`write`), and return its
        route for :meth:`receive`.  Several may be sent before the first is answered: the child runs them in turn
        and the replies come in the same order.  Raises :class:`JobError` when the request cannot be pickled and
        :class:`ChildCrashed` once closed."""
        payload = pickled(request)
        route = self.route()
        self.write(route, payload)
        return route

    def receive(self, route: Route) -> tuple[Any, float]:
        """Wait for the reply to the oldest unanswered request sent by ``route``: ``(value, elapsed ms)``.

        Raises :class:`JobError` when the job raised and :class:`ChildCrashed` when the child died (the next
        request starts a new one) or the process was closed.
        """
        proc, conn = route.proc, route.conn
        try:
            while not conn.poll(0.2):
                if not proc.is_alive():
                    raise EOFError
            reply = conn.recv()
        except (EOFError, OSError, ValueError, TypeError):  # closed under us, or the child died
            with self._lock:
                route.unanswered = 0
            proc.join(0.5)
            self._forget(route)
            raise ChildCrashed(f"the compute process stopped unexpectedly ({describe_exit(proc.exitcode)}); "
                               "a new one starts for the next request") from None
        with self._lock:
            route.unanswered = max(0, route.unanswered - 1)
        if reply[0] == "ok":
            return reply[1], reply[2]
        raise JobError(reply[1], reply[2])

    def call(self, request) -> tuple[Any, float]:
        """Run ``request`` in the child and wait for it: :meth:`send`, then :meth:`receive`."""
        return self.receive(self.send(request))

    def close(self, timeout: float = 1.0) -> None:
        """Ask the child to leave (at once if it is in a job: a job's work is thrown away anyway);
        terminate it if it has not left after ``timeout``.  Nothing is left running."""
        with self._lock:
            self._closed = True
            route = self._route
        if route is None:
            return
        if route.unanswered:
            route.proc.terminate()
        else:
            try:
                route.conn.send(None)
            except (OSError, ValueError):
                pass
        _end(route.proc, timeout)
        self._forget(route)


def pickled(request) -> bytes:
    """``request`` as the child's ``conn.recv()`` reads it; :class:`JobError` when it cannot be pickled."""
    try:
        return bytes(ForkingPickler.dumps(request))
    except Exception as exc:  # noqa: BLE001 - a request that cannot be pickled is its own error
        raise JobError(error_message(exc), traceback.format_exc()) from exc


def run_long(fn: Callable, control, on_event: Callable[[str, Any], None], on_start: Callable[[Any], None]) -> None:
    """Run ``fn(control, report)`` in a child of its own; blocks (call it on a thread) until it has ended.

    ``control`` (a :class:`~explorer.jobs.control.JobControl`) is shared with the child: pausing or
    cancelling it here holds or stops the child at its next checkpoint.  ``on_start(process)`` is called
    once the child runs; then ``on_event("progress", value)`` for each report, and once the child has
    ended ``on_event("result", value)`` or ``on_event("error", (message, details))``.
    """
    cancel_ev, running_ev = _CTX.Event(), _CTX.Event()
    control.use_events(cancel_ev, running_ev)
    reader, writer = _CTX.Pipe(duplex=False)
    proc = _CTX.Process(target=_run_long_child, name="pe-long-process", daemon=True,
                        args=(fn, type(control), cancel_ev, running_ev, writer, os.getpid(), ALLOWED_CPUS))
    start_without_main(proc)
    writer.close()
    on_start(proc)
    final: tuple[str, Any] | None = None
    try:
        while True:
            try:
                kind, value = reader.recv()
            except (EOFError, OSError):
                break
            if kind == "progress":
                on_event(kind, value)
            else:
                final = (kind, value)
    finally:
        reader.close()
        _end(proc, 2.0)
    if final is None:
        final = ("error", (f"the training process stopped unexpectedly ({describe_exit(proc.exitcode)})", ""))
    on_event(*final)
