"""Untrusted text is plain text (issue 25, finding 1 and "What to build" 3).

A tensor name or ``model_type`` in a checkpoint, a config's ``_name``, a preset's or a lesson's title and
text, a session, a Lab results file, a file's name, an unknown key echoed in an error, the user's typing:
each is fed through the window's own entry points, then every text the window shows is found by walking
its widgets and plot scenes (tests/untrusted_text.py) and checked: the hostile string reads as the
characters it holds (its ``<b>`` shown, not obeyed; its ``<img>`` never loaded), and no more than 2,000
characters of it.  The same is done for the dialogs the app opens.  tests/test_reliability_hostile.py
runs the command-line entry points with an ``<img>`` whose source is a FIFO: any attempt to load it hangs.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from checkpoint_files import helix, write_safetensors
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from untrusted_text import FLAG, long, short, text_sinks, violations, word

from explorer import presets as pr
from explorer.settings import config_dir
from explorer.state import AppState

pytestmark = pytest.mark.timeout(300)
ROOT = Path(__file__).resolve().parents[1]


def _window(qtbot, **kw):
    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    w = MainWindow(**{"restore_layout": False, **kw})
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    return w


def _settle(window, qtbot) -> None:
    qtbot.waitUntil(lambda: window.service.idle() and not any(p.waiting for p in window.panels.built().values()),
                    timeout=60000)
    QApplication.processEvents()


def _check(window, qtbot, what: str, found: list[str]) -> None:
    _settle(window, qtbot)
    found.extend(f"[{what}] {v}" for v in violations(text_sinks()))


def _model_config(name: str) -> dict:
    return {"_name": name, "model_type": name[:60], "rope_theta": 10000.0, "hidden_size": 64,
            "num_attention_heads": 2, "max_position_embeddings": 256}


def _session(tmp_path: Path, png: Path) -> None:
    st = AppState()
    st = st.replace(swap=dataclasses.replace(st.swap, sentence=f"the {word()} sat"),
                    schemes=dataclasses.replace(st.schemes, view="model",
                                                model=json.dumps(_model_config(long(png)[:300]))))
    pr.save_preset(config_dir() / "session.json", st, title=short(png), description=long(png)[:4000],
                   panel="schemes")


def _lesson(tmp_path: Path, png: Path) -> Path:
    data = json.loads((ROOT / "resources" / "lessons" / "01_order_blindness.json").read_text())
    data["title"], data["summary"] = short(png), long(png)[:1500]
    step = data["steps"][0]
    step["title"], step["text"] = short(png), long(png)[:1500]
    step["question"]["prompt"] = short(png)
    step["question"]["options"] = [short(png), word(), "no"]
    path = tmp_path / f"{word()}.json"
    path.write_text(json.dumps(data))
    return path


def _checkpoint(tmp_path: Path, png: Path) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    write_safetensors(folder / "model.safetensors",
                      {"wpe.weight": helix(16, 4), short(png): helix(8, 4), long(png): helix(8, 3)})
    (folder / "config.json").write_text(json.dumps({"model_type": short(png), "n_positions": 16}))
    return folder


def _lab_result() -> str:
    from explorer.lab import LabConfig, LabResult, LengthResult, SchemeResult

    cfg = LabConfig(schemes=("learned", "rope"), train_len=8, eval_lens=(8, 16), steps=20)
    lengths = (LengthResult(8, "ok", 0.5, 1.0), LengthResult(16, "cannot run", reason=long()[:300]))
    runs = tuple(SchemeResult(s, "done", 20, (1.0,) * 20, 0.1, 0.1, lengths, (0.5,) * 15) for s in cfg.schemes)
    return LabResult(cfg, "done", runs, word(), word(), 1, 1.0, 0.1, 0.1, 0.1, 0.1).to_json()


def test_hostile_text_reads_as_text_everywhere_the_window_shows_it(qtbot, tmp_path):
    png = "x.png"  # never read: the command-line tests load a FIFO
    _session(tmp_path, png)
    pr.user_dir().mkdir(parents=True, exist_ok=True)
    pr.save_preset(pr.user_dir() / "mine.json", AppState(), title=short(png), description=long(png)[:4000])
    found: list[str] = []
    w = _window(qtbot, restore_layout=True)
    try:
        _check(w, qtbot, "session at start", found)

        w.menus["Presets"].aboutToShow.emit()  # My presets: its hostile title and notes
        _check(w, qtbot, "presets menu", found)

        preset = tmp_path / f"{word()}.json"
        pr.save_preset(preset, AppState(), title=short(png), description=long(png)[:4000], panel="waves")
        assert w.session.load_preset_file(preset)
        _check(w, qtbot, "Open preset…", found)

        folder = _checkpoint(tmp_path, png)
        w.panel_docks.open_checkpoint(str(folder))
        _check(w, qtbot, "--checkpoint", found)
        w.panel_docks.open_checkpoint(str(folder / "model.safetensors"), short(png))
        _check(w, qtbot, "a hostile tensor picked", found)
        w.panel_docks.open_checkpoint(str(folder / "model.safetensors"), long(png))
        _check(w, qtbot, "a 100 kB tensor name picked", found)
        w.panel_docks.open_checkpoint(str(folder / "model.safetensors"), long(png) + "?")
        _check(w, qtbot, "a refused tensor name", found)

        from explorer.app import open_model_view

        config = tmp_path / "config.json"
        config.write_text(json.dumps(_model_config(long(png))))
        open_model_view(w, str(config))
        _check(w, qtbot, "--config", found)

        swap = w.panels["swap"]
        w.show_panel("swap")
        swap.set_state(dataclasses.replace(swap.state, sentence=f"a {word()} {word()}x b"))
        _check(w, qtbot, "typed sentence", found)
        swap.set_state(dataclasses.replace(swap.state, sentence=f"{word()} b", swap_i=0, swap_j=1))
        _check(w, qtbot, "a short typed sentence (in the plot titles)", found)

        from explorer.export.images import svg_ready

        with svg_ready(swap):  # the titles as one run of text while an SVG is written: still text
            _check(w, qtbot, "SVG export of the swap panel", found)

        from PySide6.QtCore import Qt

        from explorer.widgets.value_box import feedback

        box = w.panels["swap"].d_spin
        box.setFocus()
        box.lineEdit().setText(word())  # QTest cannot type "⚑"
        qtbot.keyClick(box, Qt.Key.Key_Return)
        assert feedback(box).reason is not None
        _check(w, qtbot, "a typed value", found)

        lab = w.panels["lab"]
        w.show_panel("lab")
        results = tmp_path / f"{word()}.json"
        results.write_text(_lab_result())
        lab.load_results(str(results))
        _check(w, qtbot, "Lab → Open results…", found)

        assert w.lessons.open_file(str(_lesson(tmp_path, png)))
        _check(w, qtbot, "Open lesson…", found)
        w.lessons.pane.show_me()
        _check(w, qtbot, "Show me", found)
    finally:
        _settle(w, qtbot)
        w.close()
    found = list(dict.fromkeys(found))  # a widget left from an earlier step is reported once per step
    assert not found, "\n".join(found)


def _dialog_texts(qtbot, action) -> list[str]:
    """Run ``action``, which opens a modal dialog; close each message box it opens and give their texts."""
    seen: list = []

    def close_boxes():
        for box in QApplication.topLevelWidgets():
            if isinstance(box, QMessageBox) and box.isVisible():
                seen.extend(violations(text_sinks()))
                seen.append(box)
                box.done(0)
        if not seen:
            QTimer.singleShot(50, close_boxes)

    QTimer.singleShot(0, close_boxes)
    action()
    return seen


def test_error_dialogs_show_what_a_file_holds_as_text(qtbot, tmp_path):
    png = "x.png"  # never read: the command-line tests load a FIFO
    w = _window(qtbot)
    try:
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({"version": 2, "panels": {"waves": {long(png)[:400]: 1}}}))
        lesson = tmp_path / "lesson.json"
        lesson.write_text(json.dumps({"format": "pe-explorer-lesson", "version": 1, "title": short(png),
                                      "summary": "", "steps": [], short(png): 1}))
        for open_it in (lambda: w.session.load_preset_file(bad), lambda: w.lessons.open_file(str(lesson))):
            seen = _dialog_texts(qtbot, open_it)
            boxes = [b for b in seen if isinstance(b, QMessageBox)]
            assert boxes, "no message box was shown"
            assert FLAG in boxes[0].text()
            problems = [s for s in seen if isinstance(s, str)]
            assert not problems, "\n".join(problems)
    finally:
        w.close()


def test_the_plain_text_helpers(qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import Qt as GuiQt

    from explorer.widgets.plain import MAX_SHOWN, esc, plain_label, plain_tip, shorten

    s = short()
    assert FLAG in esc(s) and "<b>" not in esc(s)
    assert len(shorten(long())) == MAX_SHOWN and shorten(long()).endswith("…")
    tip = plain_tip(s + "\nline two")
    assert GuiQt.mightBeRichText(tip)
    from PySide6.QtGui import QTextDocument

    doc = QTextDocument()
    doc.setHtml(tip)
    assert doc.toPlainText() == s + "\nline two"
    label = plain_label(long())
    qtbot.addWidget(label)
    assert label.textFormat() == Qt.TextFormat.PlainText and len(label.text()) == MAX_SHOWN
    assert plain_tip("") == ""
    np.testing.assert_equal(len(esc("a" * 5000)), MAX_SHOWN)


def test_message_boxes_come_from_the_one_plain_text_helper():
    """A message box reads its text as HTML unless told otherwise; the app opens them only through
    explorer.widgets.plain (warn, ask), which tells it.  (About PE Explorer shows the app's own text.)"""
    import re

    pattern = re.compile(r"QMessageBox\.(warning|question|critical|information)\(|QMessageBox\(")
    found = []
    for path in sorted((ROOT / "explorer").rglob("*.py")):
        if path.name == "plain.py" and path.parent.name == "widgets":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "use explorer.widgets.plain.warn / ask:\n" + "\n".join(found)


def test_a_shortened_or_svg_title_keeps_a_quoted_word_text(qtbot):
    """A rich title too wide for its plot is shown elided as plain text, and while an SVG is written every rich
    title is one run of plain text: both put the unescaped text back into the title, which takes HTML, so a
    title that quoted a hostile word ("&lt;img …&gt;") obeyed it."""
    import pyqtgraph as pg
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from explorer.export.images import svg_ready
    from explorer.widgets.plain import esc
    from explorer.widgets.plots import configure_pyqtgraph, make_plot

    configure_pyqtgraph()
    root = QWidget()
    qtbot.addWidget(root)
    column = QVBoxLayout(root)
    plots = [make_plot("t", x="x", y="y"), pg.PlotWidget()]  # the house's plot (its title fits itself), a bare one
    for plot in plots:
        column.addWidget(plot)
        plot.getPlotItem().setTitle(f"d<sub>h</sub>: “{esc(short())}”")
    root.resize(200, 400)  # too narrow for the titles: elided
    root.show()
    assert not violations(text_sinks())
    with svg_ready(root):
        assert not violations(text_sinks())
        for plot in plots:
            assert "<b>⚑pe" in plot.getPlotItem().titleLabel.item.toPlainText()
