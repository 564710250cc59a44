"""The stderr notes channel, for the render and CLI layers; it lives in `kgroup.core.notes`."""

from __future__ import annotations

from kgroup.core.notes import note

__all__ = ["note"]
