"""Live tracking: stillness gate, per-cell votes, turn detection and commits."""
