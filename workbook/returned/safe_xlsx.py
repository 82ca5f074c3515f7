"""A reader for .xlsx files that come back from outside: a vendor's quote, a reviewer's edited copy of our workbook.

Such a file is untrusted. It may carry macros, links that fetch from (or report to) the outside, embedded
programs, XML that expands without bound or reads local files, or a zip that inflates until memory runs out.
openpyxl would parse all of that, so this reader parses only what it needs, itself, with zipfile and defusedxml,
and refuses the file with a one-line reason (an `UntrustedFile` naming the file, the rule and the place) before
any of it is used:

- the file is read once, within a size limit, and hashed; the zip is opened from those bytes, so what is checked is
  what was hashed, even if the file changes meanwhile;
- every member's declared sizes and compression ratio are checked, and every member read is inflated in chunks,
  stopping as soon as more comes out than it declared: a header that lies cannot make it inflate more;
- member names, content types and every relationship are checked for macros, outside links and embedded objects;
- every XML part is scanned for a DTD (in UTF-8, -16 or -32) and every .xml/.rels part is parsed with defusedxml,
  used or not, since whatever opens the file next would parse it too, once its elements are counted (in its bytes,
  before any part is parsed) and found within the limits;
- only then are the sheets located and the cells of the sheets asked for read.

Every part is parsed element by element (iterparse), each element dropped once read: what is kept is what is read
(a content type, a relationship, a sheet's name, a cell), never a part's tree, whose objects take tens of times its
bytes (16 MB of `<a b=""/>` is 1.8 million elements, about 400 MB as a tree).
"""

from __future__ import annotations

import copy
import hashlib
import os
import posixpath
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, ParseError

import defusedxml
import defusedxml.ElementTree as SafeET

from workbook.site.errors import InputError

KINDS = ("not-xlsx", "too-large", "zip-bomb", "macro", "external-link", "embedded-object", "xml-attack", "bad-xml",
         "missing-sheet", "bad-cell")

_MB = 1024 * 1024
_CHUNK = 256 * 1024  # bytes inflated at a time: the most a lying member can overshoot before it is caught
_RATIO_FROM = _MB  # the ratio is judged only above this size: small XML parts legitimately compress very well
_MAX_ROW, _MAX_COL = 1_048_576, 16_384  # Excel's grid
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # a compound file: a legacy .xls, or any password-protected workbook
_ABSENT: Any = object()
Event = tuple[str, Element, int]  # ("start" | "end", the element, its depth: 0 for the root)

# A DTD opens entity expansion and external entities; Excel never writes one. Sought in the bytes of every XML part,
# in each encoding an XML parser may detect, so a part that is never parsed here (nor by us) cannot hide one.
_DTD_MARK = re.compile(b"|".join(re.escape(mark.encode(codec)) for mark in ("<!DOCTYPE", "<!ENTITY")
                                 for codec in ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")),
                       re.IGNORECASE)
_OUTSIDE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//|\\\\)", re.IGNORECASE)  # a URL, a drive or a UNC path
_CELL_REF = re.compile(r"([A-Z]{1,3})([0-9]{1,7})")
_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|nan|inf|infinity)", re.IGNORECASE)
_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")  # OOXML's escape for characters XML cannot hold (_x000D_)

# What each dangerous kind refuses, and how the sender can fix it.
_REMEDY = {
    "macro": ("macros are not accepted", "save it as an Excel Workbook (.xlsx) without macros"),
    "external-link": ("links outside the workbook are not accepted", "break or delete the links and save again"),
    "embedded-object": ("embedded objects and controls are not accepted", "delete them and save again"),
}
# Members refused by name (lower-case): what they hold is dangerous whether or not anything refers to them.
_MEMBER_RULES = (
    (re.compile(r"(?:^|/)vbaproject[^/]*\.bin$"), "macro", "a VBA project: a macro-enabled workbook"),
    (re.compile(r"^xl/macrosheets/"), "macro", "an Excel 4.0 macro sheet"),
    (re.compile(r"^xl/externallinks/"), "external-link", "a link to another workbook"),
    (re.compile(r"^xl/(?:connections\.xml$|querytables/)"), "external-link", "a connection to an outside data source"),
    (re.compile(r"^xl/embeddings/"), "embedded-object", "an embedded object"),
    (re.compile(r"^xl/activex/"), "embedded-object", "an ActiveX control"),
    (re.compile(r"^xl/ctrlprops/"), "embedded-object", "a form control"),
)
# Content types refused, by a fragment of the lower-case type.
_TYPE_RULES = (
    ("macroenabled", "macro", "a macro-enabled workbook"),
    ("vbaproject", "macro", "a VBA project"),
    ("macrosheet", "macro", "an Excel 4.0 macro sheet"),
    ("externallink", "external-link", "a link to another workbook"),
    ("connections", "external-link", "a connection to an outside data source"),
    ("querytable", "external-link", "a query table"),
    ("oleobject", "embedded-object", "an embedded OLE object"),
    ("activex", "embedded-object", "an ActiveX control"),
    ("controlproperties", "embedded-object", "a form control"),
)
# Relationships refused by type (the type's last segment, lower-case), wherever the .rels is.
_REL_RULES = {
    "vbaproject": ("macro", "a VBA project"),
    "vbaprojectsignature": ("macro", "a VBA project's signature"),
    "xlmacrosheet": ("macro", "an Excel 4.0 macro sheet"),
    "xlintlmacrosheet": ("macro", "an Excel 4.0 macro sheet"),
    "externallink": ("external-link", "a link to another workbook"),
    "connections": ("external-link", "a connection to an outside data source"),
    "querytable": ("external-link", "a query table"),
    "oleobject": ("embedded-object", "an embedded OLE object"),
    "package": ("embedded-object", "an embedded file"),
    "activexcontrol": ("embedded-object", "an ActiveX control"),
    "activexcontrolbinary": ("embedded-object", "an ActiveX control"),
    "control": ("embedded-object", "a form control"),
}
_SUFFIXES = {
    ".xlsm": "a macro-enabled workbook (.xlsm): macros are not accepted",
    ".xltm": "a macro-enabled template (.xltm): macros are not accepted",
    ".xlam": "an add-in (.xlam): macros are not accepted",
    ".xlsb": "a binary workbook (.xlsb), whose content cannot be checked",
    ".xls": "a legacy Excel 97-2003 workbook (.xls), which can carry macros and cannot be checked",
    ".xlt": "a legacy Excel 97-2003 template (.xlt), which can carry macros and cannot be checked",
}
_PROPERTIES = ("title", "subject", "creator", "description", "keywords")
_BOOLEANS = {"0": False, "1": True, "false": False, "true": True}


