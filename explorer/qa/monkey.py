"""A seeded GUI monkey: thousands of random but legal user events fired at the real main window.

What a user can do, the monkey does — on widgets that are visible and enabled, through Qt events
where a user's input is an event: slider drags (pressed, moved, released), arrow/Page/Home/End keys
on sliders, typing into spin boxes and line edits (good numbers, and empty text, letters, NaN, inf,
huge, negative), combo choices, check boxes, buttons, clicks and wheel turns on plots, tab clicks,
dock moves (float, unfloat, hide, show, tabify, move to another side, reset layout), window resizes,
token swaps (chips clicked then Swap, and drops of one chip onto another), the built-in lecture
scenes from the Presets menu, saving and loading presets (good and broken files), undo/redo, resets,
presenter mode, themes, text zoom, full screen, and exports to a folder (PNG, SVG, CSV, NPY,
clipboard, a GIF sweep).  Dialogs are answered the way the window's tests answer them: the window's
small dialog methods are replaced (file names in the given folder, error boxes recorded instead of
shown).  The Lab's Start button is left alone (a run takes a minute), as are its Open/Save buttons
(native file dialogs); every other Lab control is used.

Whenever the monkey waits for the window to settle (:func:`settle`: nothing computing or waiting), and
after the last event, :func:`final_mismatches` checks that every plot shows the result of the current
parameters.

A failure raises :class:`MonkeyFailure` naming the seed, the event number and the last events, so it
can be replayed: ``python -m explorer.qa.monkey --seed S --events N`` (offscreen) runs the same sequence.
Replays are exact up to timing: where a result arrives (or the Waves animation ticks) between two
events can differ, which only changes values, not which events are fired.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

from .monkey_checks import (  # noqa: F401 - re-exported: the tests and replays import them from here
    IGNORED_QT_MESSAGES,
    PROCESS_SHARE,
    Counts,
    DrawnRecorder,
    MonkeyFailure,
    _clip,
    _qt,
    _short,
    final_mismatches,
    process,
    settle,
    type_text,
)
from .monkey_events import WidgetEvents

#: The widest a panel may ask to be at 100 % text size (the zoom scales it): a 1280 × 720 projector.
MAX_PANEL_WIDTH = 1280


class Monkey(WidgetEvents):
    """Fires random legal events at ``window``; files go to ``folder``.  See the module docstring."""

    def __init__(self, window, seed: int, folder: str | Path, hostile: dict[str, bytes] | None = None) -> None:
        self.window = window
        self.seed = seed
        self.rng = random.Random(seed)
        #: Names this event in :meth:`_pick` (each event has a random source of its own, see :meth:`run`).
        self._event_key = f"{seed}:-1"
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        #: Hostile files "Open preset…" may be handed (the test's corpus; a FIFO and a folder always).
        self.hostile = self._write_hostile(hostile or {})
        self.history: collections.deque[str] = collections.deque(maxlen=20)
        #: What every event did, in order (the walk).
        self.walk: list[str] = []
        self.messages: list[str] = []  # error boxes the app would have shown
        self.counts = Counts()
        self.recorder = DrawnRecorder(window)
        self._files = 0
        self._problems: list[str] = []
        self._answer_dialogs()
        lab = window.panels.get("lab")
        self._excluded = set()
        if lab is not None:
            self._excluded = {id(lab.start_button), id(lab.open_button), id(lab.save_button)}
        schemes = window.panels.get("schemes")
        if schemes is not None:  # "Open model config…" is handed the same files as "Open preset…"
            schemes.view("model").ask_config_path = self._pick_preset_file
        table = window.panels.get(window.panel_docks.TABLE_PANEL)
        if table is not None:  # "Open checkpoint…": hostile files, a folder, a missing file, never a dialog
            table.ask_checkpoint_path = self._pick_checkpoint
        # (weight, action); an action returns a short description of what it did, or None if it
        # found nothing to act on.
        self.actions = [
            (14, self.slider_drag), (10, self.slider_keys), (10, self.type_number), (5, self.type_words),
            (6, self.combo), (5, self.check_box), (5, self.button), (5, self.plot_mouse),
            (5, self.tab), (4, self.dock), (4, self.swap_tokens), (1, self.preset), (1, self.preset_file),
            (5, self.undo_redo), (1, self.reset), (1.5, self.look), (1, self.export), (3, self.wait),
        ]
        if self.hostile:  # a run about hostile files opens files often
            self.actions = [(8 if act == self.preset_file else w, act) for w, act in self.actions]
        self._total_weight = sum(w for w, _ in self.actions)

    # -- dialogs answered without a person -------------------------------------------------------
    def _next_path(self, stem: str, ext: str) -> str:
        self._files += 1
        return str(self.folder / f"{self._files:05d}-{stem}{ext}")

    def _write_hostile(self, files: dict[str, bytes]) -> list[Path]:
        if not files:
            return []
        where = self.folder / "hostile"
        where.mkdir(exist_ok=True)
        out = []
        for name, data in files.items():
            path = where / f"{name}.json"
            path.write_bytes(data)
            out.append(path)
        fifo, folder = where / "fifo.json", where / "a-folder.json"
        if hasattr(os, "mkfifo") and not fifo.exists():
            os.mkfifo(fifo)
            out.append(fifo)
        folder.mkdir(exist_ok=True)
        return out + [folder]

    def _answer_dialogs(self) -> None:
        w = self.window
        # The window's questions go through these methods of its own parts: the seams the window's tests use too.
        d, e = w.dialogs, w.exporter
        d.show_error = lambda title, message: self.messages.append(f"{title}: {message}")  # type: ignore[method-assign]
        d.ask_save_path = lambda default_name: self._next_path("preset", ".json")  # type: ignore[method-assign]
        d.ask_open_path = lambda: self._pick_preset_file()  # type: ignore[method-assign]
        d.ask_preset_details = lambda title="": (  # type: ignore[method-assign]
            self.rng.choice(("Monkey", "Week 3 — RoPE", "x" * 40)), "notes")
        d.ask_overwrite = lambda path, title: self.rng.random() < 0.5  # type: ignore[method-assign]
        e.ask_save_path = lambda title, default_name, ext: (  # type: ignore[method-assign]
            self._next_path("export", ext))
        e.ask_width = lambda current: self.rng.choice((16, 320, 800, 1600))  # type: ignore[method-assign]
        e.show_error = lambda message: self.messages.append(f"Export failed: {message}")  # type: ignore[method-assign]

    def _pick_preset_file(self) -> str | None:
        saved = sorted(self.folder.glob("*.json"))
        broken = self.folder / "broken.json"
        if not broken.exists():
            broken.write_text('{"version": 1, "panels": {"waves": {"base": 5}}}', encoding="utf-8")
        choices = [str(p) for p in saved] + [str(broken), str(self.folder / "missing.json")]
        choices += [str(p) for p in self.hostile] * 2  # hostile files, when given, come up often
        return self.rng.choice(choices)

    def _pick_checkpoint(self) -> str:
        return self.rng.choice([str(p) for p in self.hostile] + [str(self.folder), str(self.folder / "none.bin")])

    # -- what is on screen -------------------------------------------------------------------------
    def preset(self):
        w = self.window
        w._fill_presets_menu()  # what opening the menu does (aboutToShow)
        acts = [a for a in w.menus["Presets"].actions()
                if a.isEnabled() and not a.isSeparator() and a.menu() is None
                and a not in (w.acts["actOpenPreset"], w.acts["actSavePreset"], w.acts["actSavePresetFile"],
                              w.acts["actOpenPresetsFolder"])]
        if not acts:
            return None
        a = self.rng.choice(acts)
        a.trigger()
        return f"Presets → {a.text().replace('&', '')!r}"

    def preset_file(self):
        w = self.window
        what = self.rng.choice(("save file", "save mine", "open"))
        if what == "save file":
            w.acts["actSavePresetFile"].trigger()
        elif what == "save mine":
            w.acts["actSavePreset"].trigger()
        else:
            w.acts["actOpenPreset"].trigger()
        return f"File → {what}"

    def undo_redo(self):
        w = self.window
        act = self.rng.choice((w.acts["actUndo"], w.acts["actUndo"], w.acts["actRedo"]))
        act.trigger()
        return f"Edit → {act.objectName()}"

    def reset(self):
        w = self.window
        act = self.rng.choice((w.acts["actResetPanel"], w.acts["actResetPanel"], w.acts["actResetAll"]))
        act.trigger()
        return f"Edit → {act.objectName()}"

    def look(self):
        w = self.window
        acts = [w.acts[i] for i in ("actPresenter", "actPresenter", "actDark", "actSafeMaps", "actZoomIn",
                                       "actZoomOut", "actZoomReset", "actFullScreen")]
        acts += [a for i, a in w.acts.items() if i.startswith("actTheme_")]
        a = self.rng.choice(acts)
        a.trigger()
        return f"View → {a.objectName()}"

    def export(self):
        w = self.window
        what = self.rng.choice(("panel png", "panel svg", "window png", "plot png", "plot svg", "plot csv",
                                "plot npy", "copy panel", "copy plot", "panel width", "gif"))
        panel = w.current_panel()
        ex = w.exporter
        if what == "panel png":
            w.exports.export_panel(scale=self.rng.choice((1, 2)))
        elif what == "panel svg":
            w.exports.export_panel(ext=".svg")
        elif what == "window png":
            w.exports.export_window(scale=1)
        elif what == "copy panel":
            w.exports.copy_panel()
        elif what == "panel width":
            w.exports.export_panel(ask_width=True)
        elif what == "gif":
            fields = [f for f in ("position", "factor", "alpha", "seed", "steps") if hasattr(panel.state, f)]
            if not fields:
                return None
            from ..export import ExportError, effective_range, sweep_values

            name = fields[0]
            try:
                lo, hi = effective_range(panel.state, name)
                values = sweep_values(type(panel.state), name, lo, hi, 3)
            except (ExportError, ValueError) as exc:
                return f"gif of {panel.panel_id}.{name} not offered: {exc}"
            ex.record_animation(panel, name, values, width=240, fps=4, path=self._next_path("sweep", ".gif"))
            what += f" of {panel.panel_id}.{name} {values}"
        else:
            plots = panel.visible_plots()
            if not plots:
                return None
            view = self._pick(plots)
            if what == "copy plot":
                ex.copy_plot(view)
            elif what in ("plot png", "plot svg"):
                ex.save_plot(panel, view, ext="." + what.split()[1], scale=1)
            else:
                ex.save_plot_data(panel, view, "." + what.split()[1])
        return f"export {what} ({panel.panel_id})"

    def wait(self):
        if self.rng.random() < 0.5:
            waves = self.window.panels.get("waves")
            if settle(self.window, timeout_s=5.0, quiet_s=0.05) and not (waves is not None and waves.playing):
                # Settled: every plot must show the current parameters now, not only at the end.
                bad = final_mismatches(self.window, self.recorder)
                if bad:
                    self._problems.append("after waiting until drawn, not every plot shows the current "
                                          "parameters:\n  " + "\n  ".join(bad))
                self.counts.checks += 1
                return "wait until drawn, then check every plot"
            return "wait until drawn (still busy)"
        ms = self.rng.choice((20, 60, 200))
        process(self._app, ms)
        return f"wait {ms} ms"

    # -- running -------------------------------------------------------------------------------------
    def _choose(self):
        x = self.rng.random() * self._total_weight
        for weight, action in self.actions:
            x -= weight
            if x < 0:
                return action
        return self.actions[-1][1]

    def _fail(self, what: str, index: int) -> MonkeyFailure:
        last = "\n".join(f"  {e}" for e in self.history)
        return MonkeyFailure(
            f"{what}\n\nGUI monkey, seed {self.seed}, at event {index}. "
            f"The last {len(self.history)} events:\n"
            f"{last}\nReplay: python -m explorer.qa.monkey --seed {self.seed} --events {index + 1}"
        )

    def run(self, events: int, *, progress=None) -> Counts:
        """Fire ``events`` random events; raise :class:`MonkeyFailure` on an exception, a Qt warning
        or an exception escaping to the event loop."""
        from PySide6.QtCore import qInstallMessageHandler

        problems = self._problems

        def on_message(mode, context, message):
            if mode.name not in ("QtDebugMsg", "QtInfoMsg") and not message.startswith(IGNORED_QT_MESSAGES):
                problems.append(f"Qt {mode.name}: {message}")
            if callable(previous):
                previous(mode, context, message)

        def on_exception(kind, value, tb):
            problems.append("exception escaped to the event loop:\n" +
                            "".join(traceback.format_exception(kind, value, tb)))
            if previous_hook is not None and previous_hook is not sys.__excepthook__:
                previous_hook(kind, value, tb)

        previous = qInstallMessageHandler(on_message)
        previous_hook, sys.excepthook = sys.excepthook, on_exception
        try:
            for i in range(events):
                # Each event draws from a source of its own: what one event did (how many widgets it saw, how
                # many numbers it drew) never shifts what the next ones do.
                self._event_key = f"{self.seed}:{i}"
                self.rng = random.Random(self._event_key)
                action = self._choose()
                name = action.__name__
                self.history.append(f"#{i} {name}: …")
                t0 = time.perf_counter()
                try:
                    desc = action()
                    # Input often comes faster than the screen repaints: the loop runs after some
                    # events, so others queue up and are handled (and drawn) together.
                    if self.rng.random() < PROCESS_SHARE:
                        process(self._app)
                except Exception:  # noqa: BLE001 - reported with the seed and the events before it
                    raise self._fail(f"{name} raised:\n{traceback.format_exc()}", i) from None
                self.history[-1] = _clip(f"#{i} {name}: {desc or '(nothing to act on)'}")
                self.walk.append(self.history[-1])
                self.counts.events += 1
                (self.counts.by_action if desc else self.counts.skipped)[name] += 1
                self.counts.seconds[name] += time.perf_counter() - t0
                self._check_widths()
                if problems:
                    raise self._fail(problems[0], i)
                if progress is not None:
                    progress(i)
            # Let go: stop the Waves animation if the monkey left it playing (a lecturer would).
            waves = self.window.panels.get("waves")
            if waves is not None and waves.playing:
                waves.stop_play()
                self.history.append("stop the Waves animation")
            if not settle(self.window):
                raise self._fail("the window did not settle within 120 s after the last event", events)
            if problems:
                raise self._fail(problems[0], events)
        finally:
            qInstallMessageHandler(previous)
            sys.excepthook = previous_hook
        return self.counts

    def _check_widths(self) -> None:
        """No panel may need more width than a 1280-px projector has (times the text zoom): content that
        grows without bound (a 500-letter word once did) forces the window past the screen."""
        limit = int(MAX_PANEL_WIDTH * max(1.0, self.window.look.zoom))
        for pid, panel in self.window.panels.items():
            # A slider let go gives the labels it pinned their sizes back in the event loop's next turn (their
            # layout is not in the release's paint): nothing a hand does comes in between, so that is what counts.
            panel.text_pin.restore()
            need = panel.minimumSizeHint().width()
            if need > limit:
                self._problems.append(f"the {pid} panel needs {need} px of width (at most {limit})")

    def check_final(self) -> None:
        """Raise :class:`MonkeyFailure` unless every plot shows the result of the final parameters."""
        bad = final_mismatches(self.window, self.recorder)
        self.counts.checks += 1
        if bad:
            raise self._fail("after the last event, not every plot shows the final parameters:\n  " +
                             "\n  ".join(bad), self.counts.events)


def main(argv: list[str] | None = None) -> int:
    """Replay a monkey run outside the test suite (offscreen); exit 1 on a failure."""
    parser = argparse.ArgumentParser(prog="python -m explorer.qa.monkey", description="Replay the GUI monkey.")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--events", type=int, required=True)
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = tempfile.mkdtemp(prefix="pe-monkey-")
    os.environ["PE_EXPLORER_HOME"] = home  # never the user's settings or presets
    from ..app import make_app
    from ..main_window import MainWindow
    from ..widgets.plots import configure_pyqtgraph

    make_app()
    configure_pyqtgraph()
    window = MainWindow(restore_layout=False)
    monkey = Monkey(window, args.seed, Path(home) / "files")
    window.show()
    try:
        monkey.run(args.events)
        monkey.check_final()
    except MonkeyFailure as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        window.close()
    print(f"{monkey.counts.events} events, no failure (seed {args.seed}); every plot checked against "
          f"the parameters {monkey.counts.checks} times")
    c = monkey.counts
    for name, n in c.by_action.most_common():
        print(f"  {name:12s} {n:5d} events ({c.skipped[name]} found nothing to act on), "
              f"{c.seconds[name]:6.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
