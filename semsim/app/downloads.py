"""Model archives downloaded on request into the per-user model directory.

Plugins declare the archives they know with the ``register_downloads`` hook
(:class:`~semsim.kernel.records.Download`); ``semsim models download NAME`` fetches one (http,
https or file URLs) with a progress bar, resumes an interrupted http download from its
``.part`` file, verifies the SHA-256, unpacks into a temporary directory and renames it
into place, so a model directory is either complete or absent. Nothing is downloaded at
import time or implicitly.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tarfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from ..kernel.errors import SemsimError
from ..kernel.models import MARKER, content_hashes, installed, models_dir, sha256_file
from ..kernel.records import Download


def known() -> dict[str, Download]:
    """Every registered download, by name."""
    from .plugins import downloads
    return downloads()


def _fetch(url: str, part: Path, progress: bool) -> None:
    """Download ``url`` into ``part``, resuming from its current size when the server allows."""
    from ..kernel.progress import bar as progress_bar
    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    try:
        response = urllib.request.urlopen(request, timeout=60)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and have:  # the part file already holds everything
            return
        raise
    with response:
        resumed = have and getattr(response, "status", 200) == 206
        if not resumed:
            have = 0
        length = response.headers.get("Content-Length")
        total = have + int(length) if length and length.isdigit() else None
        with open(part, "ab" if resumed else "wb") as out, progress_bar(
                total=total, initial=have, unit="B", unit_scale=True, desc=part.name.strip(".").removesuffix(".part"),
                quiet=not progress, leave=True) as bar:
            for block in iter(lambda: response.read(1 << 16), b""):
                out.write(block)
                bar.update(len(block))
    if total is not None and part.stat().st_size < total:
        raise OSError(f"connection closed after {part.stat().st_size} of {total} bytes")


def _unpack(archive: Path, into: Path, name: str) -> None:
    if tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tar:
            tar.extractall(into, filter="data")
    elif zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            for member in z.namelist():
                if Path(member).is_absolute() or ".." in Path(member).parts:
                    raise SemsimError(f"{archive.name}: unsafe path {member!r} in archive")
            z.extractall(into)
    else:  # a single-file model, named as in its URL
        shutil.copy(archive, into / name)


def download(spec: Download, url: str | None = None, sha256: str | None = None,
             progress: bool = True) -> Path:
    """Download, verify and unpack a model; returns its directory (a no-op if installed)."""
    done = installed(spec.name)
    if done is not None:
        return done
    root = models_dir()
    root.mkdir(parents=True, exist_ok=True)
    url = url or spec.url
    expected = (sha256 or spec.sha256 or "").lower() or None
    part = root / f".{spec.name}.part"
    try:
        _fetch(url, part, progress)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        kept = part.exists() and part.stat().st_size > 0
        if not kept:
            part.unlink(missing_ok=True)
        resume = f"run the command again to resume ({part} keeps what arrived)" if kept else "nothing was kept"
        raise SemsimError(f"download of model {spec.name!r} from {url} failed: {exc}; {resume}") from None
    actual = sha256_file(part)
    if expected is not None and actual != expected:
        part.unlink()
        raise SemsimError(f"model {spec.name!r}: SHA-256 mismatch (expected {expected}, got {actual}); "
                          "the download was deleted")
    if expected is None:
        print(f"semsim: no published SHA-256 for {spec.name!r}; recorded {actual} (pass --sha256 to enforce one)",
              file=sys.stderr)
    tmp = root / f".{spec.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        _unpack(part, tmp, Path(urllib.parse.urlparse(url).path).name or spec.name)
        # the unpacked files' hashes: a model whose format runs code is loaded without
        # --trust-model only while its files are still these (semsim.kernel.models.check_trusted)
        (tmp / MARKER).write_text(json.dumps({"name": spec.name, "url": url, "sha256": actual,
                                              "verified": expected is not None, "subpath": spec.subpath,
                                              "files": content_hashes(tmp)}, indent=2), encoding="utf-8")
        os.replace(tmp, root / spec.name)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, SemsimError) as exc:
        part.unlink(missing_ok=True)  # a broken or unsafe archive is not resumable: start afresh next time
        why = str(exc) if isinstance(exc, SemsimError) else f"{type(exc).__name__}: {exc}"
        raise SemsimError(f"model {spec.name!r}: cannot unpack {url}: {why}; the download was deleted") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    part.unlink()
    return root / spec.name


def remove(name: str) -> bool:
    """Delete the installed model ``name`` (a symlink to a model directory: the link only)."""
    d = installed(name)
    if d is None:
        return False
    try:
        if d.is_symlink():
            d.unlink()
        else:
            shutil.rmtree(d)
    except OSError as exc:
        raise SemsimError(f"cannot remove model {name!r} ({d}): {exc.strerror or exc}") from None
    return True