class UntrustedFile(InputError):
    """A returned file refused. `kind` says which rule refused it (one of KINDS), `file` is the path, `key` is the
    place in the file when there is one (a zip member like 'xl/vbaProject.bin', or a cell 'Quote!F7'), or None."""

    def __init__(self, problem: str, *, file: Path | str, kind: str, key: str | None = None, value: Any = _ABSENT):
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
        super().__init__(problem, file=file, key=key, **({} if value is _ABSENT else {"value": value}))
        self.kind = kind

    def __reduce__(self) -> tuple[Any, ...]:
        """Picklable, to cross a process pool (__init__ takes keywords only, so the default cannot rebuild it)."""
        return _unpickle, (self.args, self.__dict__)

    def located(self, **changes: Any) -> UntrustedFile:
        """The same refusal with its file or key replaced (InputError.located would drop the kind)."""
        fields: dict[str, Any] = {"file": self.file, "key": self.key, "kind": self.kind}
        if self._has_value:
            fields["value"] = self.value
        return UntrustedFile(self.problem, **{**fields, **changes})


def _unpickle(args: tuple[Any, ...], state: dict[str, Any]) -> UntrustedFile:
    error = UntrustedFile.__new__(UntrustedFile, *args)
    error.__dict__.update(state)
    return error


@dataclass(frozen=True)
class Limits:
    """How big a returned file may be. Our workbooks are well inside these; a hostile file is stopped long before it
    can exhaust memory. Sizes are in bytes, the ratio is uncompressed / compressed for one member."""

    max_file_bytes: int = 20 * _MB
    max_members: int = 2_000
    max_member_bytes: int = 100 * _MB
    max_total_bytes: int = 200 * _MB
    max_ratio: float = 100
    # XML is what costs time and memory to parse (tens of times its size as a tree): a part or a whole file of it
    # past these is refused from the zip's directory, before anything is inflated. Our largest workbook's biggest
    # part is 1.9 MB and all its XML 7.7 MB (the upgrade example), so these are 8x that.
    max_xml_part_bytes: int = 16 * _MB
    max_xml_total_bytes: int = 64 * _MB
    # Elements, counted before any part is parsed: 16 MB of empty elements is 1.8 million of them. Our workbooks'
    # largest part holds 58,313 (the upgrade example's biggest sheet) and a whole workbook 214,169: these are 8x that.
    max_xml_part_elements: int = 500_000
    max_xml_total_elements: int = 2_000_000


LIMITS = Limits()


@dataclass(frozen=True)
class Cell:
    """One cell as the file holds it: its cached value and, for a formula, the formula's text (without '=')."""

    value: float | str | bool | None  # a number as float, text as str, a boolean as bool, an error as its text
    formula: str | None  # the formula text if the cell holds a formula (<f>), "" for a shared formula's followers
    error: bool = False  # True for an error cell (t="e"), whose value is the error's text, e.g. "#DIV/0!"
    date: bool = False  # True for a number shown as a date or time (its style's number format): a typed date


@dataclass(frozen=True)
class Returned:
    """What was read from a returned file, once it passed every rule."""

    path: Path
    sha256: str  # hex SHA-256 of the file's bytes: which file exactly was read
    sheets: tuple[str, ...]  # every sheet name, in workbook order
    cells: dict[str, dict[tuple[int, int], Cell]]  # each sheet asked for: (row, col) from zero -> Cell; no empty cells
    properties: dict[str, str]  # docProps/core.xml: title, subject, creator, description, keywords when present


