"""Frame sources behind one interface: Pi camera, OpenCV devices/streams/files, image
folders (the replay format) and the synthetic demo."""

from .base import CameraStatus, Frame, FrameSource, SourceError, make_lores

__all__ = ["CameraStatus", "Frame", "FrameSource", "SourceError", "make_lores"]
