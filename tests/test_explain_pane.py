""""What am I looking at?" follows the view on screen, however its tab was chosen."""

from __future__ import annotations


def test_a_tab_chosen_by_a_state_shows_its_explanation(qtbot, service):
    """Undo, a preset or a session shows a state whose view is another tab, with the tab widget's signals
    blocked: the pane must still show that view's explanation (it showed only its heading)."""
    from explorer.panels.schemes.panel import SchemesPanel

    p = SchemesPanel(service)
    qtbot.addWidget(p)
    p.resize(1700, 900)
    p.show()
    p.set_explain_visible(True)
    qtbot.waitUntil(lambda: p.explain.isVisible() and p.matrix_view.info.isVisibleTo(p.explain))
    try:
        for view in ("distance", "matrices", "distance"):  # a view built by the state, then ones built before
            p.set_state(p.state.clamped(view=view), request=False)
            shown, hidden = ((p.distance_view, p.matrix_view) if view == "distance" else
                             (p.matrix_view, p.distance_view))

            def explained(s=shown, h=hidden) -> bool:
                return s.info.isVisibleTo(p.explain) and not h.info.isVisibleTo(p.explain)

            qtbot.waitUntil(explained, timeout=3000)
    finally:
        p.shutdown()
