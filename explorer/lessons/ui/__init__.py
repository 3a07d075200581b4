"""The Lesson dock and pane: the one part of :mod:`explorer.lessons` that uses Qt.

:mod:`.dock` is the window's Lesson dock (it builds the pane when first on screen, opens lesson files, keeps
the reader's place and sets each step's scene); :mod:`.pane` shows one lesson step by step, asks for each
prediction and runs the step's live check; :mod:`.parts` holds the pane's pieces (boxes, number fields, the
summary page).  Nothing else in :mod:`explorer.lessons` imports this package (pyproject.toml's contracts).
"""
