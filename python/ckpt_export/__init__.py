"""ckpt_export: export PyTorch training steps as ckpt graph format v1 JSON.

``export(model, example_inputs, path)`` captures the joint forward+backward
aten graph (see :mod:`ckpt_export.capture`), lowers it to ckpt ops (see
:mod:`ckpt_export.export` for the mapping and the opaque-op FLOP table) and
writes the JSON described in docs/graph-format.md.
"""

from .export import ExportError, ExportResult, export, lower  # noqa: F401
from .capture import capture  # noqa: F401

__all__ = ["export", "lower", "capture", "ExportResult", "ExportError"]
