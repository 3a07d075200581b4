"""The GUI monkey in a hostile home (issue 16): crafted settings, session and presets, hostile files offered
to "Open preset…" (the corpus of tests/test_hostile_files.py, a FIFO, a folder) — nothing runs, nothing
hangs, every plot still shows its parameters, and every hostile file opened is refused with one line."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_hostile_files import _variant_ini, corpus  # noqa: E402

from explorer.qa.monkey import Monkey  # noqa: E402

SEED = int(os.environ.get("PE_MONKEY_SEED", "160016"))
EVENTS = int(os.environ.get("PE_MONKEY_HOSTILE_EVENTS", "300"))


@pytest.mark.timeout(600)
def test_monkey_in_a_hostile_home(qtbot, tmp_path):
    from explorer.main_window import MainWindow
    from explorer.widgets.plots import configure_pyqtgraph

    home = Path(os.environ["PE_EXPLORER_HOME"])
    marker = tmp_path / "code-ran"
    files = {name: (data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
             for name, (data, what) in corpus(marker).items() if what == "refuse"}
    # The home the window starts from: a crafted window.ini, a refused session, hostile presets.
    home.mkdir(parents=True, exist_ok=True)
    (home / "window.ini").write_bytes(_variant_ini(marker))
    (home / "session.json").write_bytes(files["int_5000_digits"])
    (home / "presets").mkdir(exist_ok=True)
    for name in ("panel_list", "int_400_digits", "nan_literal", "truncated"):
        (home / "presets" / f"{name}.json").write_bytes(files[name])
    configure_pyqtgraph()
    window = MainWindow()  # restores the layout and the session: reads every hostile file above
    qtbot.addWidget(window)
    try:
        monkey = Monkey(window, SEED, tmp_path / "files", hostile=files)
        window.resize(1280, 720)
        window.show()
        counts = monkey.run(EVENTS)
        monkey.check_final()
        assert counts.events == EVENTS
        names = {p.name for p in monkey.hostile}
        refused = [m for m in monkey.messages if any(n in m for n in names)]
        assert len(refused) >= 3, monkey.messages  # the monkey really handed hostile files over
        # Each refusal is one line of reason (the dialog adds "Nothing was changed." below it).
        assert all(m.startswith("Preset not loaded: ") and "\n" not in m.split("\n\n")[0] for m in refused), refused
        assert not marker.exists(), "a crafted file ran code"
        assert list(home.glob("session.rejected-*.json")), "the refused session was not moved aside"
    finally:
        window.close()
    window.service.worker_thread.join(60)  # a job still running (torch's first import) ends first
    assert not window.service.worker_thread.is_alive()
