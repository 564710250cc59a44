"""Build the optional C fast paths (codec, Arrow rows); metadata lives in pyproject.toml.

`optional=True`: without a C compiler or Python headers the build goes on without the
extensions and kgroup runs its pure-Python code (kgroup/offsets/native.py, kgroup/scan/rows.py).
"""

from setuptools import Extension, setup

# the headers both extensions include: a change to one rebuilds both
HEADERS = [
    "kgroup/offsets/ext_types.h",
    "kgroup/offsets/json_text.h",
    "kgroup/offsets/opcodes.h",
    "kgroup/offsets/record_slots.h",
]

setup(
    ext_modules=[
        Extension(
            "kgroup.offsets._speedups",
            ["kgroup/offsets/_speedups.c"],
            depends=HEADERS,
            optional=True,
        ),
        Extension(
            "kgroup.scan._arrow_rows",
            ["kgroup/scan/_arrow_rows.c"],
            depends=HEADERS,
            optional=True,
        ),
    ]
)
