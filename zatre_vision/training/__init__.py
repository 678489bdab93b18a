"""Training of the pip classifier (needs the optional ``train`` extra: torch, onnx)."""
