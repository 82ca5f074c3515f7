"""The two versions of a site that a change is explained between: each read and validated as any site file (with
its quotes and next fleet), and its models defined (no evaluation yet). The old one may be a git revision of the
same file: the file, its quotes and the next fleet it names at that revision (nothing else of the repository,
each file's size checked before it is read) are read from git into a temporary folder, and it is evaluated with
this tool's catalog and defaults, whose differences are then said (the revision's read as any site file)."""

from __future__ import annotations

import dataclasses
import hashlib
import posixpath
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbook.book.book import Book
from workbook.build import Loaded, Models, complete, define_models, load_all
from workbook.models import all_rules, all_specs
from workbook.models.generation.inputs import fleet_name
from workbook.site.errors import InputError, InputErrors
from workbook.site.load import load_site
from workbook.site.quotes import quotes_path
from workbook.site.templates import CATALOG_PATH, DEFAULTS_PATH
from workbook.site.yaml_reader import MAX_BYTES, YamlError, parse_yaml, read_yaml

GIT_TIMEOUT = 60  # seconds for one git command: a revision's folder is a few files


@dataclass(frozen=True)
class Version:
    """One side of the change: where it came from (as the reader names it), its file's SHA-256, its book."""

    name: str
    path: Path
    sha256: str
    loaded: Loaded
    book: Book
    models: Models
    templates: tuple[tuple[str, Any, Any], ...] = ()  # at a git revision: (file, then, now) of each that differs
    companions: tuple[tuple[str, str], ...] = ()  # the other files it was read from: its quotes, its next fleet's

    @property
    def files(self) -> str:
        """The files of this version and their SHA-256, as the outputs name them."""
        return "; ".join(f"{name} (SHA-256 {sha})" for name, sha in ((self.name, self.sha256), *self.companions))


def version(path: Path | str, name: str | None = None, read_as: Path | None = None) -> Version:
    """A site file as one side of a change. `read_as`: the site file an edited copy stands in for (its quotes and
    fleets are found beside that one; import-inputs' staged edit)."""
    path = Path(path)
    if read_as is None:
        loaded = load_all(path)
    else:
        site = load_site(path, all_specs(), rules=all_rules())
        loaded = complete(dataclasses.replace(site, path=read_as))
    book, models = define_models(loaded)
    return Version(name or str(path), path, loaded.site.digest, loaded, book, models, companions=_companions(loaded))


def _companions(loaded: Loaded) -> tuple[tuple[str, str], ...]:
    out = []
    quotes = quotes_path(loaded.site.path)
    if loaded.quotes and quotes.is_file():
        out.append((f"quotes {quotes}", hashlib.sha256(quotes.read_bytes()).hexdigest()))
    if loaded.upgrade is not None:
        out.append((f"next fleet {loaded.upgrade.next_site.path}", loaded.upgrade.next_site.digest))
    return tuple(out)


def at_revision(revision: str, path: Path | str, folder: Path) -> Version:
    """The site file as it was at a git revision: the file, its quotes and the next fleet it names, each read from
    git (its size checked first) into `folder` (a temporary one the caller removes) where the file's folder was,
    then read there. Nothing else of the repository is read. Its name says the revision and its commit."""
    path = Path(path)
    top, commit = _git_place(revision, path)
    relative = path.resolve().relative_to(top).as_posix()
    data = _fetch(top, commit, relative, folder, revision, path)
    if data is None:
        raise InputError("is not a file of that revision", file=path, key="--from", value=revision,
                         expected="a git revision at which the site file exists")
    read = [relative, *(c for c in _companions_named(data, relative)
                        if _fetch(top, commit, c, folder, revision, path) is not None)]
    names = {str(folder / r): f"{r} at {revision}" for r in read}  # how messages name the files read
    try:
        v = version(folder / relative, f"{path} at {revision} ({commit[:12]})")
    except InputError as e:
        raise _as_at(e, names) from None
    companions = tuple((_named_at(name, names), sha) for name, sha in v.companions)
    return dataclasses.replace(v, templates=_templates_at(top, commit, revision, path), companions=companions)


def _named_at(text: str, names: dict[str, str]) -> str:
    """Text naming files of the temporary folder, naming them as the repository does: `inputs/site.yaml at HEAD~1`
    (the temporary folder is gone when the text is read)."""
    for temporary, shown in names.items():
        text = text.replace(temporary, shown)
    return text


def _as_at(error: InputError, names: dict[str, str]) -> InputError:
    """A refusal of a file read from the revision, naming it by its repository path at the revision."""
    if isinstance(error, InputErrors):
        return InputErrors([_as_at(e, names) for e in error.errors])
    changes: dict[str, Any] = {}
    if error.file is not None:
        changes["file"] = _named_at(str(error.file), names)
    if error.where is not None:
        changes["where"] = _named_at(error.where, names)
    return error.located(**changes)


