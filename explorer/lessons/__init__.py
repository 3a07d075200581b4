"""Lessons: guided steps whose every claim is checked live by a computation (no Qt).

:mod:`.checks` holds the named checks (the vocabulary a lesson file may use); :mod:`.format` reads
and validates lesson files; :mod:`.report` runs every step's check headless (``pe-explorer lesson --check``).
"""
