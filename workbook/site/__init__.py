"""The site's files, which are untrusted input, read and checked before anything is defined from them: a site
file's keys (spec: Spec, Value, Site), its values (values), the rules between keys (rules), the errors of all
of them (errors), the templates it is read against (templates), each key's example (examples), the whole file
read at once (load, through yaml_reader), the vendors' quotes kept beside it (quotes), a new site's skeleton
(skeleton), and files put on disk all or nothing (output)."""

__all__ = ["errors", "examples", "load", "output", "quotes", "rules", "skeleton", "spec", "templates", "values",
           "yaml_reader"]
