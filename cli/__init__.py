"""The ``cardtable`` command line."""