def read_returned(path: Path | str, sheets: Sequence[str], *, limits: Limits = LIMITS) -> Returned:
    """Check a returned .xlsx against every rule, then read the cells of `sheets`; raise UntrustedFile if refused."""
    if isinstance(sheets, str):
        raise TypeError(f"sheets: a sequence of sheet names, not one name ({sheets!r})")
    path = Path(path)
    _check_suffix(path)
    data = _read_bytes(path, limits)
    with _open_zip(path, data) as zf:
        pkg = _Package(path, zf, limits)
        _check_members(pkg)
        _check_parts(pkg)
        parts = _workbook_sheets(pkg)
        missing = [name for name in sheets if name not in parts]
        if missing:
            listed = ", ".join(_show(name) for name in parts)
            raise pkg.refuse("missing-sheet", f"the workbook has no sheet {_show(missing[0])}; its sheets are {listed}",
                             missing[0])
        strings = _shared_strings(pkg) if sheets else []
        dates = pkg.parsed.get("xl/styles.xml", frozenset())
        cells = {name: _read_sheet(pkg, name, parts[name], strings, dates) for name in dict.fromkeys(sheets)}
        properties = pkg.parsed.get("docprops/core.xml", {})
    return Returned(path, hashlib.sha256(data).hexdigest(), tuple(parts), cells, properties)


# --- the file and the zip ------------------------------------------------------------------------------------------


def _check_suffix(path: Path) -> None:
    """Only .xlsx: the other Excel formats carry macros or are binary, and a rename does not make them safe."""
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        return
    other = f"ends in {_show(suffix)}" if suffix else f"is {_show(path.name)}, without .xlsx"
    why = _SUFFIXES.get(suffix, f"not an Excel workbook (.xlsx): its name {other}")
    raise UntrustedFile(f"is {why}; save it as an Excel Workbook (.xlsx) and send that", file=path, kind="not-xlsx")


