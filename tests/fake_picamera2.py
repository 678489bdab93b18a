"""Shared pieces of the stand-in picamera2 modules the camera and calibration tests use."""

import sys
import types


class ArrayRequest:
    """picamera2's CompletedRequest for a stand-in camera: both streams of one capture
    come from the camera's own ``capture_array``."""

    def __init__(self, camera):
        self.camera = camera

    def make_array(self, stream):
        return self.camera.capture_array(stream)

    def get_metadata(self):
        return {}

    def release(self):
        pass


def install(monkeypatch, name: str, camera_class) -> types.ModuleType:
    """Make ``import name`` give a module whose ``Picamera2`` is ``camera_class`` (its
    ``instances`` list emptied), for the length of one test."""
    module = types.ModuleType(name)
    module.Picamera2 = camera_class
    monkeypatch.setitem(sys.modules, name, module)
    camera_class.instances.clear()
    return module
