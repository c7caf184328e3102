"""Unit tests of the desk (api/desk): no database."""
