"""Token chips: a sentence as a row of word chips that wraps, with drag-and-drop swapping.

Drag one chip onto another to ask for the two to be swapped (:attr:`TokenChips.swapRequested`);
click chips (or focus one and press Space) to select up to two, for a Swap button.  The widget
only shows tokens and reports gestures: what a swap *means* is the panel's business.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QMimeData, QPoint, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QDrag, QFont, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QFrame, QScrollArea, QSizePolicy, QWidget

from .flow_layout import FlowLayout
from .plain import plain_tip

#: MIME type of a dragged chip: "<container id>:<token index>".
MIME_TYPE = "application/x-pe-explorer-token"

#: Above this many tokens the chips use a smaller font so a long sentence stays compact.
COMPACT_ABOVE = 16

#: Colours of the chip roles (colour-blind-safe blue/orange, as on the plots).
SWAP_COLOUR = QColor("#d95f02")
SELECT_COLOUR = QColor("#1f6fd1")
DROP_COLOUR = QColor("#2e7d32")

#: A word longer than this is shown shortened (head…tail; the whole word in the tooltip), so one
#: 500-letter "word" neither makes a chip wider than the panel nor forces the window past the screen.
LONG_WORD = 24


def short_word(word: str, limit: int = LONG_WORD) -> str:
    """``word`` itself, or its first and last letters around an ellipsis when it is longer than ``limit``."""
    if len(word) <= limit:
        return word
    head = (limit - 1) * 2 // 3
    return word[:head] + "…" + word[-(limit - 1 - head):]


class TokenChip(QWidget):
    """One token: its place (small) and the word (large) in a rounded box.

    Roles, drawn so they can be told apart without colour too: ``swap`` (thick orange border and a
    ⇄ mark: one of the two tokens being swapped), ``selected`` (blue fill), and a dashed green
    outline while a chip is dragged over it.
    """

    clicked = Signal(int)
    dropped = Signal(int, int)  # (dragged chip's index, this chip's index)

    def __init__(self, index: int, word: str, owner_id: int, parent: QWidget | None = None, *,
                 compact: bool = False) -> None:
        super().__init__(parent)
        self.index = index
        self.word = word
        self.shown = short_word(word)
        self._owner_id = owner_id
        self.swap_role = False
        self.selected = False
        self.drop_hover = False
        self._press: QPoint | None = None
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setToolTip(plain_tip(f"Token {index}: “{word}”. Drag onto another token to swap them; click to select."))
        self.setAccessibleName(f"token {index}: {word}")
        self._scale = 1.15 if compact else 1.45

    # Fonts follow the widget's font, so zoom and presenter mode resize the chips too.
    @property
    def _word_font(self) -> QFont:
        f = QFont(self.font())
        f.setPointSizeF(max(f.pointSizeF(), 9.0) * self._scale)
        return f

    @property
    def _index_font(self) -> QFont:
        f = QFont(self.font())
        f.setPointSizeF(max(f.pointSizeF(), 9.0) * 0.9)
        return f

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            self.updateGeometry()

    # -- geometry and painting ---------------------------------------------------------------------
    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        wm, im = QFontMetrics(self._word_font), QFontMetrics(self._index_font)
        w = im.horizontalAdvance(f"{self.index} ⇄") + wm.horizontalAdvance(self.shown) + 26
        return QSize(max(w, 40), wm.height() + 12)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.sizeHint()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        r = QRectF(self.rect()).adjusted(1.5, 1.5, -1.5, -1.5)
        fill = QColor(SELECT_COLOUR) if self.selected else pal.color(QPalette.ColorRole.Base)
        if self.selected:
            fill.setAlpha(60)
        border = SWAP_COLOUR if self.swap_role else pal.color(QPalette.ColorRole.Mid)
        pen = QPen(border, 3.0 if self.swap_role else 1.2)
        if self.drop_hover:
            pen = QPen(DROP_COLOUR, 3.0, Qt.PenStyle.DashLine)
        elif self.hasFocus():
            pen = QPen(SELECT_COLOUR, 2.0)
        p.setPen(pen)
        p.setBrush(fill)
        p.drawRoundedRect(r, 9, 9)
        text = pal.color(QPalette.ColorRole.Text)
        p.setFont(self._index_font)
        p.setPen(SWAP_COLOUR if self.swap_role else pal.color(QPalette.ColorRole.PlaceholderText))
        tag = f"{self.index} ⇄" if self.swap_role else str(self.index)
        im = QFontMetrics(self._index_font)
        p.drawText(QRectF(r.left() + 9, r.top(), im.horizontalAdvance(tag) + 2, r.height()),
                   int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), tag)
        p.setFont(self._word_font)
        p.setPen(text)
        left = r.left() + 9 + im.horizontalAdvance(tag) + 6
        p.drawText(QRectF(left, r.top(), r.right() - left - 6, r.height()),
                   int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), self.shown)
        p.end()

    def set_roles(self, *, swap: bool, selected: bool) -> None:
        if (swap, selected) != (self.swap_role, self.selected):
            self.swap_role, self.selected = swap, selected
            self.update()

    # -- mouse and keyboard --------------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self._press is None or not event.buttons() & Qt.MouseButton.LeftButton:
            return
        if (event.position().toPoint() - self._press).manhattanLength() < QApplication.startDragDistance():
            return
        self._press = None
        drag = QDrag(self)
        drag.setMimeData(self.mime_data())
        drag.setPixmap(self.grab())
        drag.setHotSpot(event.position().toPoint())
        self.setCursor(Qt.CursorShape.ClosedHandCursor)
        drag.exec(Qt.DropAction.MoveAction)
        self.setCursor(Qt.CursorShape.OpenHandCursor)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self._press is not None and event.button() == Qt.MouseButton.LeftButton:
            self._press = None
            self.clicked.emit(self.index)
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.key() in (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.clicked.emit(self.index)
            return
        super().keyPressEvent(event)

    # -- drag and drop ------------------------------------------------------------------------------
    def mime_data(self) -> QMimeData:
        """What a drag of this chip carries: the owning chip row and the token's place."""
        mime = QMimeData()
        mime.setData(MIME_TYPE, QByteArray(f"{self._owner_id}:{self.index}".encode()))
        mime.setText(self.word)
        return mime

    def _source_index(self, mime: QMimeData) -> int | None:
        # Only chips of the same row may be dropped here, and never a chip onto itself.
        if not mime.hasFormat(MIME_TYPE):
            return None
        try:
            owner, index = bytes(mime.data(MIME_TYPE).data()).decode().split(":")
            src = int(index)
        except ValueError:
            return None
        if int(owner) != self._owner_id or src == self.index:
            return None
        return src

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self._source_index(event.mimeData()) is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.drop_hover = True
        self.update()

    def dragMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self._source_index(event.mimeData()) is None:
            event.ignore()
        else:
            event.acceptProposedAction()

    def dragLeaveEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.drop_hover = False
        self.update()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.drop_hover = False
        self.update()
        src = self._source_index(event.mimeData())
        if src is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.dropped.emit(src, self.index)


