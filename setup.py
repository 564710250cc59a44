"""Build the optional C fast paths (codec, Arrow rows); metadata lives in pyproject.toml.

`optional=True`: without a C compiler or Python headers the build goes on without the
extensions and kgroup runs its pure-Python code (kgroup/offsets/native.py, kgroup/scan/rows.py).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "kgroup.offsets._speedups",
            ["kgroup/offsets/_speedups.c"],
            depends=["kgroup/offsets/json_text.h", "kgroup/offsets/record_slots.h"],
            optional=True,
        ),
        Extension(
            "kgroup.scan._arrow_rows",
            ["kgroup/scan/_arrow_rows.c"],
            depends=["kgroup/offsets/json_text.h", "kgroup/offsets/record_slots.h"],
            optional=True,
        ),
    ]
)
