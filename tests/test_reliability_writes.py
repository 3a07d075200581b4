"""One writing path (issue 16): write next to the target, fsync, rename; keep the target's mode (a new file gets
the umask); follow a symlink to its target; never replace something that is not a regular file (a FIFO, a
device — even as root); remove our own stale temporary files; check an output path before the work.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import time

import numpy as np
import pytest

from explorer import cli, fileio
from explorer.fileio import OutputError, atomic_write_bytes


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_file_gets_the_users_umask_not_0600(tmp_path, umask_022):
    atomic_write_bytes(tmp_path / "a.json", b"{}")
    assert _mode(tmp_path / "a.json") == 0o644
    os.umask(0o027)
    atomic_write_bytes(tmp_path / "b.json", b"{}")
    assert _mode(tmp_path / "b.json") == 0o640


@pytest.mark.parametrize("mode", [0o600, 0o664, 0o755])
def test_an_existing_file_keeps_its_mode(tmp_path, umask_022, mode):
    f = tmp_path / "keep.json"
    f.write_bytes(b"old")
    os.chmod(f, mode)
    atomic_write_bytes(f, b"new")
    assert f.read_bytes() == b"new" and _mode(f) == mode


def test_a_symlink_is_followed_and_kept(tmp_path):
    real = tmp_path / "real" / "data.npy"
    real.parent.mkdir()
    real.write_bytes(b"old")
    link = tmp_path / "link.npy"
    link.symlink_to(real)
    chain = tmp_path / "chain.npy"
    chain.symlink_to(link)
    atomic_write_bytes(chain, b"new")
    assert chain.is_symlink() and link.is_symlink()
    assert real.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chain.npy", "link.npy", "real"]
    assert os.listdir(real.parent) == ["data.npy"]  # the temporary file was next to the target


def test_a_dangling_symlink_writes_its_target(tmp_path):
    link = tmp_path / "out.npy"
    link.symlink_to(tmp_path / "made.npy")
    atomic_write_bytes(link, b"x")
    assert link.is_symlink() and (tmp_path / "made.npy").read_bytes() == b"x"


def test_a_fifo_is_never_replaced_or_opened(tmp_path):
    fifo = tmp_path / "out.npy"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="FIFO"):
        atomic_write_bytes(fifo, b"data")  # would block forever if it opened the FIFO
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    with pytest.raises(OutputError, match="FIFO"):
        fileio.check_output(fifo)
    assert os.listdir(tmp_path) == ["out.npy"]


def _null_device(path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a second /dev/null, inside tmp_path
    except PermissionError:
        pytest.skip("mknod needs root (CAP_MKNOD)")


def test_a_device_is_never_replaced_even_as_root(tmp_path):
    dev = tmp_path / "null.png"
    _null_device(dev)
    with pytest.raises(OutputError, match="a device, not a regular file"):
        atomic_write_bytes(dev, b"\x89PNG")
    assert stat.S_ISCHR(os.stat(dev).st_mode)


def test_dev_null_and_folders_are_refused_before_the_work():
    with pytest.raises(OutputError, match="a device"):
        fileio.check_output("/dev/null")
    with pytest.raises(OutputError, match="a folder"):
        fileio.check_output("/tmp")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_stale_temporary_files_of_ours_are_removed(tmp_path):
    target = tmp_path / "session.json"
    old = [tmp_path / f".session.json.{tag}.part" for tag in ("abcd1234", "zz_9yy8x")]
    fresh = tmp_path / ".session.json.fresh123.part"  # a write in progress right now: kept
    other = [tmp_path / ".other.json.abcd1234.part", tmp_path / "session.json.abcd1234.part",
             tmp_path / ".session.json.toolong123.part", tmp_path / "notes.txt"]
    for p in [*old, fresh, *other]:
        p.write_bytes(b"x" * 10)
    hour_ago = time.time() - 3600
    for p in [*old, *other]:
        os.utime(p, (hour_ago, hour_ago))
    atomic_write_bytes(target, b"{}")
    assert target.read_bytes() == b"{}"
    assert not any(p.exists() for p in old)
    assert fresh.exists() and all(p.exists() for p in other)


def test_fifo_and_device_as_cli_out_fail_at_once(tmp_path, capsys):
    fifo = tmp_path / "out.npy"
    os.mkfifo(fifo)
    assert cli.main(["data", "alibi-slopes", "--heads", "4", "--out", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert "FIFO" in err and len(err.strip().splitlines()) == 1
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    dev = tmp_path / "dev.json"
    _null_device(dev)
    assert cli.main(["data", "swap", "--sentence", "a b", "--swap", "0", "1", "--out", str(dev)]) == 2
    assert "a device" in capsys.readouterr().err
    assert stat.S_ISCHR(os.stat(dev).st_mode)


def test_data_output_is_written_0644_and_through_a_symlink(tmp_path, capsys, umask_022):
    real = tmp_path / "r.npy"
    real.write_bytes(b"")
    os.chmod(real, 0o664)
    link = tmp_path / "l.npy"
    link.symlink_to(real)
    assert cli.main(["data", "alibi-slopes", "--heads", "4", "--out", str(link)]) == 0
    assert link.is_symlink() and _mode(real) == 0o664 and np.load(real).shape == (4,)
    assert cli.main(["data", "alibi-slopes", "--heads", "4", "--out", str(tmp_path / "new.csv")]) == 0
    assert _mode(tmp_path / "new.csv") == 0o644


# -- output paths checked before the work ------------------------------------------------------------------

@pytest.fixture
def no_training(monkeypatch):
    import explorer.lab

    def fail(*_a, **_k):
        raise AssertionError("the experiment ran before --out was checked")

    monkeypatch.setattr(explorer.lab, "run_experiment", fail)


def _lab(out, capsys) -> str:
    rc = cli.main(["lab", "--schemes", "nope", "--train-len", "8", "--steps", "10", "--quiet", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    return err


def test_lab_out_into_a_folder_fails_before_training(tmp_path, capsys, no_training):
    (tmp_path / "results.json").mkdir()
    assert "a folder" in _lab(tmp_path / "results.json", capsys)


def test_lab_out_in_a_read_only_place_fails_before_training(tmp_path, capsys, no_training):
    """/sys takes no new file even from root: a real unwritable folder, no simulation."""
    try:
        fd, probe = __import__("tempfile").mkstemp(dir="/sys")
    except OSError:
        pass
    else:  # pragma: no cover - a machine where /sys is writable
        os.close(fd)
        os.unlink(probe)
        pytest.skip("/sys is writable here")
    assert "/sys" in _lab("/sys/results.json", capsys)


def test_lab_out_on_a_read_only_file_system_fails_before_training(tmp_path, capsys, no_training, monkeypatch):
    """A read-only mount (EROFS), simulated: mounting needs privileges the tests do not have."""
    def erofs(*_a, **_k):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(fileio.tempfile, "mkstemp", erofs)
    assert "Read-only file system" in _lab(tmp_path / "r.json", capsys)


def test_bench_out_is_checked_before_the_suite(tmp_path, capsys, monkeypatch):
    import explorer.bench

    monkeypatch.setattr(explorer.bench, "main", lambda *_: pytest.fail("the bench ran before --out was checked"))
    (tmp_path / "b.json").mkdir()
    assert cli.main(["bench", "--quick", "--out", str(tmp_path / "b.json")]) == 2
    assert "a folder" in capsys.readouterr().err


def _run(args, timeout=90) -> subprocess.CompletedProcess:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "explorer", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL)


def test_export_preset_on_a_fifo_does_not_block(tmp_path):
    fifo = tmp_path / "preset.json"
    os.mkfifo(fifo)
    proc = _run(["export", "--panel", "waves", "--preset", str(fifo), "--out", str(tmp_path / "w.png")])
    assert proc.returncode == 2 and "FIFO" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "w.png").exists()


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_export_out_that_is_not_a_regular_file_fails_at_once(tmp_path, kind):
    out = tmp_path / "w.png"
    {"fifo": os.mkfifo, "device": _null_device, "folder": os.mkdir}[kind](out)
    before = os.stat(out).st_mode
    proc = _run(["export", "--panel", "waves", "--out", str(out)])
    assert proc.returncode == 2 and "not a regular file" in proc.stderr, proc.stderr
    assert os.stat(out).st_mode == before


def test_empty_screenshot_name_does_not_start_the_app():
    proc = _run(["--screenshot", ""], timeout=60)
    assert proc.returncode == 2 and "--screenshot" in proc.stderr and "empty" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_screenshot_on_a_fifo_or_device_is_refused_before_the_window(tmp_path, kind):
    out = tmp_path / "shot.png"
    {"fifo": os.mkfifo, "device": _null_device}[kind](out)
    before = os.stat(out).st_mode
    proc = _run(["--screenshot", str(out)], timeout=120)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr, proc.stderr
    assert os.stat(out).st_mode == before
