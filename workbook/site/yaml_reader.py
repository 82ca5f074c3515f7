"""Read a site file's YAML as untrusted input: bounded in size and depth, plain data only, one-line errors.

A site file is a few kilobytes of keys and values. Everything beyond that is refused before it can cost time
or memory: files over MAX_BYTES, anchors and aliases (an alias bomb of a few hundred bytes expands to
gigabytes), nesting deeper than MAX_DEPTH, keys that are lists or mappings, text that is not UTF-8 or that
holds characters a workbook cannot store, over-long text, and YAML 1.1's surprising numbers (`17:04` is 1024
in base 60, `0x400` and `010` are hex and octal): a reader who wrote them did not mean those numbers.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from workbook.formula.echo import echo

try:
    from yaml._yaml import CParser
except ImportError:  # a PyYAML built without libyaml: every file is read in Python
    CParser = None

MAX_BYTES = 1_000_000  # the example site is about 5 kB
MAX_DEPTH = 20  # a site file nests 4 levels (scenarios: name: key: {value, source})
MAX_TEXT = 2_000  # characters in one string: a description, a source, a note
MAX_DIGITS = 1_000  # of a whole number (a value beyond any range is refused by its key, with the reason)


class YamlError(ValueError):
    """The file cannot be read as a site file's YAML; the message is one line, without the path.

    Attributes: `problem` (the message), `file` (the file read, or None), `line` and `column` (where in it, from
    1, or None when the whole file is at fault, e.g. its size or encoding) and `key` (the dotted key whose key or
    value is refused, e.g. "power.gpus" for a number of 5,000 digits, or None)."""

    def __init__(self, problem: str, *, file: Path | str | None = None, line: int | None = None,
                 column: int | None = None, key: str | None = None):
        self.problem = " ".join(str(problem).split())
        self.file = Path(file) if file is not None else None
        self.line, self.column, self.key = line, column, key
        super().__init__(self.problem)


# Where libyaml reads what YAML 1.1 (and the Python reader) refuses: a tab where a space goes, a "?" in a flow
# collection's plain text. A file holding either is read in Python only (tests/test_yaml_reader.py looks for more).
_READ_APART = re.compile(r"[\t?]")
_NOT_DECIMAL = re.compile(r"^[-+]?(0[xob]|0[0-7_]+$|.*:)", re.IGNORECASE)


if TYPE_CHECKING:  # the mixin's super() is a loader's
    from yaml import SafeLoader as _Loader
else:
    _Loader = object


class _Refusals(_Loader):
    """What a site file never needs (see the module docstring), refused while its nodes are composed and its data
    built: mixed into both readers below."""

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
        self.construct_scalar(node)  # `!!int [1]`: refused as not a scalar, before its text is read
        _decimal_only(node)
        digits = node.value.lstrip("+-").replace("_", "")
        if len(digits) > MAX_DIGITS:  # Python refuses to read more than 4,300 digits
            raise yaml.constructor.ConstructorError(
                None, None, f"the number {echo(node.value)} has more than {MAX_DIGITS:,} digits", node.start_mark)
        try:
            return super().construct_yaml_int(node)
        except ValueError:  # text tagged as a number: `!!int many`
            raise _not_a_number(node, "!!int") from None

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        self.construct_scalar(node)
        _decimal_only(node)
        try:
            return super().construct_yaml_float(node)
        except ValueError:
            raise _not_a_number(node, "!!float") from None

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


def _not_a_number(node: yaml.ScalarNode, tag: str) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(
        None, None, f"{echo(node.value)} is tagged {tag} but is not a number; leave the tag out", node.start_mark)


def _decimal_only(node: yaml.ScalarNode) -> None:
    if _NOT_DECIMAL.match(node.value):
        raise yaml.constructor.ConstructorError(
            None, None, f"{echo(node.value)} is a base-60, hex, octal or binary number in YAML 1.1; write a "
            "decimal number (or quote it if it is text)", node.start_mark)


class _SiteLoader(_Refusals, yaml.SafeLoader):
    """YAML's safe loader, in Python: what it refuses is said as it says it (its messages and places)."""


class _FastLoader(_Refusals, Composer, *(() if CParser is None else (CParser,)),  # type: ignore[misc]
                  SafeConstructor, Resolver):
    """The same reader with libyaml's scanner and parser (C) under Python's composer and constructor: the nodes, the
    data and the refusals above are the same, in a seventh of the time (a site file 25 -> 3 ms, the catalog 107 ->
    17 ms). Used only for a file it reads: any file it refuses is read again by _SiteLoader, whose error is said."""

    def __init__(self, stream: str) -> None:
        CParser.__init__(self, stream)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)


