"""Maps the repository's folders into the one installed package ``cardtable`` and builds the
compiled search (ai/_search.pyx) when a C compiler is there; without one the rest still installs."""

from pathlib import Path

from setuptools import Extension, setup

FOLDERS = ["engine", "ai", "p2p", "cli", "envs"]  # installed as cardtable.<folder>
packages = ["cardtable." + ".".join(init.parent.parts)
            for folder in FOLDERS for init in sorted(Path(folder).rglob("__init__.py"))]
package_dir = {f"cardtable.{folder}": folder for folder in FOLDERS}
package_dir["cardtable.docs"] = "docs"  # the rules and manuals, read by `cardtable` at run time
package_dir["cardtable.examples"] = "examples"  # the example bots `cardtable bot new` copies

extensions = []
if Path("ai/_search.pyx").exists():
    from Cython.Build import cythonize  # a build requirement (pyproject.toml)

    # Cython names the module after its folder (ai._search, so that ai/_search.pxd is its
    # contract); it is installed as cardtable.ai._search, and optional: without a C compiler
    # everything else installs and the ismcts bots say what is missing.
    extensions = cythonize([Extension("ai._search", ["ai/_search.pyx"], extra_compile_args=["-O3"])],
                           include_path=["ai"], language_level=3)
    for extension in extensions:
        extension.name = "cardtable." + extension.name
        extension.optional = True

setup(
    packages=[*packages, "cardtable.docs", "cardtable.examples"],
    package_dir=package_dir,
    package_data={"cardtable.docs": ["*.md"], "cardtable.examples": ["json_bot.py", "json_bot.js"],
                  "cardtable.ai": ["weights/*.json"]},
    exclude_package_data={"": ["*.c", "*.pyx", "*.pxi", "*.pxd"]},
    ext_modules=extensions,
)
