"""The site's files, which are untrusted input: the site description and its templates read and checked
(inputs, yaml_reader), the vendors' quotes kept beside it (quotes), a new site's skeleton (skeleton), and files
put on disk all or nothing (output)."""

__all__ = ["inputs", "output", "quotes", "skeleton", "yaml_reader"]
