"""The Lab panel: its own training thread, live curves, Pause/Cancel, results, and a clean close."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from waiting import settled_count

pytest.importorskip("torch")

from explorer.lab import LabResult, headline  # noqa: E402
from explorer.panels.lab.grid import cell_text  # noqa: E402
from explorer.state.lab import LabState  # noqa: E402
from explorer.widgets.value_box import feedback  # noqa: E402

TINY = LabState(schemes=("nope", "learned", "rope", "alibi"), train_len=8, eval_lens=(8, 16), steps=20)
#: Long enough that it is certainly still training when Cancel or close comes.
LONG = LabState(train_len=8, eval_lens=(8, 16), steps=20000)


def _lab_threads():
    return [t for t in threading.enumerate() if t.name == "pe-lab" and t.is_alive()]


@pytest.fixture
def panel(qtbot, service):
    from explorer.panels.lab import LabPanel
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    p = LabPanel(service)
    qtbot.addWidget(p)
    p.resize(1300, 800)
    p.show()
    yield p
    p.shutdown()
    assert not _lab_threads()


def _training(panel) -> bool:
    return any(v.size > 2 for v in panel.loss_view.losses.values())


def test_initial_view_is_drawn_labelled_and_needs_no_service(panel):
    assert panel.has_drawn
    assert panel.requests(panel.state) == []
    task = panel.task_label.text()
    assert "in order" in task and "Train at L = 32, test up to 256" in task and "92.9 %" in task
    assert "trained at L = 32 for 600 steps, tested up to 256 = 8 × L" in panel.formula_text(panel.state)
    assert panel.export_basename() == "lab_twoback_L32_s0"
    assert len(panel.plots()) == 3
    assert panel.start_button.isEnabled() and not panel.cancel_button.isEnabled()
    assert not panel.save_button.isEnabled()
    # Empty but labelled: the table has a row per scheme and a column per test length (it never scrolls
    # sideways), the grid a title row more; the hints show.
    assert panel.table.rowCount() == 5 and panel.table.columnCount() == 7
    assert panel.grid.rowCount() == 6 and panel.grid.title_rows() == [
        "Next-symbol rule · accuracy (%) at n × L, L = 32"]
    for hint in (panel.loss_view.hint, panel.length_view.hint):  # asked for; shown where they fit
        assert hint._wanted and hint.isVisible() == hint.fits()
    assert not _lab_threads()


def test_controls_change_the_state(panel):
    panel.scheme_checks["rope"].setChecked(False)
    assert "rope" not in panel.state.schemes
    panel.train_len_spin.setValue(16)
    assert panel.state.train_len == 16 and panel.state.eval_lens == (16, 24, 32, 48, 64, 96, 128)
    panel.eval_edit.setText("16, 40, 200")
    panel.eval_edit.setModified(True)  # as if typed
    panel.eval_edit.editingFinished.emit()
    reason = feedback(panel.eval_edit).reason  # the reason is shown under the box
    assert reason is not None and "8 × L = 128" in reason
    assert panel.state.eval_lens == (16, 24, 32, 48, 64, 96, 128)  # unchanged
    assert panel.eval_edit.text() == "16, 24, 32, 48, 64, 96, 128"  # and shown again
    panel.eval_edit.setText("16 40 100")
    panel.eval_edit.setModified(True)
    panel.eval_edit.editingFinished.emit()
    assert panel.state.eval_lens == (16, 40, 100) and not panel.banner.isVisible()
    for s in ("nope", "sinusoidal", "learned", "alibi"):
        panel.scheme_checks[s].setChecked(False)
    assert panel.banner.isVisible() and "at least one scheme" in panel.banner.text()
    assert panel.state.schemes == ("alibi",) and panel.scheme_checks["alibi"].isChecked()


def test_tiny_run_draws_losses_and_every_scheme_by_length(panel, qtbot, tmp_path):
    panel.set_state(TINY)
    with qtbot.waitSignal(panel.runner.finished, timeout=120_000):
        panel.start()
        assert panel.runner.running and not panel.start_button.isEnabled()
    qtbot.waitUntil(lambda: panel.start_button.isEnabled(), timeout=5000)
    r = panel.result
    assert r.status == "done" and [s.scheme for s in r.schemes] == ["nope", "learned", "rope", "alibi"]
    for s in r.schemes:
        assert panel.loss_view.losses[s.scheme].size == 20
        x, y = panel.loss_view.smooth[s.scheme].getData()
        assert len(y) == 20
    assert panel.table.text_at("rule", "learned", 16) == "cannot run"
    for scheme in ("nope", "rope", "alibi"):
        for n in (8, 16):
            v = r.scheme(scheme).at(n).accuracy
            assert panel.table.text_at("rule", scheme, n) == cell_text(v) == panel.grid.text_at("rule", scheme, n)
    assert panel.table.text_at("rule", "learned", 8) == cell_text(r.scheme("learned").at(8).accuracy)
    assert panel.grid.title_rows()[0].startswith(headline(r).split(";")[0].rstrip("."))
    # The learned curve stops at L_train and is labelled, not drawn at 0.
    lx, ly = panel.length_view.curves["learned"].getOriginalDataset()
    assert list(lx) == [8] and len(panel.length_view.notes) == 1
    assert "cannot run at L ≥ 16" in panel.length_view.notes["learned"].textItem.toPlainText()
    assert "cannot run" in panel.headline.notes()
    # Exported numbers: exact, named, NaN (an empty CSV cell) where the learned table cannot run.
    data = panel.export_data(panel.length_view.plot)
    assert list(data["test length"]) == [8, 16]
    assert data["Learned accuracy (%)"][0] == pytest.approx(100 * r.scheme("learned").at(8).accuracy)
    assert np.isnan(data["Learned accuracy (%)"][1])
    loss = panel.export_data(panel.loss_view.plot)
    assert list(loss["step"]) == list(range(1, 21))
    assert list(loss["RoPE loss"]) == list(r.scheme("rope").losses)
    pos = panel.export_data(panel.position_view.plot)
    assert pos["position"].size == 15 and np.isnan(pos["Learned accuracy (%)"][7:]).all()
    assert panel.progress.value() == 1000 and panel.save_button.isEnabled()
    # Save, then show it in a fresh panel: the same table.
    path = tmp_path / "run.json"
    panel.save_results(str(path))
    saved = LabResult.from_json(path.read_text())
    assert saved.scheme("alibi").at(16).accuracy == r.scheme("alibi").at(16).accuracy
    from explorer.panels.lab import LabPanel

    other = LabPanel(panel.service)
    qtbot.addWidget(other)
    try:
        other.load_results(str(path))
        assert other.state == TINY  # its settings come along: Start repeats the run
        assert other.table.text_at("rule", "learned", 16) == "cannot run"
        assert other.table.text_at("rule", "rope", 16) == panel.table.text_at("rule", "rope", 16)
        assert other.loss_view.losses["alibi"].size == 20
    finally:
        other.shutdown()


def test_a_sequence_task_run_joins_the_grid(panel, qtbot, tmp_path):
    """Choose copy: its own L and steps, its reason on screen, exact match drawn; the grid keeps the rule too."""
    from explorer.lab import TASK_WHY, LabConfig, LengthResult, SchemeResult

    rule_cfg = LabConfig(schemes=("rope",), train_len=8, eval_lens=(8, 16), steps=3)
    lengths = (LengthResult(8, "ok", 0.5, 1.0), LengthResult(16, "ok", 0.25, 1.5))
    rope = SchemeResult("rope", "done", 3, (2.0, 1.9, 1.8), 0.1, 0.0, lengths, (0.5,) * 15)
    rule = LabResult(rule_cfg, "done", (rope,), "cpu", "x", 1, 0.1, 0.125, 0.4, 0.8, 0.9)
    panel.show_lab_result(rule)
    panel.task_combo.setCurrentIndex(panel.task_combo.findData("copy"))
    st = panel.state
    assert (st.task, st.train_len, st.steps) == ("copy", 8, 1500)
    assert panel.task_why.text() == TASK_WHY["copy"] and not panel.reverse_check.isVisibleTo(panel)
    assert "exact match" in panel.length_view.pi.titleLabel.text.lower()
    assert "Copy" in panel.task_label.text() and "x<sub>n</sub>" in panel.formula_text(st)
    panel.set_state(st.clamped(schemes=("learned", "alibi"), eval_lens=(8, 16), steps=30))
    with qtbot.waitSignal(panel.runner.finished, timeout=120_000):
        panel.start()
    qtbot.waitUntil(lambda: panel.start_button.isEnabled(), timeout=5000)
    r = panel.result
    assert r.config.task == "copy" and r.status == "done"
    assert panel.grid.text_at("copy", "learned", 16) == "cannot run"
    assert panel.grid.text_at("copy", "alibi", 16) == cell_text(r.scheme("alibi").at(16).exact)
    assert panel.grid.text_at("rule", "rope", 16) == cell_text(0.25)  # the earlier task stays
    assert [t.split(" · ")[0].split(":")[0] for t in panel.grid.title_rows()] == ["Next-symbol rule", "Copy"]
    assert panel.headline.notes() == headline(r)
    data = panel.export_data(panel.length_view.plot)
    assert data["ALiBi exact match (%)"][1] == pytest.approx(100 * r.scheme("alibi").at(16).exact)
    assert np.isnan(data["Learned per-token accuracy (%)"][1])
    assert panel.export_data(panel.position_view.plot)["answer token"].size == 16
    # Both tasks saved as one grid file, and read back.
    path = tmp_path / "grid.json"
    panel.save_results(str(path))
    from explorer.lab import LabGrid

    assert [x.config.task for x in LabGrid.from_file(path).results] == ["rule", "copy"]
    # Back to the rule: its last run is shown again.
    panel.task_combo.setCurrentIndex(panel.task_combo.findData("rule"))
    assert panel.result is rule and panel.state.train_len == 32


def test_grid_cells_and_headings_never_overstate():
    from explorer.panels.lab.grid import cell_text, multiple_text

    assert [cell_text(v) for v in (1.0, 0.999, 0.994, 0.5, 0.004, 0.0)] == ["100", ">99", "99", "50", "<1", "0"]
    assert [multiple_text(m) for m in (1, 1.5, 2, 0.5, 2.5, 1.25)] == ["1", "1½", "2", "½", "2½", "1¼"]


def test_pause_then_cancel_stops_within_a_second(panel, qtbot):
    panel.set_state(LONG)
    panel.start()
    qtbot.waitUntil(lambda: _training(panel), timeout=60_000)
    panel.pause_button.click()
    assert panel.runner.paused and panel.pause_button.text() == "Resume"
    # Paused: no new steps.  The step under way reports, perhaps late on a loaded machine: the count settles.
    n = settled_count(qtbot, lambda: sum(v.size for v in panel.loss_view.losses.values()), "steps")
    panel.pause_button.click()
    assert not panel.runner.paused
    qtbot.waitUntil(lambda: sum(v.size for v in panel.loss_view.losses.values()) > n, timeout=10_000)
    panel.cancel_button.click()
    # Generous bound: the worker checks every step (milliseconds); one second is the promise.
    qtbot.waitUntil(lambda: not panel.running, timeout=2000)
    qtbot.waitUntil(lambda: panel.result is not None, timeout=2000)
    assert panel.result.status == "cancelled"
    assert "Cancelled" in panel.status.text() and panel.start_button.isEnabled()
    assert not _lab_threads()


def test_a_failed_run_shows_in_the_banner(panel, qtbot, monkeypatch):
    import explorer.panels.lab.panel as lab_mod

    def boom(*_a, **_k):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(lab_mod, "run_experiment", boom)
    with qtbot.waitSignal(panel.runner.failed, timeout=5000):
        panel.start()
    qtbot.waitUntil(lambda: panel.start_button.isEnabled(), timeout=2000)
    assert "out of memory" in panel.banner.text()


def test_open_refuses_a_bad_file(panel, tmp_path):
    from explorer.lab import LabError

    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "nope"}')
    with pytest.raises(LabError, match="not a PE Explorer Lab result"):
        panel.load_results(str(bad))
    with pytest.raises(LabError, match="cannot read"):
        panel.load_results(str(tmp_path / "missing.json"))
    with pytest.raises(LabError, match="nothing to save"):
        panel.save_results(str(tmp_path / "x.json"))


def test_closing_the_window_mid_run_exits_cleanly(main_window, qtbot):
    lab = main_window.panels["lab"]
    assert lab.has_drawn
    lab.set_state(LONG)
    lab.start()
    qtbot.waitUntil(lambda: _training(lab), timeout=60_000)
    # Other panels keep being served while the Lab trains: the shared service is not blocked.
    waves = main_window.panels["waves"]
    with qtbot.waitSignal(waves.drawn, timeout=20_000):
        waves.set_state(waves.state.clamped(d_model=waves.state.d_model // 2))
    assert lab.runner.running
    main_window.close()
    assert not lab.runner.running
    assert not _lab_threads()


def test_bottom_legends_fit_their_plots(qtbot):
    """One row when the plot is wide enough, more rows when it is narrow; never wider than the plot."""
    from explorer.lab import SCHEMES, LengthResult, SchemeResult
    from explorer.panels.lab.accuracy_plots import LengthPlot
    from explorer.widgets.plots import configure_pyqtgraph

    configure_pyqtgraph()
    view = LengthPlot()
    qtbot.addWidget(view.plot)
    view.plot.resize(900, 400)
    view.plot.show()
    view.prepare([8, 16], 8, 0.125, 0.4)
    done = [SchemeResult(s, "done", 1, (1.0,), 0.0, 0.0,
                         (LengthResult(8, "ok", 0.5, 1.0), LengthResult(16, "ok", 0.5, 1.0)), (0.5,) * 15)
            for s in SCHEMES]
    for k in range(1, 6):  # one scheme at a time, as during a run
        view.show_schemes(done[:k], 8)
    qtbot.wait(20)
    assert view.legend.columnCount == 5
    view.plot.resize(330, 400)
    qtbot.waitUntil(lambda: 1 < view.legend.columnCount < 5, timeout=2000)
    widths = [s.boundingRect().width() + lb.item.boundingRect().width() + 24 for s, lb in view.legend.items]
    n = view.legend.columnCount
    assert max(sum(widths[i:i + n]) for i in range(0, 5, n)) <= 330 - 90
    view.plot.resize(900, 400)
    qtbot.waitUntil(lambda: view.legend.columnCount == 5, timeout=2000)


@pytest.mark.timeout(30)
def test_open_reads_results_through_the_one_reading_path(panel, tmp_path):
    """A FIFO, a folder, a 400-digit number, NaN: one line each, never a hang (issue 16)."""
    import os

    from explorer.lab import LabError

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    (tmp_path / "folder.json").mkdir()
    (tmp_path / "big.json").write_text('{"format": "pe-explorer-lab", "version": 1' + ', "x": 1' + "0" * 400 + "}")
    (tmp_path / "nan.json").write_text('{"format": "pe-explorer-lab", "version": NaN}')
    for name, words in (("fifo.json", "named pipe"), ("folder.json", "folder"), ("big.json", "401 digits"),
                        ("nan.json", "NaN")):
        with pytest.raises(LabError) as err:
            panel.load_results(str(tmp_path / name))
        assert "\n" not in str(err.value)
        assert words.lower() in str(err.value).lower(), (name, str(err.value))


def test_the_empty_plots_placeholders_show_only_where_they_fit(qtbot):
    """At 1280 × 720 in presenter mode "Press Start…" ran over the legend and the reference lines."""
    import pyqtgraph as pg

    from explorer.panels.lab.common import hint as make_hint

    pw = pg.PlotWidget()
    qtbot.addWidget(pw)
    hint = make_hint("After each model has trained, its accuracy\nat every test length appears here.")
    pw.getPlotItem().addItem(hint)
    pw.resize(900, 500)
    pw.show()
    qtbot.waitExposed(pw)
    hint.setVisible(True)
    assert hint.isVisible()
    pw.resize(300, 160)
    qtbot.waitUntil(lambda: not hint.isVisible(), timeout=3000)
    pw.resize(900, 500)
    qtbot.waitUntil(hint.isVisible, timeout=3000)
    hint.setVisible(False)
    assert not hint.isVisible()


def test_the_model_group_sets_the_layers_and_a_schemes_lab_setting_and_shows_them(panel):
    from explorer import schemes as registry
    from explorer.lab import LabConfig, run_experiment

    # The scheme with a Lab setting (the RoPE/NoPE hybrid: NoPE every k-th layer), read from the registry.
    hybrid = next(s for s in registry.lab_ids() if registry.get(s).lab_parameters)
    spin = panel.param_spins[(hybrid, "nope_every")]
    panel.layers_spin.setValue(4)
    spin.setValue(4)
    assert panel.state.layers == 4 and panel.state.params_of(hybrid) == {"nope_every": 4}
    assert "RoPE in layers 1, 2, 3; NoPE in layer 4" in panel.setting_label.text()
    assert "(not ticked)" in panel.setting_label.text()
    panel.scheme_checks[hybrid].setChecked(True)
    assert LabConfig.from_state(panel.state).params_of(hybrid) == {"nope_every": 4}
    assert "4 layers" in panel.formula.text() and "NoPE in layer 4" in panel.formula.text()
    # A saved result shows the pattern it was trained with, whatever the controls say now.
    cfg = LabConfig(schemes=(hybrid,), layers=3, scheme_params={hybrid: {"nope_every": 3}}, train_len=8,
                    eval_lens=(8, 16), steps=3, d_model=16, heads=2, batch=4, eval_batch=4, device="cpu")
    panel.show_lab_result(LabResult.from_json(run_experiment(cfg).to_json()))
    assert "RoPE in layers 1, 2; NoPE in layer 3 (of 3" in panel.model_label.text()


def _result_file(tmp_path, name, edit):
    """A small saved Lab result (learned and RoPE; the learned model's 8 × 2 table), edited by ``edit``."""
    import json

    from explorer.lab import LabConfig, LengthResult, SchemeResult

    cfg = LabConfig(schemes=("learned", "rope"), train_len=8, eval_lens=(8, 16), steps=20)
    lengths = (LengthResult(8, "ok", 0.5, 1.0), LengthResult(16, "ok", 0.5, 1.0))
    runs = tuple(SchemeResult(s, "done", 20, (1.0,) * 20, 0.1, 0.1, lengths, (0.5,) * 15,
                              position_table=((0.1, 0.2),) * 8 if s == "learned" else ()) for s in cfg.schemes)
    doc = LabResult(cfg, "done", runs, "cpu", "2", 1, 1.0, 0.1, 0.1, 0.1, 0.1).to_dict()
    edit(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_open_refuses_a_result_for_a_scheme_it_did_not_train_and_keeps_what_was_shown(panel, tmp_path):
    """An unknown scheme id raised past the handler (no message) and left a half-loaded result (issue 25)."""
    from explorer.lab import LabError

    good = _result_file(tmp_path, "good.json", lambda d: None)
    panel.load_results(str(good))
    shown = panel.result
    for name, edit in (("unknown.json", lambda d: d["schemes"][1].update(scheme='<img src="x">nosuch')),
                       ("twice.json", lambda d: d["schemes"][1].update(scheme="learned"))):
        with pytest.raises(LabError, match="Lab result is malformed") as err:
            panel.load_results(str(_result_file(tmp_path, name, edit)))
        assert "\n" not in str(err.value)
        assert panel.result is shown and set(panel.results.values()) == {shown}


def test_a_table_of_nan_rows_is_one_line_in_the_learned_table_panel(main_window, qtbot, tmp_path):
    """A diverged run's table (nulls in the file) let a ValueError escape from "View learned table"."""
    lab = main_window.panels["lab"]
    lab.load_results(str(_result_file(tmp_path, "nan.json",
                                      lambda d: d["schemes"][0].update(position_table=[[None, None]] * 8))))
    assert lab.table_button.isEnabled()
    assert lab.view_learned_table()
    table = main_window.panels["table"]
    qtbot.waitUntil(lambda: table.banner.isVisibleTo(table), timeout=20000)
    assert "holds NaN or infinite values" in table.banner.text() and "\n" not in table.banner.text()
    qtbot.waitUntil(main_window.service.idle, timeout=20000)


def test_the_counting_and_grid_tasks_bring_their_schemes_and_axes(panel):
    """Marker ticks CoPE; the grid ticks the 2-D RoPEs, tests sides up to 3 × L and draws accuracy by row."""
    from explorer.lab import TASK_WHY
    from explorer.state.lab import task_default_schemes

    panel.task_combo.setCurrentIndex(panel.task_combo.findData("marker"))
    st = panel.state
    assert (st.task, st.train_len, st.schemes) == ("marker", 12, task_default_schemes("marker"))
    assert panel.task_why.text() == TASK_WHY["marker"] and "cope" in st.schemes
    assert "second-last |" in panel.formula_text(st) and "4 … 12" in panel.formula_text(st)
    panel.task_combo.setCurrentIndex(panel.task_combo.findData("grid"))
    st = panel.state
    assert (st.task, st.train_len, st.eval_lens) == ("grid", 8, (8, 10, 12, 16, 24))
    assert "rope_2d_axial" in st.schemes and "cope" not in st.schemes
    assert "row" in panel.position_view.pi.titleLabel.text.lower()
    assert "sides 3 … 8" in panel.formula_text(st) and "fill in a grid" in panel.task_label.text()
