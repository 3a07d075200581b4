"""The hostile pass of issue 25, as real starts of the app: what a file or the environment does must never
crash it, hang it, or keep it from starting.

- ``--checkpoint <a refused file> --screenshot`` says why at once (it waited 121 s, then "panels did not
  draw within 120 s").
- A saved layout one byte different from a valid one (a dock area numbered past 3) killed every start with
  SIGSEGV inside Qt: it is refused in one line and the app starts, then and after.
- Untrusted text never loads a resource: a tensor name, a ``model_type``, a config's ``_name``, a preset's
  title and a session hold ``<img src="a FIFO">``, through ``--checkpoint``, ``--config``, ``export
  --preset``, ``export --set`` and the start that restores the session.  Qt reading the "image" would
  block on the FIFO for ever (with ``/dev/zero`` it read until the process died): each run must end, and
  nothing may have opened the FIFO.  tests/test_untrusted_text.py checks every place text is shown.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from checkpoint_files import helix, write_safetensors

pytestmark = pytest.mark.timeout(300)


def _env(home, **extra) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PE_EXPLORER_HOME": str(home)}
    env.pop("PE_EXPLORER_COMPUTE", None)  # the app as users run it: its compute process
    env.update(extra)
    return env


def _app(args, env, timeout=90) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explorer", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_a_refused_checkpoint_ends_a_screenshot_at_once_with_its_reason(tmp_path):
    bad = write_safetensors(tmp_path / "no_table.safetensors", {"h.0.mlp.weight": helix(8, 4)})
    out = tmp_path / "shot.png"
    proc = _app(["--checkpoint", str(bad), "--screenshot", str(out)], _env(tmp_path / "home"))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines == [f"pe-explorer: error: {bad}: no position table found among 1 tensors (no wpe / "
                     "position_embeddings / embed_positions); pick one with --tensor NAME"], proc.stderr
    assert not out.exists()


def test_a_layout_one_byte_different_from_a_valid_one_does_not_stop_the_start(qtbot, tmp_path, monkeypatch):
    """The first dock area's number 0–3 made 256 more: every start died of SIGSEGV inside Qt's restoreState."""
    from explorer.main_window import LAYOUT_VERSION, MainWindow
    from explorer.settings import save_settings

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("PE_EXPLORER_HOME", str(home))
    w = MainWindow(restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    state = bytearray(w.saveState(LAYOUT_VERSION).data())
    w.close()
    assert state[8] == 0xFD and state[13:16] == b"\0\0\0" and state[16] < 4  # the first dock area's number
    state[15] = 1
    save_settings({"state": bytes(state)})
    said = []
    for _ in range(2):  # and the start after it, with the layout the first one saved
        proc = _app([], _env(home, PE_EXPLORER_EXIT_AFTER_SHOWN="1"), timeout=120)
        assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr
        said.append(proc.stderr.strip())
    assert said[0].startswith("pe-explorer: saved window layout not used: ") and "\n" not in said[0], said
    assert said[1] == "", said


def _fifo_img(tmp_path) -> str:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    return f'<b>x</b><img src="{fifo}">'


def _model(name: str) -> dict:
    return {"_name": name, "model_type": "llama", "rope_theta": 10000.0, "hidden_size": 64,
            "num_attention_heads": 2, "max_position_embeddings": 256}


def _fifo_run(tmp_path, args, **env) -> subprocess.CompletedProcess:
    """Run the app in ``tmp_path`` (so ``<img src=f>`` names the FIFO there); it must end."""
    try:
        return subprocess.run([sys.executable, "-m", "explorer", *args], env=_env(tmp_path / "home", **env),
                              capture_output=True, text=True, timeout=150, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args}: still running after 150 s (blocked reading the <img> FIFO?)")


def test_a_checkpoint_naming_a_fifo_image_loads_no_image(tmp_path):
    img = _fifo_img(tmp_path)
    folder = tmp_path / "model"
    folder.mkdir()
    write_safetensors(folder / "model.safetensors", {"wpe.weight": helix(16, 4), img: helix(8, 4)})
    (folder / "config.json").write_text(json.dumps({"model_type": '<img src="f">', "n_positions": 16}))
    proc = _fifo_run(tmp_path, ["--checkpoint", str(folder), "--screenshot", str(tmp_path / "a.png")])
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_a_config_naming_a_fifo_image_loads_no_image(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps(_model(_fifo_img(tmp_path))))
    proc = _fifo_run(tmp_path, ["--config", str(config), "--screenshot", str(tmp_path / "a.png")])
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_export_of_a_preset_or_a_set_naming_a_fifo_image_loads_no_image(tmp_path):
    from explorer import presets as pr
    from explorer.state import AppState

    img = _fifo_img(tmp_path)
    st = AppState()
    st = st.replace(schemes=st.schemes.clamped(view="model", model=json.dumps(_model(img))))
    preset = tmp_path / "p.json"
    pr.save_preset(preset, st, title=img[:120], description=img, panel="schemes", view="model")
    for args in (["--preset", str(preset)], ["--set", "view=model", "--set", f"model={json.dumps(_model(img))}"]):
        proc = _fifo_run(tmp_path, ["export", "--panel", "schemes", *args, "--out", str(tmp_path / "s.png")])
        assert proc.returncode == 0, (args, proc.stderr[-2000:])


def test_a_session_naming_a_fifo_image_does_not_stop_the_start(tmp_path):
    from explorer import presets as pr
    from explorer.state import AppState

    img = _fifo_img(tmp_path)
    st = AppState()
    st = st.replace(schemes=st.schemes.clamped(view="model", model=json.dumps(_model(img))))
    home = tmp_path / "home"
    home.mkdir()
    pr.save_preset(home / "session.json", st, title=img[:120], description=img, panel="schemes", view="model")
    for _ in range(2):  # it aborted every start until the file was deleted
        proc = _fifo_run(tmp_path, [], PE_EXPLORER_EXIT_AFTER_SHOWN="1")
        assert proc.returncode == 0, proc.stderr[-2000:]
