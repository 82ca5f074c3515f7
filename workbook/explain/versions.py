"""The two versions of a site that a change is explained between: each read and validated as any site file (with
its quotes and next fleet), and its models defined (no evaluation yet). The old one may be a git revision of the
same file: the site's folder at that revision (the file, its quotes and its fleets) is read from git into a
temporary folder, and is evaluated with this tool's catalog and defaults, whose differences are then said."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from workbook.book import Book
from workbook.inputs import CATALOG_PATH, DEFAULTS_PATH, InputError, load_site
from workbook.models import Loaded, Models, all_rules, all_specs, complete, define_models, load_all
from workbook.quotes import quotes_path

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
    """The site file as it was at a git revision: its folder at that revision written under `folder` (a temporary
    one the caller removes), then read there. Its name says the revision and its commit."""
    path = Path(path)
    top, commit = _git_place(revision, path)
    relative = path.resolve().relative_to(top)
    archive = _git(top, ["archive", "--format=tar", commit, "--", relative.parent.as_posix() or "."], revision, path)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter=_files_only)
    old = folder / relative
    if old.is_symlink() or not old.is_file():
        raise InputError("is not a file of that revision", file=path, key="--from", value=revision,
                         expected="a git revision at which the site file exists")
    v = version(old, f"{path} at {revision} ({commit[:12]})")
    return dataclasses.replace(v, templates=_templates_at(top, commit))


def _files_only(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """tarfile's "data" filter, with every link left out (a link in the repository is never followed out of the
    temporary folder, and a site file that is a link is not a site file of that revision)."""
    if member.issym() or member.islnk():
        return None
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None


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


def _templates_at(top: Path, commit: str) -> tuple[tuple[str, Any, Any], ...]:
    """The catalog and defaults the revision shipped with, where they differ from this tool's (where this tool's
    templates are in the site's repository: else they are not versioned with the site)."""
    out = []
    for template in (CATALOG_PATH, DEFAULTS_PATH):
        try:
            relative = template.resolve().relative_to(top)
        except ValueError:
            return ()
        try:
            done = _run_git(top, ["show", f"{commit}:{relative.as_posix()}"])
        except (OSError, subprocess.TimeoutExpired):
            return ()  # git went away after reading the site: the templates are not compared, as outside the repo
        then = yaml.safe_load(done.stdout) if done.returncode == 0 else None
        now = yaml.safe_load(template.read_text(encoding="utf-8"))
        if then != now:
            out.append((template.name, then, now))
    return tuple(out)


def scratch() -> tempfile.TemporaryDirectory[str]:
    """A temporary folder for a revision's files, removed when the explanation is done."""
    return tempfile.TemporaryDirectory(prefix="workbook-explain-")