def _read_bytes(path: Path, limits: Limits) -> bytes:
    """The file's bytes, read once: opened without blocking and checked on the open handle, so a fifo or a file
    swapped after a check cannot stall or slip past, and read no further than the limit even if it grows."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise UntrustedFile("does not exist; expected a returned workbook (.xlsx)", file=path,
                            kind="not-xlsx") from None
    except OSError as exc:
        raise UntrustedFile(f"cannot be opened ({exc.strerror})", file=path, kind="not-xlsx") from None
    mode, size = (st := os.fstat(fd)).st_mode, st.st_size
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise UntrustedFile(f"is {what}; expected a workbook file (.xlsx)", file=path, kind="not-xlsx")
    with os.fdopen(fd, "rb") as handle:
        data = b"" if size > limits.max_file_bytes else handle.read(limits.max_file_bytes + 1)
    if size > limits.max_file_bytes or len(data) > limits.max_file_bytes:
        found, limit = _sizes(max(size, len(data)), limits.max_file_bytes)
        raise UntrustedFile(f"is {found}, over the {limit} a returned workbook may be", file=path, kind="too-large")
    return data


def _open_zip(path: Path, data: bytes) -> zipfile.ZipFile:
    """The zip in the bytes read; an .xlsx is a zip, anything else is not one."""
    if not data:
        raise UntrustedFile("is empty; expected an Excel workbook (.xlsx)", file=path, kind="not-xlsx")
    if data.startswith(_OLE_MAGIC):
        raise UntrustedFile("is a legacy .xls or a password-protected workbook, not an .xlsx; remove the password "
                            "and save it as an Excel Workbook (.xlsx)", file=path, kind="not-xlsx")
    if not data.startswith(b"PK\x03\x04"):  # zipfile would find a zip after other data: a polyglot file
        raise UntrustedFile("is not a zip, as an .xlsx is (it does not start with a zip member: some other file, or "
                            "one with a zip appended); save it as an Excel Workbook (.xlsx)", file=path,
                            kind="not-xlsx")
    try:
        return zipfile.ZipFile(BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, struct.error,
            NotImplementedError) as exc:
        raise UntrustedFile(f"is not a zip, or a corrupt one ({_clip(exc)}); an .xlsx is a zip: save it again from "
                            "Excel", file=path, kind="not-xlsx") from None


class _Package:
    """The zip's members, found by name as Excel finds them (ignoring case), read only within the limits."""

    def __init__(self, file: Path, zf: zipfile.ZipFile, limits: Limits):
        self.file, self.zf, self.limits = file, zf, limits
        self.infos = zf.infolist()
        self.members: dict[str, zipfile.ZipInfo] = {}  # lower-case name -> member; filled by _check_members
        self.parsed: dict[str, Any] = {}  # lower-case name -> what was read of the part as it was checked (_READERS)

    def refuse(self, kind: str, problem: str, key: str | None = None) -> UntrustedFile:
        return UntrustedFile(problem, file=self.file, kind=kind, key=key)

    def refuse_danger(self, kind: str, what: str, key: str | None) -> UntrustedFile:
        lead, fix = _REMEDY[kind]
        return self.refuse(kind, f"{lead} ({what}); {fix}", key)

    def find(self, name: str) -> zipfile.ZipInfo | None:
        return self.members.get(_norm(name))

    def read(self, info: zipfile.ZipInfo, *, keep: bool = True) -> bytes:
        """A member's bytes (or b"" if not `keep`), inflated in chunks up to its declared size: one byte more and it
        is refused, so a header that lies about the size cannot make it inflate further."""
        declared = min(info.file_size, self.limits.max_member_bytes)
        probe = copy.copy(info)
        # zipfile would stop at the declared size (and report a lie only as a bad CRC): let it go one chunk past
        probe.file_size = declared + _CHUNK + 1
        out, size = bytearray(), 0
        try:
            with self.zf.open(probe) as stream:
                while chunk := stream.read(_CHUNK):
                    size += len(chunk)
                    if keep:
                        out += chunk
                    if size > declared:
                        raise self.refuse("zip-bomb", f"inflates past the {_size(declared)} its zip header declares "
                                          "(a zip bomb, or a forged zip)", info.filename)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
            raise self.refuse("not-xlsx", f"cannot be unzipped ({_clip(exc)}): the zip is corrupt; save it again",
                              info.filename) from None
        if size != info.file_size:
            raise self.refuse("not-xlsx", f"holds {size:,} bytes, not the {info.file_size:,} its zip header "
                              "declares: the zip is corrupt; save it again", info.filename)
        return bytes(out)

    def scan(self, info: zipfile.ZipInfo, data: bytes) -> None:
        if _DTD_MARK.search(data):
            raise self.refuse("xml-attack", "declares a DTD or an entity, which Excel never writes (an XML entity-"
                              "expansion or external-entity attack); save it again from Excel", info.filename)

    def check_xml(self, info: zipfile.ZipInfo) -> None:
        """A part checked as every part read is (its bytes scanned, then parsed safely, element by element, within
        the limits), nothing of it kept."""
        for _ in self.elements(info):
            pass

    def elements(self, info: zipfile.ZipInfo, whole: int | None = None) -> Iterator[Event]:
        """The part's elements as they are parsed, after its bytes are scanned: ("start" | "end", element, depth
        from 0 at the root), its attributes there at the start, its text and children at the end. Each element is
        dropped from its parent once its end has been seen, but an element at depth `whole` keeps its subtree until
        its own end (a cell with its value and formula): memory is that of the open elements and of one whole
        element (_check_elements bounds how many there are)."""
        data = self.read(info)
        self.scan(info, data)
        stack: list[Element] = []
        try:
            for event, element in SafeET.iterparse(BytesIO(data), events=("start", "end"), forbid_dtd=True):
                if event == "start":
                    stack.append(element)
                    yield event, element, len(stack) - 1
                    continue
                stack.pop()
                depth = len(stack)
                yield event, element, depth
                if depth and (whole is None or depth <= whole):
                    del stack[-1][-1]  # the element just ended is its parent's last child: dropped with its subtree
        except defusedxml.DefusedXmlException as exc:
            raise self.refuse("xml-attack", f"is refused by the safe XML parser ({type(exc).__name__}: an XML "
                              "entity or DTD attack); save it again from Excel", info.filename) from None
        except (ParseError, ValueError, LookupError) as exc:
            raise self.refuse("bad-xml", f"is not well-formed XML ({_clip(exc)}); save it again from Excel",
                              info.filename) from None

    def children(self, info: zipfile.ZipInfo) -> Iterator[Element]:
        """The root's children, each whole (attributes, text and children) when given, then dropped."""
        return (element for event, element, depth in self.elements(info, whole=1) if event == "end" and depth == 1)


def _check_members(pkg: _Package) -> None:
    """Refuse by what the zip's directory says: too many members, sizes or ratios of a zip bomb, names that hold
    macros, links or embedded objects, members that cannot be read as they are, and a zip that is not a workbook."""
    limits = pkg.limits
    if len(pkg.infos) > limits.max_members:
        raise pkg.refuse("too-large", f"holds {len(pkg.infos)} zip members, over the {limits.max_members} a "
                         "returned workbook may have")
    for info in pkg.infos:
        name = _norm(info.filename)
        if name in pkg.members:
            raise pkg.refuse("not-xlsx", "appears twice in the zip (readers would disagree on which one counts): a "
                             "forged or corrupt zip", info.filename)
        pkg.members[name] = info
        if info.flag_bits & 0x1:
            raise pkg.refuse("not-xlsx", "is encrypted inside the zip, which Excel never does", info.filename)
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise pkg.refuse("not-xlsx", f"uses zip compression method {info.compress_type}, which Excel never "
                             "writes", info.filename)
        _check_declared_size(pkg, info)
        for rule, kind, what in _MEMBER_RULES:
            if rule.search(name):
                raise pkg.refuse_danger(kind, what, info.filename)
    total = sum(info.file_size for info in pkg.infos)
    if total > limits.max_total_bytes:
        found, limit = _sizes(total, limits.max_total_bytes)
        raise pkg.refuse("zip-bomb", f"its members declare {found} uncompressed in all, over the {limit} limit (a zip "
                         "bomb)")
    _check_xml_sizes(pkg)
    for required in ("[Content_Types].xml", "xl/workbook.xml"):
        if pkg.find(required) is None:
            raise pkg.refuse("not-xlsx", f"is a zip without {required}, so not an Excel workbook; save it as an "
                             "Excel Workbook (.xlsx)")


