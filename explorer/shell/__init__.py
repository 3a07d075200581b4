"""The shell: the plain parts the main window is made of.

The parts the window composes: :mod:`.look` (theme, presenter mode, colour maps, text zoom), :mod:`.session`
(presets, lecture scenes, the last session), :mod:`.help`, :mod:`.welcome` (first start and tour),
:mod:`.lazy_docks` (a dock per panel, each panel built when first shown) and :mod:`.dialogs`; below them what
they are built from: :mod:`.stage` (what is on screen), :mod:`.focus`, :mod:`.chrome`, and the action records
with the menus made from them (:mod:`.actions`, :mod:`.menus`).  Each part takes what it needs in its
constructor; the window (:mod:`explorer.main_window`) lays out docks and composes the parts.
"""