class TokenChips(QWidget):
    """A sentence as chips that wrap to the width; drag one onto another, or select two.

    Signals
    -------
    swapRequested(int, int)
        A chip was dropped on another: (dragged, target) token places.
    selectionChanged(object)
        The selected places, a tuple of at most two, in the order they were clicked.
    """

    swapRequested = Signal(int, int)
    selectionChanged = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Left to right, wrapping when the width runs out (Qt's flow-layout example).
        self._layout = FlowLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setHorizontalSpacing(6)
        self._layout.setVerticalSpacing(6)
        self._chips: list[TokenChip] = []
        self._tokens: list[str] = []
        self._swap: tuple[int, ...] = ()
        self._selected: list[int] = []
        sp = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        sp.setHeightForWidth(True)
        self.setSizePolicy(sp)

    # -- content -------------------------------------------------------------------------------------
    def set_tokens(self, tokens: list[str], swap: tuple[int, int] | None = None) -> None:
        """Show ``tokens``; mark the pair ``swap``.  The selection survives only if the words did."""
        tokens = list(tokens)
        if tokens != self._tokens:
            for chip in self._chips:
                self._layout.removeWidget(chip)
                chip.hide()
                chip.deleteLater()  # later: the panel may still hold it in a signal-blocking list
            self._chips = []
            compact = len(tokens) > COMPACT_ABOVE
            for i, word in enumerate(tokens):
                chip = TokenChip(i, word, id(self), self, compact=compact)
                chip.clicked.connect(self._on_chip_clicked)
                chip.dropped.connect(self.swapRequested)
                self._layout.addWidget(chip)
                chip.show()
                self._chips.append(chip)
            self._tokens = tokens
            if self._selected:
                self._selected = []
                self.selectionChanged.emit(())
            self.updateGeometry()
        self._swap = tuple(swap) if swap is not None and len(tokens) > 1 else ()
        self._refresh_roles()

    def tokens(self) -> list[str]:
        return list(self._tokens)

    def chip(self, index: int) -> TokenChip:
        return self._chips[index]

    def chips(self) -> list[TokenChip]:
        return list(self._chips)

    # -- selection -----------------------------------------------------------------------------------
    def selected(self) -> tuple[int, ...]:
        return tuple(self._selected)

    def clear_selection(self) -> None:
        if self._selected:
            self._selected = []
            self._refresh_roles()
            self.selectionChanged.emit(())

    def _on_chip_clicked(self, index: int) -> None:
        # Click toggles; a third selection pushes out the oldest, so two are always at hand.
        if index in self._selected:
            self._selected.remove(index)
        else:
            self._selected.append(index)
            self._selected = self._selected[-2:]
        self._refresh_roles()
        self.selectionChanged.emit(tuple(self._selected))

    def _refresh_roles(self) -> None:
        for chip in self._chips:
            chip.set_roles(swap=chip.index in self._swap, selected=chip.index in self._selected)

    # -- size ----------------------------------------------------------------------------------------
    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        return self._layout.heightForWidth(width)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        w = max(self.width(), 400)
        return QSize(w, max(self._layout.heightForWidth(w), 30))


class TokenChipsArea(QScrollArea):
    """:class:`TokenChips` in a scroll area that grows to fit the chips up to ``max_rows`` rows, then scrolls.

    A 64-word sentence would otherwise push the plots off a projector screen.
    """

    def __init__(self, parent: QWidget | None = None, max_rows: int = 2) -> None:
        super().__init__(parent)
        self.chips = TokenChips(self)
        self.max_rows = max_rows
        self.setWidget(self.chips)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        # Let the panel's background show through (setWidget turned the fill on), in every theme.
        self.chips.setAutoFillBackground(False)
        self.viewport().setAutoFillBackground(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.chips.installEventFilter(self)

    def _row_height(self) -> int:
        chips = self.chips.chips()
        return chips[0].sizeHint().height() if chips else 30

    def _wanted_height(self) -> int:
        width = max(self.viewport().width(), 100)
        full = self.chips.heightForWidth(width - self.verticalScrollBar().sizeHint().width())
        cap = self.max_rows * self._row_height() + (self.max_rows - 1) * 6
        return max(min(full, cap), self._row_height()) + 2 * self.frameWidth()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(super().sizeHint().width(), self._wanted_height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(100, self._wanted_height())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        h = self._wanted_height()
        if h != self.height():
            self.setFixedHeight(h)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        # New chips change the height we want.
        if obj is self.chips and event.type() == event.Type.LayoutRequest:
            self.setFixedHeight(self._wanted_height())
        return super().eventFilter(obj, event)