def _check_xml_sizes(pkg: _Package) -> None:
    """XML parts (.xml, .rels, .vml) over their limits, by the sizes the zip declares (a member that inflates past
    its declared size is refused as it is read): a part, then all of them."""
    limits = pkg.limits
    xml = [info for info in pkg.infos if _norm(info.filename).endswith((".xml", ".rels", ".vml"))]
    for info in xml:
        if info.file_size > limits.max_xml_part_bytes:
            found, limit = _sizes(info.file_size, limits.max_xml_part_bytes)
            raise pkg.refuse("too-large", f"is {found} of XML, over the {limit} a returned workbook's part may be",
                             info.filename)
    total = sum(info.file_size for info in xml)
    if total > limits.max_xml_total_bytes:
        found, limit = _sizes(total, limits.max_xml_total_bytes)
        raise pkg.refuse("too-large", f"holds {found} of XML in all, over the {limit} a returned workbook may")


def _check_declared_size(pkg: _Package, info: zipfile.ZipInfo) -> None:
    """A member that says it inflates past the limits, or by far more than real workbook parts do, is a bomb."""
    limits, size = pkg.limits, info.file_size
    if size > limits.max_member_bytes:
        found, limit = _sizes(size, limits.max_member_bytes)
        raise pkg.refuse("zip-bomb", f"declares {found} uncompressed, over the {limit} "
                         "limit for one member (a zip bomb)", info.filename)
    if size > _RATIO_FROM and size > limits.max_ratio * max(info.compress_size, 1):
        ratio = size / max(info.compress_size, 1)
        raise pkg.refuse("zip-bomb", f"inflates {ratio:,.0f} times ({_size(info.compress_size)} to {_size(size)}), "
                         f"over the {limits.max_ratio:g} times a workbook part may (a zip bomb)", info.filename)


# --- the parts -----------------------------------------------------------------------------------------------------


def _check_parts(pkg: _Package) -> None:
    """Every part checked before any is used: the elements of every XML part counted, content types, then every
    XML part scanned for a DTD and every .xml and .rels parsed safely (used or not), every relationship checked,
    every other member inflated (and dropped). What is read of the workbook's own parts is kept (`parsed`); only
    the sheets asked for are parsed again, for their cells, once they are found."""
    _check_elements(pkg)
    types = _check_content_types(pkg)
    for info in pkg.infos:
        name = _norm(info.filename)
        if name == "[content_types].xml":
            continue  # parsed just above
        if name.endswith(".rels"):
            pkg.parsed[name] = _check_relationships(pkg, info)
        elif name in _READERS:
            pkg.parsed[name] = _READERS[name](pkg, info)  # what is read of it, read as it is checked: parsed once
        elif name.endswith(".xml"):
            pkg.check_xml(info)
        elif name.endswith(".vml") or _is_xml_type(types.get(name) or types.get(posixpath.splitext(name)[1])):
            pkg.scan(info, pkg.read(info))  # XML that is not parsed here (VML is often not even well-formed)
        else:
            pkg.read(info, keep=False)  # inflated all the same: a lying header or a bad CRC anywhere is refused


def _check_elements(pkg: _Package) -> None:
    """The elements of the parts that are parsed (.xml, .rels), counted in their bytes before any is parsed, a part
    and then all of them: parsing costs microseconds an element, so a flood of small elements inside the byte
    limits is refused here in a fraction of a second. Every element starts with a '<' that begins no end tag,
    comment, CDATA section, declaration or processing instruction, and no other '<' may stand in XML's text or
    attributes: so the count is never below the elements there are (a '<' inside a comment counts as one more)."""
    limits, total = pkg.limits, 0
    for info in pkg.infos:
        if not _norm(info.filename).endswith((".xml", ".rels")):
            continue
        data = pkg.read(info)
        count = data.count(b"<") - data.count(b"</") - data.count(b"<!") - data.count(b"<?")
        if count > limits.max_xml_part_elements:
            raise pkg.refuse("too-large", f"holds {count:,} XML elements, over the {limits.max_xml_part_elements:,} "
                             "a returned workbook's part may (a flood of elements)", info.filename)
        total += count
        if total > limits.max_xml_total_elements:
            raise pkg.refuse("too-large", f"holds over {limits.max_xml_total_elements:,} XML elements in all, over "
                             "what a returned workbook may (a flood of elements)")


