"""The app's own test tooling, run against the real window: the seeded GUI monkey and the soak.

Not used by the app itself; ``tests/`` and developers run them (``python -m explorer.qa.monkey``,
``python -m explorer.qa.soak``).  They live in the package so that a replay needs nothing but an installed app.
"""
