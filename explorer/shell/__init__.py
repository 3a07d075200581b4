"""The shell: the main window and the plain parts it is made of (the stage, actions, look, session, help).

Each part takes what it needs in its constructor; the window lays out docks and composes the parts.
"""
