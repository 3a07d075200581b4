"""Shared Qt pieces: plot set-up, heatmap with colour bar, error banner."""
