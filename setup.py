"""Build the optional C fast path of the codec; metadata lives in pyproject.toml.

`optional=True`: without a C compiler or Python headers the build goes on without the
extension and kgroup runs its pure-Python codec (kgroup/offsets/native.py).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "kgroup.offsets._speedups",
            ["kgroup/offsets/_speedups.c"],
            optional=True,
        )
    ]
)