def _check_content_types(pkg: _Package) -> dict[str, str]:
    """[Content_Types].xml: refuse types of macros, links and embedded objects. Returns lower-case part names
    (without the leading '/') and extensions (with the dot) -> content type, to find the XML parts by type."""
    info = pkg.find("[Content_Types].xml")
    assert info is not None  # _check_members made sure
    types: dict[str, str] = {}
    for entry in pkg.children(info):
        tag, given = _local(entry.tag), entry.get("ContentType") or ""
        content = given.lower()
        if tag == "Default":
            part = "." + (entry.get("Extension") or "").lower()
        elif tag == "Override":
            part = (entry.get("PartName") or "").lower().lstrip("/")
        else:
            continue
        types[part] = content
        for fragment, kind, what in _TYPE_RULES:
            if fragment in content:
                raise pkg.refuse_danger(kind, f"{what}: content type {_show(given, 120)} for {_show(part)}",
                                        info.filename)
    return types


def _is_xml_type(content: str | None) -> bool:
    return content is not None and content.endswith(("+xml", "/xml"))


def _check_relationships(pkg: _Package, info: zipfile.ZipInfo) -> dict[str | None, str]:
    """Any .rels, wherever: refuse relationships to macros, links and embedded objects, and any target outside the
    file (TargetMode="External", or a URL or a path for a target): Excel would fetch it, or offer it to a click.
    Returns each relationship's target by its id."""
    targets: dict[str | None, str] = {}
    for rel in pkg.children(info):
        if _local(rel.tag) != "Relationship":
            continue
        targets[rel.get("Id")] = rel.get("Target") or ""
        kind_of = (rel.get("Type") or "").rstrip("/").rpartition("/")[2].lower()
        target = rel.get("Target") or ""
        if kind_of in _REL_RULES:
            kind, what = _REL_RULES[kind_of]
            raise pkg.refuse_danger(kind, f"{what}, by a relationship to {_show(target)}", info.filename)
        if (rel.get("TargetMode") or "").lower() == "external" or _OUTSIDE.match(target):
            what = (f"a hyperlink to {_show(target)}: hyperlinks to outside addresses are refused too"
                    if kind_of == "hyperlink" else f"a link to {_show(target)}, outside the file")
            raise pkg.refuse_danger("external-link", what, info.filename)
    return targets


def _workbook_sheets(pkg: _Package) -> dict[str, zipfile.ZipInfo]:
    """The workbook's sheets in order, each with its part: xl/workbook.xml lists them, its .rels locates them."""
    book, rels_name = "xl/workbook.xml", "xl/_rels/workbook.xml.rels"  # as _norm names them
    entries = pkg.parsed.get(book, [])
    if not entries:
        raise pkg.refuse("bad-xml", "lists no sheets (expected <workbook> with <sheets><sheet .../>)", book)
    targets = pkg.parsed.get(rels_name)
    if targets is None:
        raise pkg.refuse("bad-xml", "is missing, so the workbook's sheets cannot be located", rels_name)
    sheets: dict[str, zipfile.ZipInfo] = {}
    seen: set[str] = set()
    for name, rid in entries:
        if not name or rid not in targets:
            raise pkg.refuse("bad-xml", f"has a sheet {_show(name)} without a name or a relationship "
                             f"({_show(rid)}) in {rels_name}", book)
        if name.lower() in seen:
            raise pkg.refuse("bad-xml", f"has two sheets named {_show(name)}", book)
        seen.add(name.lower())
        part = pkg.find(_resolve("xl", targets[rid]))
        if part is None:
            raise pkg.refuse("bad-xml", f"places sheet {_show(name)} at {_show(targets[rid])}, which is not in the "
                             "file", rels_name)
        sheets[name] = part
    return sheets


def _sheet_entries(pkg: _Package, info: zipfile.ZipInfo) -> list[tuple[str | None, str | None]]:
    """Each <sheet>'s name and relationship id, in the first <sheets> of a <workbook> root (none for another root)."""
    entries: list[tuple[str | None, str | None]] = []
    book = listing = seen = False
    for event, element, depth in pkg.elements(info):
        if depth == 0:
            book = _local(element.tag) == "workbook"
        elif not book:
            continue
        elif depth == 1 and _local(element.tag) == "sheets":
            listing = event == "start" and not seen
            seen = True
        elif depth == 2 and listing and event == "end" and _local(element.tag) == "sheet":
            entries.append((element.get("name"), _namespaced(element, "id")))
    return entries


def _resolve(folder: str, target: str) -> str:
    """A relationship's target as a member name: relative to the source part's folder, or absolute from the root."""
    return posixpath.normpath(target[1:] if target.startswith("/") else posixpath.join(folder, target))


_DATE_FORMATS = frozenset({*range(14, 23), 45, 46, 47})  # the built-in number formats that show a date or a time
_LITERAL = re.compile(r'"[^"]*"|\\.|\[[^\]]*\]')  # quoted text, an escaped character, [colour] or [$currency]


