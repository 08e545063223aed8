"""uno-arena: a tournament and bot arena for UNO Flip and classic UNO."""

__version__ = "0.1.0"
