"""The user guide inside the app: the Markdown pages of ``docs/``, offline, in a browser of their own.

``docs/index.md`` is the entry; relative links between pages (``panels/waves.md``, ``../cli.md#data``)
open in the same window, with Back/Forward; links to the web open in the system browser.  Where the
guide lives follows the resources rule (:mod:`explorer.paths`): inside the package in a wheel or a
bundle (``explorer/docs``), beside it in a checkout (``<repo>/docs``).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QTextDocument
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QPushButton, QTextBrowser, QVBoxLayout

from ..paths import PACKAGE_DIR

#: Shown when no guide is installed (a broken install, or a checkout without docs/).
MISSING = (
    "# The user guide is not here\n\n"
    "PE Explorer looks for its guide in `{where}` and found no `index.md` there.\n\n"
    "In a checkout the guide is the `docs/` folder beside `explorer/`; an installed wheel carries it as "
    "`explorer/docs`.  Reinstalling the app brings it back; the guide is also in the project's "
    "repository under `docs/`."
)


def docs_candidates(package_dir: Path = PACKAGE_DIR) -> list[Path]:
    """Where ``docs/`` may be, in the order tried: packaged (wheel, bundle), then the checkout."""
    return [package_dir / "docs", package_dir.parent / "docs"]


def docs_dir(package_dir: Path = PACKAGE_DIR) -> Path:
    """The folder holding ``index.md`` (the packaged location if neither has one)."""
    candidates = docs_candidates(package_dir)
    for candidate in candidates:
        if (candidate / "index.md").is_file():
            return candidate
    return candidates[0]


class GuideBrowser(QTextBrowser):
    """A QTextBrowser that renders ``.md`` pages as Markdown (Qt's own CommonMark/GFM reader)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setOpenLinks(True)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._on_anchor_clicked)

    def loadResource(self, kind: int, url: QUrl | str):  # noqa: N802 - Qt override
        url = QUrl(url) if isinstance(url, str) else url
        if kind == QTextDocument.ResourceType.MarkdownResource.value or url.path().endswith(".md"):
            path = Path(url.toLocalFile())
            if path.is_file():
                return path.read_text(encoding="utf-8")
        return super().loadResource(kind, url)

    def _on_anchor_clicked(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)
            # Stay on the page that was shown (QTextBrowser would try to load the URL itself).
            self.setSource(self.historyUrl(0))


class GuideDialog(QDialog):
    """The guide: a browser over ``docs/`` with Back, Forward, Home and Close."""

    def __init__(self, folder: Path, page: str = "index.md", parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("PE Explorer — user guide")
        self.folder = Path(folder)
        self.browser = GuideBrowser(self)
        self.browser.setObjectName("guideBrowser")
        self.browser.setSearchPaths([str(self.folder)])
        lay = QVBoxLayout(self)
        nav = QHBoxLayout()
        for text, slot, name in (
            ("◀ Back", self.browser.backward, "guideBack"),
            ("Forward ▶", self.browser.forward, "guideForward"),
            ("Contents", self.home, "guideHome"),
        ):
            button = QPushButton(text, self)
            button.setObjectName(name)
            button.clicked.connect(slot)
            nav.addWidget(button)
        nav.addStretch(1)
        lay.addLayout(nav)
        lay.addWidget(self.browser, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.resize(900, 760)
        self.open_page(page)

    @property
    def available(self) -> bool:
        return (self.folder / "index.md").is_file()

    def home(self) -> None:
        self.open_page("index.md")

    def open_page(self, page: str) -> None:
        """Show ``page`` (relative to the guide folder), or say clearly that the guide is missing."""
        path = self.folder / page
        if not path.is_file():
            self.browser.setMarkdown(MISSING.format(where=self.folder))
            return
        self.browser.setSource(QUrl.fromLocalFile(str(path)), QTextDocument.ResourceType.MarkdownResource)
