"""Schemes panel, views 4 and 5: ALiBi's slopes, biases and attention; the properties table."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QGuiApplication, QKeySequence, QPen, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGraphicsRectItem,
    QGridLayout,
    QTableWidget,
)

from ...jobs.schemes import PropertiesResponse
from ...schemes import alibi
from ...schemes.alibi import CLIP as ALIBI_CLIP
from ...schemes.alibi import WINDOW_SHARE, AlibiTab
from ...schemes.learned import model_tables_text
from ...snippets import NoSnippet
from ...snippets import schemes as snip
from ...widgets.image import ImageItem
from ...widgets.log_ticks import use_si_log_ticks
from ...widgets.plot_data import set_image
from ...widgets.plots import SEQUENTIAL
from ...widgets.styler import mapped_colour
from . import table
from .items import (
    FutureMask,
    label,
    make_plot,
    pen,
    scheme_colour,
    theme_info_label,
)
from .views import SchemesView, info_column

#: The scheme this view is about.
ALIBI = alibi.SCHEME.id

#: The attention heatmap's colour scale: log10 of the share of a query's attention, −4 … 0.
ATTENTION_LOG_FLOOR = -4.0
#: Weight profiles are drawn down to 10^this.
PROFILE_LOG_FLOOR = -8.0


def _slope_text(m: float) -> str:
    """1/2, 1/16 … for powers of two, else 2^−x."""
    e = -math.log2(m)
    if abs(e - round(e)) < 1e-9:
        return f"1/{2 ** round(e)}"
    return f"2^−{e:.3g}"


def mosaic(tiles: np.ndarray, gap: int = 0) -> tuple[np.ndarray, int, int]:
    """Lay H square tiles out in a near-square grid (NaN between them): (image, rows, cols)."""
    h, t, _ = tiles.shape
    cols = math.ceil(math.sqrt(h))
    rows = math.ceil(h / cols)
    gap = gap or max(1, t // 12)
    out = np.full((rows * (t + gap) - gap, cols * (t + gap) - gap), np.nan)
    for k in range(h):
        r, c = divmod(k, cols)
        out[r * (t + gap): r * (t + gap) + t, c * (t + gap): c * (t + gap) + t] = tiles[k]
    return out, rows, cols


class AlibiView(SchemesView):
    """Slopes for the chosen head count, every head's bias, and the attention of one head."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.response: AlibiTab | None = None
        outer = info_column(self, "alibiInfo")
        grid = QGridLayout()
        grid.setSpacing(4)
        outer.addLayout(grid, 1)

        self.slopes = make_plot("ALiBi slopes mₕ", x="head h", y="slope m (log scale)")
        spi = self.slopes.getPlotItem()
        spi.setLogMode(x=False, y=True)
        use_si_log_ticks(spi)
        self.slope_curve = pg.PlotDataItem(pen=pg.mkPen("#999", width=1.2), symbol="o", symbolSize=10,
                                           symbolBrush=scheme_colour(ALIBI), symbolPen=None)
        self.slope_pick = pg.PlotDataItem(pen=None, symbol="o", symbolSize=20, symbolBrush=None,
                                          symbolPen=pg.mkPen("#111", width=2.5))
        spi.addItem(self.slope_curve)
        spi.addItem(self.slope_pick)

        self.profiles = make_plot("Last query's attention against distance",
                                  x="1 + distance Δ (log scale)", y="weight (log scale)")
        ppi = self.profiles.getPlotItem()
        ppi.setLogMode(x=True, y=True)
        use_si_log_ticks(ppi)
        self.profile_items: list[pg.PlotDataItem] = []
        self.profile_pick = pg.PlotDataItem(pen=pen(ALIBI, 3.5))
        ppi.addItem(self.profile_pick)
        dash = pg.mkPen("#111", width=1.6, style=Qt.PenStyle.DashLine)
        self.window_line = pg.InfiniteLine(0, angle=90, pen=dash, label="",
                                           labelOpts={"position": 0.15, "color": (20, 20, 20)})
        ppi.addItem(self.window_line, ignoreBounds=True)

        self.attention = make_plot("Attention of head 0 (log₁₀ share per cell)", x="key position j",
                                   y="query position i")
        api = self.attention.getPlotItem()
        api.invertY(True)
        api.showGrid(x=False, y=False)
        self.att_img = ImageItem(axisOrder="row-major")
        api.addItem(self.att_img)
        self.att_bar = self.attention.add_colour_bar(self.att_img, (ATTENTION_LOG_FLOOR, 0.0), SEQUENTIAL,
                                                     width=14, label="log₁₀ share")
        self.att_mask = FutureMask()
        api.addItem(self.att_mask, ignoreBounds=True)

        self.tiles = make_plot("Bias −mₕ·(i − j) of every head (one scale)", x="", y="")
        tpi = self.tiles.getPlotItem()
        tpi.invertY(True)
        tpi.setAspectLocked(True)
        tpi.showGrid(x=False, y=False)
        for name in ("bottom", "left"):
            tpi.hideAxis(name)
        self.tile_img = ImageItem(axisOrder="row-major")
        self.tile_img.setZValue(5)
        tpi.addItem(self.tile_img)
        self.tile_bar = self.tiles.add_colour_bar(self.tile_img, (-ALIBI_CLIP, 0.0), SEQUENTIAL, width=14,
                                                  label=f"bias (clipped at −{ALIBI_CLIP:g})")
        self.tile_backs: list[QGraphicsRectItem] = []
        self.tile_labels: list[pg.TextItem] = []
        # A frame around the head shown in the other plots.
        self.tile_pick = QGraphicsRectItem()
        self.tile_pick.setPen(pg.mkPen(scheme_colour(ALIBI), width=3))
        self.tile_pick.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        self.tile_pick.setZValue(25)
        tpi.addItem(self.tile_pick, ignoreBounds=True)

        grid.addWidget(self.slopes, 0, 0)
        grid.addWidget(self.attention, 0, 1)
        grid.addWidget(self.profiles, 1, 0)
        grid.addWidget(self.tiles, 1, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)

    def label_tiles(self) -> None:
        """Each tile's label as long as its tile is wide on screen: "h0: 1/2", else "1/2", else only the head shown
        (at 1280 × 720 presenter "h0: 1/2" ran into "h1: 1/4" and read "h0: 1/2ı2: 1/8")."""
        shown = getattr(self, "_tiles_shown", None)
        if shown is None:
            return
        slopes, pick, cols, pitch = shown
        h = slopes.size
        vb = self.tiles.getPlotItem().getViewBox()
        span = vb.viewRange()[0][1] - vb.viewRange()[0][0]
        room = vb.width() * pitch / span if span > 0 else 0.0
        fm = QFontMetrics(self.tile_labels[0].textItem.font()) if self.tile_labels else None

        def fits(text: str) -> bool:
            return fm is not None and fm.horizontalAdvance(text) + 6 <= room

        full = [f"h{k}: {_slope_text(float(slopes[k]))}" for k in range(h)]
        brief = [_slope_text(float(slopes[k])) for k in range(h)]
        for k in range(h):
            # Up to 16 heads every tile says its slope (if it fits); beyond, each row's first head and the one shown.
            if h > 16 and k != pick:
                text = f"h{k}" if k % cols == 0 and fits(f"h{k}") else ""
            elif all(fits(x) for x in full):
                text = full[k]
            elif all(fits(x) for x in brief):
                text = brief[k]
            else:
                text = full[k] if k == pick else ""
            self.tile_labels[k].setText(text)
            self.tile_labels[k].setVisible(bool(text))

    def _ensure_tiles(self, h: int) -> None:
        tpi = self.tiles.getPlotItem()
        while len(self.tile_labels) < h:
            back = QGraphicsRectItem()
            # Behind each tile: grey shows through the NaN (masked) future cells; the gaps stay white.
            back.setBrush(QBrush(QColor(190, 190, 190)))
            back.setPen(QPen(Qt.PenStyle.NoPen))
            back.setZValue(1)
            tpi.addItem(back, ignoreBounds=True)
            text = label("", anchor=(0, 1), size=10, fill="#ffffffe0")
            tpi.addItem(text, ignoreBounds=True)
            self.tile_backs.append(back)
            self.tile_labels.append(text)
        for k, (b, t) in enumerate(zip(self.tile_backs, self.tile_labels, strict=True)):
            b.setVisible(k < h)
            t.setVisible(k < h)

    def show_response(self, r: AlibiTab) -> None:
        self.response = r  # what Save numbers and Copy as Python read
        q = r.query
        h = r.slopes.size
        heads = np.arange(h)
        self.slope_curve.setData(heads, r.slopes)
        self.slope_pick.setData([q.alibi_head], [r.slopes[q.alibi_head]])
        self.slopes.getPlotItem().setXRange(-0.6, h - 0.4, padding=0)
        self.slopes.getPlotItem().setTitle(f"ALiBi slopes mₕ ({h} heads)", size="13pt")

        # Profiles: every head thin and grey, the chosen one thick.
        ppi = self.profiles.getPlotItem()
        while len(self.profile_items) < h:
            item = pg.PlotDataItem(pen=pg.mkPen((150, 150, 150, 140), width=1.0))
            item.setDownsampling(auto=True, method="peak")
            ppi.addItem(item)
            self.profile_items.append(item)
        x = r.distance + 1.0
        floor = 10.0 ** PROFILE_LOG_FLOOR
        for k, item in enumerate(self.profile_items):
            if k < h:
                keep = r.profiles[k] >= floor
                item.setData(x[keep], r.profiles[k][keep])
            item.setVisible(k < h)
        keep = r.profiles[q.alibi_head] >= floor
        self.profile_pick.setData(x[keep], r.profiles[q.alibi_head][keep])
        self.profile_pick.setZValue(10)
        w = int(r.windows[q.alibi_head])
        self.window_line.setPos(math.log10(w + 1))
        self.window_line.label.setFormat(f"{int(WINDOW_SHARE * 100)}% within {w:,} keys")
        ppi.setYRange(PROFILE_LOG_FLOOR, 0.2, padding=0)
        ppi.setXRange(0, math.log10(q.l_eval + 1), padding=0.02)

        # Attention of the chosen head, log10 of the share of each query's weight in each key block.
        with np.errstate(divide="ignore"):
            logw = np.log10(r.attention)
        logw[np.isneginf(logw)] = ATTENTION_LOG_FLOOR - 1.0
        n = r.attention.shape[0]
        set_image(self.att_img, logw, autoLevels=False)
        self.att_img.setRect(0, 0, n * r.attention_block, n * r.attention_block)
        self.att_mask.set_size(q.l_eval)
        self.att_mask.setVisible(q.causal)
        api = self.attention.getPlotItem()
        api.setRange(xRange=(0, q.l_eval), yRange=(0, q.l_eval), padding=0)
        api.setTitle(f"Attention of head {q.alibi_head}, m = {_slope_text(float(r.slopes[q.alibi_head]))} "
                     f"(log₁₀ share per cell)", size="13pt")

        # Mosaic of every head's bias.
        img, rows, cols = mosaic(r.tiles)
        t = r.tiles.shape[1]
        gap = max(1, t // 12)
        set_image(self.tile_img, img, autoLevels=False)
        self.tile_img.setRect(0, 0, img.shape[1], img.shape[0])
        self._ensure_tiles(h)
        for k in range(h):
            rr, cc = divmod(k, cols)
            x0, y0 = cc * (t + gap), rr * (t + gap)
            self.tile_backs[k].setRect(x0, y0, t, t)
            self.tile_labels[k].setPos(x0, y0 + t)
            if k == q.alibi_head:
                self.tile_pick.setRect(x0, y0, t, t)
                self.tile_labels[k].setZValue(31)
        self.tiles.getPlotItem().setRange(xRange=(0, img.shape[1]), yRange=(0, img.shape[0]), padding=0.01)
        self._tiles_shown = (r.slopes, q.alibi_head, cols, t + gap)
        self.label_tiles()

        lower = 2 ** math.floor(math.log2(h))
        rule = (f"{h} heads is a power of two: mₕ = 2^(−8(h+1)/{h})" if lower == h else
                f"{h} heads is not a power of two: the {lower} slopes of {lower} heads, then every other "
                f"slope of {2 * lower} heads (Press et al. 2022)")
        mode = ("causal: keys after the query are masked (grey), not biased" if q.causal else
                "symmetric: −m·|i − j| on both sides (encoder-style use)")
        blk = "" if r.attention_block == 1 else (
            f"; heatmap rows: the query at the end of each {r.attention_block}-position block, cells: the "
            f"exact share of its attention in each {r.attention_block}-key block")
        self.info.setText(
            f"<b>ALiBi</b>: {rule}; {mode}. Content removed (every q·k equal), so head {q.alibi_head}'s "
            f"attention is softmax(−m·(i − j)): the last query puts {int(WINDOW_SHARE * 100)}% of its "
            f"weight on its nearest {w:,} keys{blk}."
        )

    def plot_widgets(self) -> list:
        return [self.slopes, self.attention, self.profiles, self.tiles]

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        QTimer.singleShot(0, self.label_tiles)  # once the plots have their new size

    def apply_theme(self, theme) -> None:
        theme_info_label(self.info, theme)
        QTimer.singleShot(0, self.label_tiles)  # presenter mode's larger labels

    # -- Save numbers and Copy as Python ------------------------------------------------------------------
    def _which(self, plot) -> str:
        """"slopes", "profiles", "attention" or "tiles" for this view's plots ("" for another)."""
        return {id(self.slopes): "slopes", id(self.profiles): "profiles", id(self.attention): "attention",
                id(self.tiles): "tiles"}.get(id(plot), "")

    def export_data(self, plot) -> dict | None:
        """The slopes, profiles, attention shares and bias tiles, exact (the plots show the log10 of some)."""
        r, which = self.response, self._which(plot)
        if r is None or not which:
            return None
        if which == "slopes":
            return {"x": np.arange(r.slopes.size, dtype=np.float64), "slope": r.slopes}
        if which == "profiles":
            return {"distance Δ": r.distance * 1.0, **{f"head {k} weight": p for k, p in enumerate(r.profiles)}}
        if which == "attention":
            return {"query position": r.attention_queries * 1.0,
                    "share of the query's weight per key block [query, key block]": r.attention}
        return {"bias block means [head, query block, key block]": r.tiles}

    def export_snippet(self, plot, title: str):
        which = self._which(plot)
        if not which:
            return None
        if self.response is None:
            return NoSnippet("the plot has not drawn yet")
        if which == "slopes":
            return snip.alibi_slopes(self.response.query, title)
        return snip.alibi_plot(self.response, which, title)


class PropertiesView(SchemesView):
    """Per shown scheme: where position enters, parameters, relativity, past L_train, models.  A table with a row
    per scheme where its columns fit at a readable width, else a card per scheme (see
    :mod:`explorer.panels.schemes.table`): never a sideways scroll bar, never a cut cell."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        outer = info_column(self)
        self.table = QTableWidget(0, 6)
        self.table.setObjectName("propertiesTable")
        self.table.setWordWrap(True)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
        self.table.verticalHeader().setVisible(False)
        # Columns fitted to the width (scrolling sideways where readable widths do not fit), rows capped.
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        copy = QShortcut(QKeySequence.StandardKey.Copy, self.table)
        copy.setContext(Qt.ShortcutContext.WidgetShortcut)
        copy.activated.connect(self.copy_selection)
        font = QFont()
        font.setPointSize(11)
        self.table.setFont(font)
        outer.addWidget(self.table, 1)
        self._theme = None
        self._shown: tuple = ((), (), ())  # columns, rows, scheme ids
        self.cards = False

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        # Wrapped rows need their height again once the columns have their final widths.
        QTimer.singleShot(0, self.fit)

    def fit(self) -> None:
        """A table where its columns fit the width at a readable size, else cards; then widths and row heights."""
        columns, rows, schemes = self._shown
        if not columns:
            return
        widths = table.table_widths(self.table, columns, rows)
        cards = sum(widths) > table.room(self.table)
        if cards != self.cards or self.table.rowCount() == 0:
            self.cards = cards
            table.fill(self.table, columns, rows, schemes, cards=cards)
            self._colour_names()
        if cards:
            table.fit_cards(self.table, columns)
        else:
            table.fit_table(self.table, widths)

    def schemes(self) -> list[str]:
        """The scheme ids shown, in order (a row or a card each)."""
        return list(self._shown[2])

    def show_properties(self, r: PropertiesResponse) -> None:
        q = r.request
        self._shown = (tuple(r.columns), tuple(r.rows), tuple(q.schemes))
        table.fill(self.table, *self._shown, cards=self.cards)
        self._colour_names()
        self.fit()
        self.info.setText(
            f"Parameters for the head dim d = {q.head_dim} and L_train = {q.l_train:,} set on the left. "
            f"A real model's learned table is L_train × d_model: {model_tables_text()} numbers. "
            "Select cells and press Ctrl+C to copy them."
        )

    def selection_text(self) -> str:
        """The selected cells as tab-separated rows (what Ctrl+C puts on the clipboard)."""
        cells = sorted((i.row(), i.column()) for i in self.table.selectedIndexes())
        if not cells:
            return ""
        rows = sorted({r for r, _ in cells})
        cols = sorted({c for _, c in cells})
        chosen = set(cells)

        def text(r: int, c: int) -> str:
            item = self.table.item(r, c)
            return item.text() if (r, c) in chosen and item is not None else ""

        return "\n".join("\t".join(text(r, c) for c in cols) for r in rows)

    def copy_selection(self) -> None:
        QGuiApplication.clipboard().setText(self.selection_text())

    def plot_widgets(self) -> list:
        return []

    def _colour_names(self) -> None:
        """Each scheme's name in its colour as the theme draws its curves (a dark green stays readable on a
        dark background)."""
        theme = self._theme
        for i in range(self.table.rowCount()):
            item = self.table.item(i, 0)
            if item is None or item.data(Qt.ItemDataRole.UserRole) is None:  # a card's property name
                continue
            c = mapped_colour(scheme_colour(item.data(Qt.ItemDataRole.UserRole)), theme)
            item.setForeground(QBrush(c))

    def apply_theme(self, theme) -> None:
        self._theme = theme
        self._colour_names()
        theme_info_label(self.info, theme)
        f = self.table.font()
        f.setPointSizeF(11 * theme.font_scale)
        self.table.setFont(f)
        self.fit()
