"""Packaging: resources found the same way everywhere, the wheel, the icon, the desktop entry, the bundle.

The bundle tests build the real PyInstaller one-folder bundle (minutes, once per change of what it is made of:
it is cached by their hash; marked slow, skipped when PyInstaller is not installed), start it offscreen with
--screenshot and check the picture.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import numpy as np
import pytest

from explorer import __version__, paths

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
ICONS = ROOT / "resources" / "icons"
DESKTOP = PACKAGING / "linux" / "pe-explorer.desktop"
APP_ID = "io.github.pe_explorer.PEExplorer"
METAINFO = PACKAGING / "linux" / f"{APP_ID}.metainfo.xml"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
BASH = shutil.which("bash")
NO_PYINSTALLER = "PyInstaller is not installed: pip install -e '.[package]'"


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _make_icons():
    """packaging/make_icons.py as a module (packaging/ is no package: it must not shadow ``packaging``)."""
    spec = importlib.util.spec_from_file_location("pe_make_icons", PACKAGING / "make_icons.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rgba(path: Path) -> np.ndarray:
    from PIL import Image

    with Image.open(path) as im:
        return np.asarray(im.convert("RGBA"), dtype=np.float64)


def _desktop_entry(path: Path) -> dict[str, str]:
    entry = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            entry[key] = value
    return entry


# -- one helper finds the resources in every layout ---------------------------------------------
def _layout(tmp_path: Path, *, inside: bool, beside: bool) -> Path:
    package = tmp_path / "explorer"
    package.mkdir()
    if inside:  # an installed wheel, or the bundle
        (package / "resources" / "icons").mkdir(parents=True)
    if beside:  # a source checkout (also what an editable install runs from)
        (tmp_path / "resources" / "icons").mkdir(parents=True)
    return package


def test_resources_inside_the_package_are_found_for_wheel_and_bundle(tmp_path):
    package = _layout(tmp_path, inside=True, beside=False)
    assert paths.resources_dir(package) == package / "resources"


def test_resources_beside_the_package_are_found_in_a_checkout(tmp_path):
    package = _layout(tmp_path, inside=False, beside=True)
    assert paths.resources_dir(package) == tmp_path / "resources"


def test_packaged_resources_win_over_a_stray_folder_beside_site_packages(tmp_path):
    package = _layout(tmp_path, inside=True, beside=True)
    assert paths.resources_dir(package) == package / "resources"


def test_a_broken_install_names_the_packaged_location(tmp_path):
    package = _layout(tmp_path, inside=False, beside=False)
    assert paths.resources_dir(package) == package / "resources"


def test_this_checkout_finds_its_icon():
    assert paths.resources_dir() == ROOT / "resources"
    assert paths.resource_path("icons", "pe-explorer.svg") == ICONS / "pe-explorer.svg"
    assert paths.resource_path("icons", "pe-explorer.svg").is_file()


# -- the wheel -----------------------------------------------------------------------------------
def test_the_wheel_carries_the_resources_and_the_installed_app_finds_them(tmp_path):
    # Built from a copy so the test leaves no build/ or egg-info behind in the checkout.
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("explorer", "resources", "docs"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    wheels = tmp_path / "wheels"
    # Without build isolation when this environment's setuptools can build the project (torch
    # pulls in a new enough one): seconds, and no index needed.
    from importlib.metadata import PackageNotFoundError, version

    try:
        fast = int(version("setuptools").split(".")[0]) >= 77
    except PackageNotFoundError:
        fast = False
    isolation = ["--no-build-isolation", "--no-index"] if fast else []
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w", str(wheels), str(src)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    (wheel,) = wheels.glob("pe_explorer-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path / "site")
    expected = {f"explorer/resources/icons/pe-explorer-{s}.png" for s in SIZES}
    expected.add("explorer/resources/icons/pe-explorer.svg")
    assert expected <= names
    assert not any(n.startswith("resources/") for n in names), "resources must not land top-level"
    # The user guide travels as explorer/docs (Help → User guide reads it offline).
    docs = {f"explorer/docs/{p.relative_to(src / 'docs').as_posix()}" for p in (src / "docs").rglob("*")
            if p.is_file()}
    assert docs and docs <= names, sorted(docs - names)[:5]
    assert not any(n.startswith("docs/") for n in names), "docs must not land top-level"
    # setup.py computes the package list: every module under explorer/ is in the wheel.
    modules = {p.relative_to(src).as_posix() for p in (src / "explorer").rglob("*.py")}
    assert modules <= names, sorted(modules - names)

    # The installed layout: explorer/ from the wheel first on the path.
    code = "import explorer.paths as p; print(p.__file__); print(p.resource_path('icons', 'pe-explorer.svg'))"
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    module_file, icon = (Path(line) for line in proc.stdout.split())
    site = (tmp_path / "site").resolve()
    assert module_file.is_relative_to(site)
    assert icon == site / "explorer" / "resources" / "icons" / "pe-explorer.svg"
    assert icon.is_file()


def test_a_frozen_app_finds_resources_by_the_same_rule(tmp_path):
    """A tiny bundle (seconds, no Qt or torch) with resources where the spec puts them."""
    pytest.importorskip("PyInstaller", reason=NO_PYINSTALLER)
    probe = tmp_path / "probe.py"
    probe.write_text("import sys, explorer.paths as p\n"
                     "print(sys._MEIPASS); print(p.resource_path('icons', 'pe-explorer.svg'))\n")
    proc = subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "ERROR", "--onedir",
         "--paths", str(ROOT), "--add-data", f"{ROOT / 'resources'}{os.pathsep}explorer/resources",
         "--distpath", str(tmp_path / "dist"), "--workpath", str(tmp_path / "work"),
         "--specpath", str(tmp_path), str(probe)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert '"explorer/resources"' in (PACKAGING / "pe-explorer.spec").read_text(), "the spec's destination"
    run = subprocess.run([str(tmp_path / "dist" / "probe" / "probe")], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    meipass, icon = (Path(line) for line in run.stdout.split())
    assert icon == meipass / "explorer" / "resources" / "icons" / "pe-explorer.svg"
    assert icon.is_file()


# -- the icon ------------------------------------------------------------------------------------
def test_the_svg_is_what_make_icons_draws():
    assert (ICONS / "pe-explorer.svg").read_text(encoding="utf-8") == _make_icons().icon_svg(), (
        "resources/icons/pe-explorer.svg is stale: run .venv/bin/python packaging/make_icons.py"
    )


@pytest.mark.parametrize("size", SIZES)
def test_every_png_size_is_a_real_icon(size):
    rgba = _rgba(ICONS / f"pe-explorer-{size}.png")
    assert rgba.shape == (size, size, 4)
    assert rgba[0, 0, 3] == 0, "the corners are transparent (rounded plate)"
    c = size // 2
    assert rgba[c, c, 3] == 255, "the middle is opaque"
    opaque = rgba[rgba[..., 3] == 255][:, :3]
    assert opaque.std(axis=0).max() > 20, "the waves stand out from the plate"


def test_the_pngs_are_rendered_from_the_current_svg(qapp, tmp_path):
    svg = tmp_path / "pe-explorer.svg"
    shutil.copy2(ICONS / "pe-explorer.svg", svg)
    for fresh in _make_icons().render_pngs(svg, sizes=(16, 64, 256)):
        committed = _rgba(ICONS / fresh.name)
        # A tolerance so a Qt update that shifts antialiasing by a shade does not fail this.
        assert np.abs(_rgba(fresh) - committed).mean() < 2.0, (
            f"{fresh.name} differs from the SVG: run .venv/bin/python packaging/make_icons.py --png-only"
        )


def test_the_app_sets_its_icon_and_desktop_name(qapp):
    from explorer.app import make_app

    app = make_app()
    assert not app.windowIcon().isNull(), "the SVG icon was not found or not loaded"
    assert app.windowIcon().pixmap(32, 32).width() == 32
    assert app.desktopFileName() == DESKTOP.stem


# -- the desktop entry and AppStream metadata ----------------------------------------------------
def test_desktop_entry_matches_the_app():
    entry = _desktop_entry(DESKTOP)
    scripts = _pyproject()["project"]["scripts"]
    assert entry["Exec"] in scripts and entry["TryExec"] == entry["Exec"]
    assert entry["Icon"] == "pe-explorer" and (ICONS / f"{entry['Icon']}.svg").is_file()
    assert entry["Type"] == "Application" and entry["Terminal"] == "false"


def test_desktop_file_validate_accepts_the_entry():
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        pytest.skip("desktop-file-validate is not installed "
                    "(Debian/Ubuntu: apt-get install desktop-file-utils)")
    proc = subprocess.run([tool, str(DESKTOP)], capture_output=True, text=True, timeout=30)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "error" not in out and "warning" not in out, out


def test_metainfo_matches_the_app_and_its_version():
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID == METAINFO.name.removesuffix(".metainfo.xml")
    assert root.findtext("launchable") == DESKTOP.name
    assert root.findtext("provides/binary") in _pyproject()["project"]["scripts"]
    newest = root.find("releases/release")
    assert newest.get("version") == _pyproject()["project"]["version"], (
        "add a <release> for the new version to the metainfo"
    )


def test_appstreamcli_accepts_the_metainfo():
    tool = shutil.which("appstreamcli")
    if tool is None:
        pytest.skip("appstreamcli is not installed (Debian/Ubuntu: apt-get install appstream)")
    proc = subprocess.run([tool, "validate", "--no-net", str(METAINFO)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# -- the install script --------------------------------------------------------------------------
def _fake_command(folder: Path) -> Path:
    folder.mkdir(parents=True)
    exe = folder / "pe-explorer"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    return exe


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_install_script_installs_and_removes_the_menu_entry(tmp_path):
    exe = _fake_command(tmp_path / "app dir & more")
    data = tmp_path / "share"
    script = PACKAGING / "install-desktop-entry.sh"
    proc = subprocess.run([BASH, str(script), "--exec", str(exe), "--data-dir", str(data)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    installed = data / "applications" / "pe-explorer.desktop"
    entry = _desktop_entry(installed)
    assert entry["Exec"] == f'"{exe}"', "the full path, quoted (it has a space and an &)"
    assert entry["TryExec"] == str(exe)
    assert entry["Icon"] == "pe-explorer"
    assert (data / "icons/hicolor/scalable/apps/pe-explorer.svg").is_file()
    for size in SIZES:
        png = data / f"icons/hicolor/{size}x{size}/apps/pe-explorer.png"
        assert _rgba(png).shape[:2] == (size, size), "an NxN folder must hold N-pixel icons"
    assert (data / "metainfo" / METAINFO.name).is_file()
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(["desktop-file-validate", str(installed)], capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr

    proc = subprocess.run([BASH, str(script), "--uninstall", "--data-dir", str(data)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    left = [p for p in data.rglob("*") if p.is_file() and ("pe-explorer" in p.name or APP_ID in p.name)]
    assert left == []


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_install_script_finds_a_pip_installed_command_and_asks_it_for_the_icons(tmp_path):
    """The pip/pipx case: pe-explorer on PATH, no checkout beside the script, icons from its Python."""
    alone = tmp_path / "script-alone"
    (alone / "linux").mkdir(parents=True)
    shutil.copy2(PACKAGING / "install-desktop-entry.sh", alone)
    for f in (DESKTOP, METAINFO):
        shutil.copy2(f, alone / "linux")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "pe-explorer"
    exe.write_text(f"#!{sys.executable}\nfrom explorer.cli import main\nmain()\n")
    exe.chmod(0o755)
    data = tmp_path / "share"
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.run([BASH, str(alone / "install-desktop-entry.sh"), "--data-dir", str(data)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert _desktop_entry(data / "applications" / "pe-explorer.desktop")["Exec"] == f'"{exe}"'
    installed_svg = data / "icons/hicolor/scalable/apps/pe-explorer.svg"
    assert installed_svg.read_bytes() == (ICONS / "pe-explorer.svg").read_bytes()


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_install_script_refuses_a_path_a_menu_entry_cannot_hold(tmp_path):
    exe = _fake_command(tmp_path / "costs $5")
    proc = subprocess.run([BASH, str(PACKAGING / "install-desktop-entry.sh"), "--exec", str(exe),
                           "--data-dir", str(tmp_path / "share")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "cannot hold" in proc.stderr
    assert not (tmp_path / "share").exists()


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize("script", ["install-desktop-entry.sh", "build.sh"])
def test_scripts_reject_unknown_arguments_in_one_line(script):
    proc = subprocess.run([BASH, str(PACKAGING / script), "--bogus"], capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--bogus" in proc.stderr


# -- the bundle ----------------------------------------------------------------------------------
#: Distributions of the test, benchmark and packaging extras that hooks pulled in before the spec excluded them.
TEST_TOOLS = {"transformers", "tokenizers", "huggingface_hub", "hf_xet", "safetensors", "mypy", "pydantic_core",
              "pytest", "matplotlib", "pyinstaller", "kernels", "regex"}
#: The files a bundle is built from (besides the installed packages, named with their versions).
BUNDLE_INPUTS = ("explorer", "resources", "docs", "packaging", "pyproject.toml", "setup.py")


def _bundle_key() -> str:
    """A hash of everything the bundle is made of: the inputs' files and the environment's packages."""
    import hashlib
    from importlib.metadata import distributions

    h = hashlib.sha256(sys.version.encode())
    for name in BUNDLE_INPUTS:
        top = ROOT / name
        for path in sorted([top] if top.is_file() else top.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    for dist in sorted(f"{d.metadata['Name']}=={d.version}" for d in distributions()):
        h.update(dist.encode())
    return h.hexdigest()[:16]


@pytest.fixture(scope="module")
def bundle():
    """The one-folder bundle, built once per change of its inputs (minutes) and kept in the user's cache
    (``$XDG_CACHE_HOME/pe-explorer-tests/bundle-<hash>``: the last one only), or the one ``$PE_EXPLORER_BUNDLE``
    names (a folder holding ``pe-explorer``)."""
    given = os.environ.get("PE_EXPLORER_BUNDLE")
    if given:
        yield Path(given)
        return
    pytest.importorskip("PyInstaller", reason=NO_PYINSTALLER)
    if BASH is None:
        pytest.skip("packaging/build.sh needs bash")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pe-explorer-tests"
    out = cache / f"bundle-{_bundle_key()}"
    done = out / "built"
    if not done.is_file():
        for old in cache.glob("bundle-*"):  # ~900 MB each: only the newest is kept
            shutil.rmtree(old, ignore_errors=True)
        env = dict(os.environ, PYTHON=sys.executable)
        t0 = time.monotonic()
        proc = subprocess.run(
            [BASH, str(PACKAGING / "build.sh"), "--dist", str(out / "dist"), "--work", str(out / "work")],
            capture_output=True, text=True, env=env, timeout=1500,
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
        print(f"bundle built in {time.monotonic() - t0:.0f} s: {proc.stdout.strip().splitlines()[-1]}")
        shutil.rmtree(out / "work", ignore_errors=True)  # PyInstaller's scratch, no longer needed
        done.write_text(proc.stdout.strip().splitlines()[-1], encoding="utf-8")
    yield out / "dist" / "pe-explorer"


def _run_bundle(bundle: Path, *args: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PE_EXPLORER_HOME=str(home))
    return subprocess.run([str(bundle / "pe-explorer"), *args], capture_output=True, text=True, env=env,
                          timeout=300)


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_bundle_starts_and_draws_every_panel(bundle, tmp_path, _isolated_home):
    shot = tmp_path / "shot.png"
    proc = _run_bundle(bundle, "--screenshot", str(shot), home=_isolated_home)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    from PySide6.QtGui import QImage

    image = QImage(str(shot))
    assert not image.isNull() and image.width() >= 800 and image.height() >= 500
    rgba = _rgba(shot)
    assert rgba[..., :3].std() > 20, "the screenshot is blank"
    # Many distinct colours: the heatmap and its colour bar were drawn, not just empty widgets.
    assert len(np.unique(rgba[..., :3].reshape(-1, 3), axis=0)) > 200


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_bundle_knows_its_version_and_runs_torch(bundle, tmp_path, _isolated_home):
    proc = _run_bundle(bundle, "--version", home=_isolated_home)
    assert proc.returncode == 0 and proc.stdout.strip() == f"pe-explorer {__version__}", proc.stderr
    out = tmp_path / "learned.npy"
    proc = _run_bundle(bundle, "data", "learned", "--max-positions", "16", "--positions", "8",
                       "--d-model", "6", "--seed", "3", "--out", str(out), home=_isolated_home)
    assert proc.returncode == 0, proc.stderr[-3000:]
    from explorer.encodings.learned import learned_table

    np.testing.assert_array_equal(np.load(out), learned_table(16, 8, 6, 3))


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_bundle_carries_resources_and_its_menu_entry(bundle, tmp_path):
    icons = bundle / "_internal" / "explorer" / "resources" / "icons"
    assert (icons / "pe-explorer.svg").is_file()
    assert all((icons / f"pe-explorer-{s}.png").is_file() for s in SIZES)
    assert not (bundle / "_internal" / "torch" / "test").exists(), "torch's C++ test programs are dropped"
    # Only the app's runtime dependencies, though this environment also holds the test and packaging tools:
    tools = sorted(p.name for p in (bundle / "_internal").iterdir()
                   if p.name.split("-")[0].lower() in TEST_TOOLS)
    assert not tools, f"the bundle carries test tools: {tools}"
    data = tmp_path / "share"
    proc = subprocess.run([BASH, str(bundle / "install-desktop-entry.sh"), "--data-dir", str(data)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    entry = _desktop_entry(data / "applications" / "pe-explorer.desktop")
    assert entry["Exec"] == f'"{bundle.resolve() / "pe-explorer"}"'
    assert (data / "icons/hicolor/48x48/apps/pe-explorer.png").is_file()
