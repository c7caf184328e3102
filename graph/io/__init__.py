"""A whole user out and back: the export format, the dump, the restore."""
