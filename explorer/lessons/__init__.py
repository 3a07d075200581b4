"""Lessons: guided steps whose every claim is checked live by a computation.

:mod:`.checks` holds the named checks (the vocabulary a lesson file may use); :mod:`.format` reads
and validates lesson files; :mod:`.report` runs every step's check headless (``pe-explorer lesson --check``).
All of these are Qt-free; :mod:`.ui`, the Lesson dock and pane, is the one Qt part, and nothing Qt-free
imports it.
"""
