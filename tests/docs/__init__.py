"""Tests that the documentation for bot authors (docs/) stays complete, correct and linked."""
