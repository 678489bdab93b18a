"""Synthetic board photos and recorded games with ground truth (``zatre synth``).

Everything is drawn procedurally; no photo or scan is read at run time.
"""