def _date_styles(pkg: _Package, info: zipfile.ZipInfo) -> frozenset[int]:
    """The cell styles (xl/styles.xml's cellXfs, by index) whose number format shows a date or a time: a built-in
    date format, or a custom code with d, m, y, h or s outside its quoted text and brackets."""
    codes: dict[str, str] = {}
    styles: list[tuple[int, str]] = []  # (index in its cellXfs, numFmtId)
    group, index = "", 0
    for event, element, depth in pkg.elements(info):
        if depth == 1 and event == "start":
            group, index = _local(element.tag), 0
        elif depth == 2 and event == "end" and group == "numFmts" and _local(element.tag) == "numFmt":
            codes[element.get("numFmtId", "")] = element.get("formatCode", "")
        elif depth == 2 and event == "end" and group == "cellXfs" and _local(element.tag) == "xf":
            styles.append((index, element.get("numFmtId", "0")))
            index += 1
    out = set()
    for index, fmt in styles:
        code = _LITERAL.sub("", codes.get(fmt, "")).lower()
        if (fmt.isdigit() and int(fmt) in _DATE_FORMATS) or re.search(r"[dmyhs]", code):
            out.add(index)
    return frozenset(out)


def _strings(pkg: _Package, info: zipfile.ZipInfo) -> list[str] | None:
    """xl/sharedStrings.xml's strings in order (t="s" cells hold an index into it); None if it is not a table."""
    strings: list[str] = []
    table = False
    for event, element, depth in pkg.elements(info, whole=1):
        if depth == 0:
            table = _local(element.tag) == "sst"
        elif table and depth == 1 and event == "end" and _local(element.tag) == "si":
            strings.append(_text(element))
    return strings if table else None


def _shared_strings(pkg: _Package) -> list[str]:
    """The shared strings, once a sheet's cells are read: none if the part is absent; refused if it is no table."""
    strings = pkg.parsed.get("xl/sharedstrings.xml", [])
    info = pkg.find("xl/sharedStrings.xml")
    if strings is None and info is not None:
        raise pkg.refuse("bad-xml", "is not a shared-strings table (expected <sst>)", info.filename)
    return strings or []


def _properties(pkg: _Package, info: zipfile.ZipInfo) -> dict[str, str]:
    """The document properties a returned file is identified by, from docProps/core.xml when present."""
    return {_local(el.tag): el.text or "" for el in pkg.children(info) if _local(el.tag) in _PROPERTIES}


# The workbook's own parts, read as they are checked (lower-case names): each function reads what is used of one.
_READERS: dict[str, Callable[[_Package, zipfile.ZipInfo], Any]] = {
    "xl/workbook.xml": _sheet_entries, "xl/styles.xml": _date_styles, "xl/sharedstrings.xml": _strings,
    "docprops/core.xml": _properties}


# --- the cells -----------------------------------------------------------------------------------------------------


def _read_sheet(pkg: _Package, sheet: str, info: zipfile.ZipInfo, strings: list[str],
                dates: frozenset[int] = frozenset()) -> dict[tuple[int, int], Cell]:
    """A worksheet's cells that hold something: (row, col) from zero -> Cell, read cell by cell as the part is
    parsed (the cells of the first <sheetData>). A cell or row without a reference follows the one before it, as
    the format allows; a cell given twice is refused (which one would count?)."""
    cells: dict[tuple[int, int], Cell] = {}
    row_at = col_at = -1
    data = seen = in_row = False
    for event, element, depth in pkg.elements(info, whole=3):
        tag = _local(element.tag)
        if depth == 0 and tag != "worksheet":
            break
        if depth == 1 and tag == "sheetData":
            data = event == "start" and not seen
            seen = True
        elif depth == 2 and data and event == "start":
            in_row = tag == "row"
            if in_row:
                row_at, col_at = _row_index(pkg, sheet, element, row_at), -1
        elif depth == 3 and data and in_row and event == "end" and tag == "c":
            col_at = _read_cell(pkg, sheet, element, (row_at, col_at), cells, strings, dates)
    if not seen:
        raise pkg.refuse("bad-xml", f"holds sheet {_show(sheet)}, which is not a worksheet (a chart sheet?); expected "
                         "a worksheet with cells", info.filename)
    return cells


def _read_cell(pkg: _Package, sheet: str, element: Element, at_previous: tuple[int, int],
               cells: dict[tuple[int, int], Cell], strings: list[str], dates: frozenset[int]) -> int:
    """One <c> of a row into `cells`; returns its column (the next cell without a reference follows it)."""
    row_at, col_at = at_previous
    ref = element.get("r")
    at = (row_at, col_at + 1) if ref is None else _position(ref)
    where = f"{sheet}!{_reference(row_at, col_at + 1) if ref is None else ref}"
    if at is None or at[1] >= _MAX_COL:
        raise pkg.refuse("bad-cell", f"is not a cell reference (expected a column A to XFD and a row 1 to "
                         f"{_MAX_ROW}, e.g. F7)", where)
    if at in cells:
        raise pkg.refuse("bad-cell", "is given twice in the sheet (a forged file?)", where)
    cell = _cell(pkg, element, strings, where, dates)
    if cell is not None:
        cells[at] = cell
    return at[1]


def _row_index(pkg: _Package, sheet: str, row: Element, previous: int) -> int:
    """A <row>'s index from zero: its r attribute, or the one after the row before it."""
    text = row.get("r")
    if text is None and previous + 1 < _MAX_ROW:
        return previous + 1
    text = str(previous + 2) if text is None else text
    if not re.fullmatch(r"[0-9]{1,7}", text) or not 1 <= int(text) <= _MAX_ROW:
        raise pkg.refuse("bad-cell", f"has a row numbered {_show(text)}; expected 1 to {_MAX_ROW}", sheet)
    return int(text) - 1


