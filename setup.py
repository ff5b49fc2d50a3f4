"""Builds the one compiled extension, ai/_search.pyx, once it exists."""

from pathlib import Path

from setuptools import setup

extensions = []
if Path("ai/_search.pyx").exists():
    from Cython.Build import cythonize

    extensions = cythonize(["ai/_search.pyx"], language_level=3)

setup(ext_modules=extensions)
