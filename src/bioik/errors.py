"""`BioikError`: the base class of every error bioik raises on purpose.

This module is the lowest layer of the package: it imports nothing from bioik, so every
other module can import it.
"""


class BioikError(Exception):
    """Base of bioik's own errors (unknown names, bad URDF, unusable benchmark input, ...).

    Each subclass also keeps its builtin base (ValueError, KeyError), so code that catches
    those still works; `except bioik.BioikError` catches all of them at once.
    """