for _loader in (_SiteLoader, _FastLoader):
    _loader.add_constructor("tag:yaml.org,2002:int", _Refusals.construct_yaml_int)
    _loader.add_constructor("tag:yaml.org,2002:float", _Refusals.construct_yaml_float)
    _loader.add_constructor("tag:yaml.org,2002:str", _Refusals.construct_yaml_str)


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """The line and column (from 1) of a byte offset."""
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, column


def _decode(data: bytes, path: Path) -> str:
    """UTF-8 text (a UTF-8 byte-order mark is allowed), or the reason and place it is not."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise YamlError("the file is UTF-16 text; save it as UTF-8", file=path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line, column = _position(data, e.start)
        raise YamlError(f"byte 0x{data[e.start]:02x} at line {line}, column {column} is not UTF-8 text; "
                        "save the file as UTF-8", file=path, line=line, column=column) from None
    if "\x00" in text:
        line, column = _position(data, data.index(0))
        raise YamlError(f"a NUL byte at line {line}, column {column} (UTF-16 text?); save the file as UTF-8",
                        file=path, line=line, column=column)
    return text


def read_yaml(path: Path) -> tuple[Any, bytes]:
    """The file's data and bytes; raises YamlError (message without the path) or OSError. Opened without waiting
    (a FIFO with no writer would block the open and the read for ever) and read only if it is a regular file."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise YamlError("is not a regular file (a FIFO, a device or a folder)", file=path)
        data = f.read(MAX_BYTES + 1)
    return parse_yaml(data, path), data


def parse_yaml(data: bytes, path: Path, *, fast: bool = True) -> Any:
    """The data of a file's bytes, by the rules of read_yaml (`path` names it in errors): what a writer checks
    before it writes a file the build will read. `fast=False` reads it in Python only: the reference the fast
    reader is tested against (the same data, or the same refusal)."""
    if len(data) > MAX_BYTES:
        raise YamlError(f"the file is larger than {MAX_BYTES:,} bytes (a site file is a few kB)", file=path)
    text = _decode(data, path)
    if fast and CParser is not None and not _READ_APART.search(text):
        try:
            return yaml.load(text, Loader=_FastLoader)
        except (yaml.YAMLError, RecursionError):
            pass  # refused: read again in Python, which says why in its own words and places
    try:
        return yaml.load(text, Loader=_SiteLoader)
    except yaml.reader.ReaderError as e:
        line, column = _position(text.encode("utf-8"), len(text[:e.position].encode("utf-8")))
        raise YamlError(f"character U+{e.character:04X} at line {line}, column {column} is not allowed in YAML "
                        "(a control character?)", file=path, line=line, column=column) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line, column = (mark.line + 1, mark.column + 1) if mark else (None, None)
        at = f" at line {line}, column {column}" if mark else ""
        key = _key_at(text, mark.index) if mark and isinstance(e, yaml.constructor.ConstructorError) else None
        raise YamlError(f"not valid YAML{at}: {getattr(e, 'problem', None) or e}", file=path, line=line,
                        column=column, key=key) from None
    except RecursionError:
        raise YamlError(f"nested deeper than {MAX_DEPTH} levels", file=path) from None


def _key_at(text: str, index: int) -> str | None:
    """The dotted key ("power.gpus") whose key or value starts at a character of the text: where a value was
    refused while the data was built (the text itself parses, so it is read again as nodes only)."""
    try:
        root = yaml.compose(text, Loader=_SiteLoader)
    except (yaml.YAMLError, RecursionError):
        return None

    def find(node: yaml.Node, path: tuple[str, ...]) -> tuple[str, ...] | None:
        pairs = node.value if isinstance(node, yaml.MappingNode) else []
        items = node.value if isinstance(node, yaml.SequenceNode) else []
        for k, v in pairs:
            here = (*path, str(k.value)) if isinstance(k, yaml.ScalarNode) else path
            if index in (k.start_mark.index, v.start_mark.index):
                return here
            found = find(v, here)
            if found is not None:
                return found
        for i, item in enumerate(items):
            if index == item.start_mark.index:  # a list's item itself (a text in a list)
                return (*path, str(i))
            found = find(item, (*path, str(i)))
            if found is not None:
                return found
        return None

    found = find(root, ()) if root is not None else None
    return ".".join(found) if found else None
