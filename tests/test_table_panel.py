"""The Learned-table panel: the stand-in, a checkpoint opened in the GUI, bad files, every view drawn."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from checkpoint_files import gpt2_folder, helix, write_safetensors

from explorer.panels.table import TablePanel
from explorer.state import AppState
from explorer.state.table import VIEWS, TableState


@pytest.fixture
def panel(qtbot, service):
    p = TablePanel(service, TableState(rows=48, d_model=8))
    qtbot.addWidget(p)
    p.resize(1280, 700)
    p.show()
    qtbot.waitUntil(lambda: p.has_drawn, timeout=20000)
    yield p
    p.shutdown()


def _shown(qtbot, p, kind):
    qtbot.waitUntil(lambda: not p.waiting and p.info is not None and p.info.kind == kind
                    and p.last_drawn_request.source == p.source(), timeout=20000)


def test_stand_in_says_so_and_every_view_draws(qtbot, panel):
    assert panel.source_label.text().startswith("No checkpoint open: a seeded random table (48 × 8, seed 0)")
    assert not panel.close_button.isVisibleTo(panel)
    for v in VIEWS:
        panel.show_view(v)
        qtbot.waitUntil(lambda v=v: f"table.{v}" in panel._drawn_keys and not panel.waiting, timeout=20000)
    assert "refused: position 1024 has no row" in panel.views["norms"].probe.text()


def test_open_a_gpt2_folder_pick_a_tensor_and_close(qtbot, panel, tmp_path):
    panel.open_checkpoint(str(gpt2_folder(tmp_path / "gpt2", 64, 16)))
    _shown(qtbot, panel, "file")
    assert "wpe.weight: 64 positions × 16 (F32)" in panel.source_label.text()
    img = panel.views["heatmap"].plot.image.image
    np.testing.assert_allclose(img, helix(64, 16).astype(np.float32))
    assert panel.tensor_combo.isVisibleTo(panel) and panel.tensor_combo.currentText() == "wpe.weight"
    assert not panel.spins["rows"].isEnabled()
    panel.show_view("norms")
    panel.set_state(dataclasses.replace(panel.state, probe=63))
    qtbot.waitUntil(lambda: panel.views["norms"].probe.text().startswith("position 63 → row 63"), timeout=20000)
    assert "refused" not in panel.views["norms"].probe.text()
    panel.tensor_combo.setCurrentIndex(panel.tensor_combo.findText("wte.weight"))
    panel.tensor_combo.activated.emit(panel.tensor_combo.currentIndex())
    qtbot.waitUntil(lambda: panel.info.name == "wte.weight" and not panel.waiting, timeout=20000)
    panel.close_checkpoint()
    _shown(qtbot, panel, "random")


def test_a_bad_file_is_one_line_and_the_table_stays(qtbot, panel, tmp_path):
    good = write_safetensors(tmp_path / "good.safetensors", {"wpe.weight": helix(20, 4)})
    panel.open_checkpoint(str(good))
    _shown(qtbot, panel, "file")
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(good.read_bytes()[:-40])
    panel.open_checkpoint(str(bad))
    qtbot.waitUntil(lambda: panel.banner.isVisibleTo(panel), timeout=20000)
    assert "truncated" in panel.banner.text() and "\n" not in panel.banner.text()
    qtbot.waitUntil(lambda: panel.source().path == str(good), timeout=20000)


def test_the_lab_table_and_the_3d_turn(qtbot, panel):
    panel.show_view("pca")
    panel.show_table(helix(30, 6), "Lab: learned (trained)")
    _shown(qtbot, panel, "array")
    pca = panel.views["pca"]
    before = pca.dots3.getData()[0].copy()
    panel.sliders["yaw"].setValue(90.0)
    assert panel.state.yaw == 90.0
    assert not np.allclose(pca.dots3.getData()[0], before)
    rot = pca.projection()
    np.testing.assert_allclose(rot @ rot.T, np.eye(3), atol=1e-12)


def test_state_holds_no_path():
    names = {f.name for f in dataclasses.fields(TableState)}
    assert not names & {"path", "checkpoint", "file", "tensor"}
    assert AppState.from_json(AppState().to_json()).get("table") == TableState()


def test_file_menu_opens_a_checkpoint_in_the_window(qtbot, main_window, tmp_path):
    f = gpt2_folder(tmp_path / "gpt2", 32, 8)
    assert main_window.acts["actOpenCheckpoint"] in main_window.menus["File"].actions()
    table = main_window.panels["table"]
    table.ask_checkpoint_path = lambda: str(f)  # what the file dialog would answer
    main_window.acts["actOpenCheckpoint"].trigger()
    qtbot.waitUntil(lambda: table.info is not None and table.info.kind == "file" and not table.waiting,
                    timeout=30000)
    assert main_window.docks["table"].isVisible() and "32 positions × 8" in table.source_label.text()


def test_cli_checkpoint_that_does_not_exist_is_one_line(tmp_path, capsys):
    from explorer import cli

    with pytest.raises(SystemExit) as exc:
        cli.main(["--checkpoint", str(tmp_path / "missing.safetensors")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "no such file or folder" in err and len(err.strip().splitlines()) == 1


def test_every_plot_exports_its_numbers(qtbot, panel, tmp_path):
    from explorer.export.data import data_bytes

    for v in VIEWS:
        panel.show_view(v)
        qtbot.waitUntil(lambda v=v: f"table.{v}" in panel._drawn_keys and not panel.waiting, timeout=20000)
    for plot in panel.plots():
        arrays = panel.export_data(plot)
        assert arrays, plot.objectName()
        for ext in (".npy", ".csv"):
            assert data_bytes(arrays, ext)
    norms = next(p for p in panel.plots() if p.objectName() == "tableNorms")
    np.testing.assert_allclose(panel.export_data(norms)["norm"], np.linalg.norm(panel._last["heatmap"].arrays["table"],
                                                                                axis=1))


def test_spectrum_opens_on_the_frequencies_that_hold_power():
    """A trained table's waves are slow: the power plot opens up to where power stands out of the noise floor
    (not the whole 0 … 0.5, where the signal was a strip at the bottom); a random table keeps the whole range."""
    import numpy as np

    from explorer.encodings import table_stats as ts
    from explorer.panels.table.views import spectrum_top

    def top(table):
        freqs, power = ts.column_power(table)
        share = power / power.sum(axis=0)
        return spectrum_top(freqs, np.log10(np.maximum(share, 1e-6)), ts.dominant_frequencies(table))

    rng = np.random.default_rng(0)
    p = np.arange(512)[:, None]
    slow = np.sin(2 * np.pi * p * np.linspace(1, 20, 16)[None, :] / 512) + 0.01 * rng.standard_normal((512, 16))
    assert 20 / 512 <= top(slow) < 0.1
    assert top(rng.standard_normal((512, 16))) == 0.5


@pytest.mark.parametrize("change", ["rows", "tab"])
def test_a_refused_file_then_new_parameters_draw_the_new_parameters(qtbot, panel, tmp_path, change):
    """The GUI monkey's stale plot (issue 25): while a refused file is being read, the rows change (or another
    tab comes up); once the file is refused, what is on screen must be the current parameters' table, not the
    last one drawn before the file was asked for (nor nothing at all)."""
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{broken}")
    panel.show_view("similarity")
    qtbot.waitUntil(lambda: "table.similarity" in panel._drawn_keys and not panel.waiting, timeout=20000)
    panel.open_checkpoint(str(bad))
    if change == "rows":
        panel.set_state(dataclasses.replace(panel.state, rows=32))
    else:
        panel.show_view("spectrum")
    qtbot.waitUntil(lambda: panel.banner.isVisibleTo(panel), timeout=20000)
    view = panel.current_view()
    want = panel.requests(panel.state)[0]
    assert want.source.kind == "random" and want.key == f"table.{view}"
    qtbot.waitUntil(lambda: panel.last_drawn_request == want, timeout=20000)
    assert panel._last[view].info.positions == panel.state.rows
    assert panel.banner.isVisibleTo(panel) and "bad.safetensors" in panel.banner.text()  # the reason stays
