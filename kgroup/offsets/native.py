"""The optional compiled fast path of the codec: `_speedups`, built from `_speedups.c`.

Source of truth: the pure-Python codec (`layouts.py`, `records.py`); the extension follows it and
gives up (returns to the Python code) on anything it does not handle, so results and error
messages are always the interpreter's. `setup.py` builds it when a C compiler is available
(`pip install -e .`); without it everything runs in pure Python.
"""

from __future__ import annotations

from types import ModuleType

try:
    from kgroup.offsets import _speedups as _module
except ImportError:  # not built (no compiler, or a source checkout without build_ext)
    _module = None

_enabled = _module is not None


def get() -> ModuleType | None:
    """The extension module, or None when it is not built or switched off."""
    return _module if _enabled else None


def available() -> bool:
    """True when the extension is built (whether or not it is switched on)."""
    return _module is not None


def set_enabled(flag: bool) -> None:
    """Switch the compiled path on or off (benchmarks, parity tests).

    Readers already compiled keep their path: call this before decoding anything.
    """
    global _enabled
    _enabled = flag and _module is not None
