"""sampling subpackage (see attnspec/__init__.py for the public names)."""
