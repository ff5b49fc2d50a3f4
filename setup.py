"""Builds the one compiled extension, ai/_search.pyx (the mirrors and the search)."""

import sys
from pathlib import Path

from setuptools import Extension, setup

extensions = []
if Path("ai/_search.pyx").exists():
    try:
        from Cython.Build import cythonize
    except ImportError:  # pragma: no cover - build requirement missing
        sys.exit("cardtable: building ai/_search.pyx needs Cython (pip install cython)")
    extensions = cythonize(
        [Extension("ai._search", ["ai/_search.pyx"], extra_compile_args=["-O3"])],
        include_path=["ai"],
        language_level=3,
    )

setup(ext_modules=extensions)