def _cell(pkg: _Package, element: Element, strings: list[str], where: str,
          dates: frozenset[int] = frozenset()) -> Cell | None:
    """One <c>: its value by its type (t), its formula if it has an <f>; None if it holds neither."""
    kind = element.get("t", "n")
    f, v = _child(element, "f"), _child(element, "v")
    text = None if v is None else v.text or ""
    formula = None if f is None else f.text or ""
    value: float | str | bool | None
    if kind == "n":
        value = None if text is None or not text.strip() else _number(pkg, text, where)
    elif kind == "s":
        value = None if text is None else _shared(pkg, text, strings, where)
    elif kind == "inlineStr":
        inline = _child(element, "is")
        value = None if inline is None else _text(inline)
    elif kind == "str":
        value = None if text is None else _unescape(text)
    elif kind == "b":
        value = None if text is None else _BOOLEANS.get(text.strip())
        if text is not None and value is None:
            raise pkg.refuse("bad-cell", f"is a boolean cell holding {_show(text)}; expected 0 or 1", where)
    elif kind == "e":
        value = text
    else:
        raise pkg.refuse("bad-cell", f"has cell type t={_show(kind)}, which Excel does not write for a cell (expected "
                         "n, s, inlineStr, str, b or e)", where)
    if value is None and formula is None:
        return None
    style = element.get("s", "0")
    shown_as_date = isinstance(value, float) and style.isdigit() and int(style) in dates
    return Cell(value, formula, kind == "e", shown_as_date)


def _number(pkg: _Package, text: str, where: str) -> float:
    """A number cell's text as a float. NaN and infinity are kept as written (Excel never writes them: callers
    decide); anything else that is not a number is refused (Python's float() alone would take '1_000')."""
    if not _NUMBER.fullmatch(text.strip()):
        raise pkg.refuse("bad-cell", f"is a number cell holding {_show(text)}, which is not a number", where)
    return float(text)


def _shared(pkg: _Package, text: str, strings: list[str], where: str) -> str:
    index = int(text) if re.fullmatch(r"[0-9]{1,10}", text.strip()) else None
    if index is None or index >= len(strings):
        raise pkg.refuse("bad-cell", f"refers to shared string {_show(text)}, but the file has {len(strings)} "
                         "shared strings", where)
    return strings[index]


def _text(item: Element) -> str:
    """A string item's text (<si> or <is>): its <t>, or its rich-text runs' <t>s joined; phonetic guides (<rPh>)
    are not part of the text."""
    parts: list[str] = []
    for child in item:
        name = _local(child.tag)
        if name == "t":
            parts.append(child.text or "")
        elif name == "r":
            parts.extend(t.text or "" for t in child if _local(t.tag) == "t")
    return _unescape("".join(parts))


def _unescape(text: str) -> str:
    """OOXML writes characters XML cannot hold as _xHHHH_ (and a literal '_x' as _x005F_x)."""
    return _ESCAPED.sub(lambda m: chr(int(m[1], 16)), text) if "_x" in text else text


def _position(ref: str) -> tuple[int, int] | None:
    """'F7' -> (6, 5); None if it is not a reference inside Excel's grid."""
    match = _CELL_REF.fullmatch(ref)
    if match is None:
        return None
    col = 0
    for letter in match[1]:
        col = col * 26 + ord(letter) - ord("A") + 1
    row = int(match[2])
    return (row - 1, col - 1) if 1 <= row <= _MAX_ROW and 1 <= col <= _MAX_COL else None


def _reference(row: int, col: int) -> str:
    letters = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return f"{letters}{row + 1}"


# --- small helpers -------------------------------------------------------------------------------------------------


def _norm(name: str) -> str:
    """A member name as it is compared: Excel ignores case, and a name may come with backslashes or a leading '/'."""
    return name.replace("\\", "/").lstrip("/").lower()


def _local(tag: Any) -> str:
    """An element's name without its namespace: transitional and strict OOXML name the same things differently."""
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _child(element: Element, name: str) -> Element | None:
    return next((child for child in element if _local(child.tag) == name), None)


def _namespaced(element: Element, name: str) -> str | None:
    """A namespaced attribute (r:id) by its local name, whatever the namespace."""
    return next((value for key, value in element.attrib.items() if key.startswith("{") and _local(key) == name), None)


def _show(text: Any, limit: int = 60) -> str:
    """Untrusted text as a message shows it: quoted, escaped, clipped."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[:limit - 4] + "...'"


def _clip(exc: BaseException, limit: int = 120) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _sizes(n: int, limit: int) -> tuple[str, str]:
    """A size and the limit it is over, in words that differ: in bytes where rounding would show them equal (not
    "20.0 MB, over the 20.0 MB")."""
    shown = _size(n), _size(limit)
    return shown if shown[0] != shown[1] else (f"{n:,} bytes", f"{limit:,} bytes")


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    return f"{n / 1024:,.1f} kB" if n < _MB else f"{n / _MB:,.1f} MB"
