"""Read a site file's YAML as untrusted input: bounded in size and depth, plain data only, one-line errors.

A site file is a few kilobytes of keys and values. Everything beyond that is refused before it can cost time
or memory: files over MAX_BYTES, anchors and aliases (an alias bomb of a few hundred bytes expands to
gigabytes), nesting deeper than MAX_DEPTH, keys that are lists or mappings, text that is not UTF-8 or that
holds characters a workbook cannot store, over-long text, and YAML 1.1's surprising numbers (`17:04` is 1024
in base 60, `0x400` and `010` are hex and octal): a reader who wrote them did not mean those numbers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 1_000_000  # the example site is about 5 kB
MAX_DEPTH = 20  # a site file nests 4 levels (scenarios: name: key: {value, source})
MAX_TEXT = 2_000  # characters in one string: a description, a source, a note
MAX_DIGITS = 1_000  # of a whole number (a value beyond any range is refused by its key, with the reason)
ECHO = 80  # characters of a value shown back in an error message


class YamlError(ValueError):
    """The file cannot be read as a site file's YAML; the message is one line, without the path."""


def clip(text: Any) -> str:
    """Text as an error message shows it: on one line, cut to ECHO characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= ECHO else text[:ECHO - 3] + "..."


def echo(value: Any) -> str:
    """A value as an error message shows it: its repr, clipped."""
    return clip(repr(value))


_NOT_DECIMAL = re.compile(r"^[-+]?(0[xob]|0[0-7_]+$|.*:)", re.IGNORECASE)


class _SiteLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing what a site file never needs (see the module docstring)."""

    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise yaml.composer.ComposerError(
                None, None, "anchors and aliases (& and *) are not allowed in a site file", event.start_mark)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise yaml.composer.ComposerError(
                None, None, f"nested deeper than {MAX_DEPTH} levels", event.start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    None, None, "a key must be a word, not a list or a mapping", key_node.start_mark)
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key {echo(key)} is given twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        _decimal_only(node)
        digits = node.value.lstrip("+-").replace("_", "")
        if len(digits) > MAX_DIGITS:  # Python refuses to read more than 4,300 digits
            raise yaml.constructor.ConstructorError(
                None, None, f"the number {echo(node.value)} has more than {MAX_DIGITS:,} digits", node.start_mark)
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        _decimal_only(node)
        return super().construct_yaml_float(node)

    def construct_yaml_str(self, node: yaml.ScalarNode) -> str:
        text = super().construct_yaml_str(node)
        if len(text) > MAX_TEXT:
            raise yaml.constructor.ConstructorError(
                None, None, f"a text of {len(text):,} characters (at most {MAX_TEXT:,})", node.start_mark)
        bad = next((c for c in text if 0xD800 <= ord(c) <= 0xDFFF), None)
        if bad is not None:
            raise yaml.constructor.ConstructorError(
                None, None, f"the text holds U+{ord(bad):04X}, a lone surrogate that is not a character",
                node.start_mark)
        return text


def _decimal_only(node: yaml.ScalarNode) -> None:
    if _NOT_DECIMAL.match(node.value):
        raise yaml.constructor.ConstructorError(
            None, None, f"{echo(node.value)} is a base-60, hex, octal or binary number in YAML 1.1; write a "
            "decimal number (or quote it if it is text)", node.start_mark)


_SiteLoader.add_constructor("tag:yaml.org,2002:int", _SiteLoader.construct_yaml_int)
_SiteLoader.add_constructor("tag:yaml.org,2002:float", _SiteLoader.construct_yaml_float)
_SiteLoader.add_constructor("tag:yaml.org,2002:str", _SiteLoader.construct_yaml_str)


def _position(data: bytes, offset: int) -> str:
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def _decode(data: bytes) -> str:
    """UTF-8 text (a UTF-8 byte-order mark is allowed), or the reason and place it is not."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise YamlError("the file is UTF-16 text; save it as UTF-8")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise YamlError(f"byte 0x{data[e.start]:02x} at {_position(data, e.start)} is not UTF-8 text; "
                        "save the file as UTF-8") from None
    if "\x00" in text:
        where = _position(data, data.index(0))
        raise YamlError(f"a NUL byte at {where} (UTF-16 text?); save the file as UTF-8")
    return text


def read_yaml(path: Path) -> tuple[Any, bytes]:
    """The file's data and bytes; raises YamlError (message without the path) or OSError."""
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise YamlError(f"the file is larger than {MAX_BYTES:,} bytes (a site file is a few kB)")
    text = _decode(data)
    try:
        return yaml.load(text, Loader=_SiteLoader), data
    except yaml.reader.ReaderError as e:
        where = _position(text.encode("utf-8"), len(text[:e.position].encode("utf-8")))
        raise YamlError(f"character U+{e.character:04X} at {where} is not allowed in YAML (a control "
                        "character?)") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise YamlError(f"not valid YAML{at}: {getattr(e, 'problem', None) or e}") from None
    except RecursionError:
        raise YamlError(f"nested deeper than {MAX_DEPTH} levels") from None
