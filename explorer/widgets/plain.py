"""Text from outside the app, shown as the characters it holds — never read as HTML.

Qt reads a string as rich text wherever it may: a ``QLabel`` left on ``AutoText``, every tooltip, a
``QMessageBox``, and every pyqtgraph title, axis label and legend name (``LabelItem``, ``AxisItem`` and
``LegendItem`` always set HTML).  Rich text loads resources: ``<img src="/dev/zero">`` in a tensor name
made Qt read the "image" until the process died, ``<img src="a FIFO">`` blocked the UI thread, and a
session that held one stopped every start.  So text that came from a file, a config, a checkpoint, a
preset, a session, a lesson or the user's typing meets rich text only through this module:

- :func:`esc` escapes it (and shortens it) for a string of rich text the app builds around it;
- :func:`plain_tip` makes a tooltip that shows it as it is;
- :func:`plain_label` makes a label that never reads its text as HTML;
- :func:`warn` and :func:`ask` show it in a message box as plain text.

Every string is shortened to :data:`MAX_SHOWN` characters on the way (a 100 kB name in a label or a
tooltip is no use to anyone, and laying it out is slow).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

#: The most characters of one untrusted string shown anywhere (the rest is cut, "…").
MAX_SHOWN = 2000


def shorten(text: object, limit: int = MAX_SHOWN) -> str:
    """``text`` as a string of at most ``limit`` characters (cut with "…")."""
    s = str(text)
    return s if len(s) <= limit else s[: max(0, limit - 1)] + "…"


def esc(text: object, limit: int = MAX_SHOWN) -> str:
    """``text`` shortened and escaped, to stand in rich text as the characters it holds."""
    return html.escape(shorten(text, limit))


def plain_tip(text: object, limit: int = MAX_SHOWN) -> str:
    """A tooltip that shows ``text`` as it is ("" for none).

    Qt takes a tooltip for HTML whenever its first line looks like it, and shows an escaped one
    ("&amp;lt;") literally when it does not; so the text is escaped and marked as rich text, its line
    breaks and spaces kept."""
    s = shorten(text, limit)
    if not s:
        return ""
    return "<p style='white-space:pre-wrap'>" + html.escape(s).replace("\n", "<br>") + "</p>"


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A label that shows its text as it is, whatever it holds."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(shorten(text))
    return label


def message_box(parent: QWidget | None, icon: QMessageBox.Icon, title: str, text: str,
                buttons=QMessageBox.StandardButton.Ok,
                default=QMessageBox.StandardButton.NoButton) -> QMessageBox:
    """A message box whose text is plain text (shortened), not HTML."""
    box = QMessageBox(icon, shorten(title, 200), "", buttons, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(shorten(text))
    if default != QMessageBox.StandardButton.NoButton:
        box.setDefaultButton(default)
    return box


def warn(parent: QWidget | None, title: str, text: str) -> None:
    """``QMessageBox.warning`` with the text shown as it is."""
    message_box(parent, QMessageBox.Icon.Warning, title, text).exec()


def ask(parent: QWidget | None, title: str, text: str, buttons, default) -> QMessageBox.StandardButton:
    """``QMessageBox.question`` with the text shown as it is; the button pressed."""
    return QMessageBox.StandardButton(message_box(parent, QMessageBox.Icon.Question, title, text, buttons,
                                                  default).exec())