def _companions_named(data: bytes, relative: str) -> list[str]:
    """The files beside a site file that its book reads (repository paths): its quotes, and the next fleet its
    generation: section names (where the name is one generation_inputs takes)."""
    folder = posixpath.dirname(relative)
    out = [posixpath.join(folder, "quotes", posixpath.basename(posixpath.splitext(relative)[0]) + ".yaml")]
    try:
        site = parse_yaml(data, Path(relative))
    except YamlError:
        return out  # the site file is refused when it is read, as any
    generation = site.get("generation") if isinstance(site, dict) else None
    fleet = generation.get("next_fleet") if isinstance(generation, dict) else None
    if fleet_name(fleet):
        out.append(posixpath.normpath(posixpath.join(folder, fleet)))
    return out


def _fetch(top: Path, commit: str, relative: str, folder: Path, revision: str, path: Path) -> bytes | None:
    """A file of the commit written under `folder` at its repository path; None (nothing written) where the commit
    has no file there."""
    data = _blob(top, commit, relative, revision, path)
    if data is not None:
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return data


def _blob(top: Path, commit: str, relative: str, revision: str, path: Path) -> bytes | None:
    """A file's bytes at the commit, its size checked before it is read (a site file, its quotes, a fleet and the
    templates are each at most yaml_reader.MAX_BYTES); None where the commit has no regular file there (nothing, a
    folder, a link: a link is never followed, in or out of the repository; a submodule)."""
    listing = _git(top, ["--literal-pathspecs", "ls-tree", "-l", "-z", commit, "--", relative], revision, path)
    fields = listing.split(b"\t", 1)[0].split()
    if len(fields) != 4 or fields[1] != b"blob" or fields[0] not in (b"100644", b"100755"):
        return None
    size = int(fields[3])
    if size > MAX_BYTES:
        raise InputError(f"is {size:,} bytes at that revision, over the {MAX_BYTES:,} a site file may be",
                         file=f"{relative} at {revision}", key="--from", value=revision,
                         expected=f"a site, quotes, fleet or template file of at most {MAX_BYTES:,} bytes")
    return _git(top, ["cat-file", "blob", fields[2].decode()], revision, path)


def _git_place(revision: str, path: Path) -> tuple[Path, str]:
    """The repository's top folder and the revision's commit; a one-line error where either cannot be found."""
    if not path.is_file():
        raise InputError("is not a file", file=path, expected="a site file in a git repository")
    if not revision or revision.startswith("-") or any(c.isspace() for c in revision):
        raise InputError("is not a git revision", file=path, key="--from", value=revision,
                         expected="a commit, tag or branch (HEAD~1, v1.2, main)")
    top = Path(_git(path.resolve().parent, ["rev-parse", "--show-toplevel"], revision, path).decode().strip())
    commit = _git(top, ["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], revision, path)
    return top, commit.decode().strip()


def _git(where: Path, args: list[str], revision: str, path: Path) -> bytes:
    """git's output, or a one-line error naming the site file and the revision."""
    try:
        done = _run_git(where, args)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise InputError(f"could not be read from git ({type(e).__name__})", file=path, key="--from",
                         value=revision, expected="git installed and the file in a repository") from None
    if done.returncode != 0:
        raise InputError("is not a revision at which git knows the site file", file=path, key="--from",
                         value=revision, expected="a commit, tag or branch of the file's repository") from None
    return done.stdout


def _run_git(where: Path, args: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(where), *args], capture_output=True, timeout=GIT_TIMEOUT, check=False)


def _templates_at(top: Path, commit: str, revision: str, path: Path) -> tuple[tuple[str, Any, Any], ...]:
    """The catalog and defaults the revision shipped with, where they differ from this tool's (where this tool's
    templates are in the site's repository: else they are not versioned with the site). Each read as the site
    loader reads a file (its size checked first; no aliases): a revision's template is untrusted input."""
    out = []
    for template in (CATALOG_PATH, DEFAULTS_PATH):
        try:
            relative = template.resolve().relative_to(top).as_posix()
        except ValueError:
            return ()
        shown = f"{relative} at {revision}"
        try:
            data = _blob(top, commit, relative, revision, path)
            then = None if data is None else parse_yaml(data, Path(shown))
        except YamlError as e:
            raise InputError(e.problem, file=shown, key=e.key, line=e.line, column=e.column) from None
        now, _ = read_yaml(template)
        if then != now:
            out.append((template.name, then, now))
    return tuple(out)


def scratch() -> tempfile.TemporaryDirectory[str]:
    """A temporary folder for a revision's files, removed when the explanation is done."""
    return tempfile.TemporaryDirectory(prefix="workbook-explain-")
