"""The environment tests need the ``envs`` extra: ``pip install -e '.[envs]'``."""
