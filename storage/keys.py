"""A store's signing key: one file, permissions 0600, holding the private key as a Go
``note`` signer key (``PRIVATE+KEY+<name>+<key id>+<base64>``, see :mod:`.signed_note`).

Where (:func:`store_key_path`): the file ``TONK_KEY_FILE`` names, for any store; else,
for a SQLite store, beside it (``tonk.db.key`` for ``tonk.db``); for a PostgreSQL store
(a database has no "beside"), in the user's configuration directory:
``$XDG_CONFIG_HOME/tonk/keys/`` (``~/.config/tonk/keys/``), one file per store URL
(``<host>_<database>-<12 hex digits of the URL's sha256>.key``, the password and any other
secret of the URL left out).
Several service nodes sharing one database sign with one key when each is given the
same file through ``TONK_KEY_FILE``.

The key is never printed, exported or written into the store: the store keeps only the
public key (table ``evidence_keys``), so a store copied without its key file still
verifies every receipt and checkpoint signed before.  A key file that others may read
(group or world permission bits) is refused, as ssh refuses such a key.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import stat
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .signed_note import EvidenceError, MalformedEvidence, SignerKey

KEY_SUFFIX = ".key"
KEY_FILE_ENV = "TONK_KEY_FILE"
#: the connection parameters a PostgreSQL URL's query may carry that are secrets (libpq's
#: ``password`` and ``sslpassword``): never printed, nor hashed into a key file's name
SECRET_PARAMETERS = ("password", "sslpassword")


def key_path(store_path: str | Path) -> Path:
    """Where the signing key of the SQLite store at ``store_path`` lives by default."""
    return Path(f"{store_path}{KEY_SUFFIX}")


def server_key_path(url: str) -> Path:
    """Where the signing key of the PostgreSQL store at ``url`` lives by default."""
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() not in SECRET_PARAMETERS])
    identity = urlunsplit(parts._replace(netloc=f"{user}@{netloc}" if user else netloc, query=query))
    label = re.sub(r"[^A-Za-z0-9.-]+", "_", f"{parts.hostname or 'local'}_{parts.path.lstrip('/') or 'db'}")[:40]
    digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:12]
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "tonk" / "keys" / f"{label}-{digest}{KEY_SUFFIX}"


def store_key_path(store: Any) -> Path:
    """Where ``store`` keeps its signing key: ``TONK_KEY_FILE``, else where the store says
    (``store.default_key_path()``: beside a SQLite file, :func:`server_key_path` of a
    PostgreSQL store's URL)."""
    given = os.environ.get(KEY_FILE_ENV)
    if given:
        return Path(given)
    return Path(store.default_key_path())


def load_signer(path: Path) -> SignerKey | None:
    """The key in ``path``, or ``None`` when there is no such file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EvidenceError(f"cannot read the signing key {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise EvidenceError(f"the signing key {path} is not a regular file")
    if st.st_mode & 0o077:
        raise EvidenceError(
            f"the signing key {path} can be read by others (mode {stat.S_IMODE(st.st_mode):04o}); run: chmod 600 {path}"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EvidenceError(f"cannot read the signing key {path}: {getattr(exc, 'strerror', None) or exc.__class__.__name__}") from None
    try:
        return SignerKey.parse(text)
    except MalformedEvidence as exc:
        raise EvidenceError(f"{path} is not a usable signing key: {exc}") from None


def create_signer(path: Path, name: str) -> SignerKey:
    """A new key named ``name`` written to ``path`` with permissions 0600; when another
    process created the file first, that key (the file is written whole, then linked
    into place, so it is never seen half-written)."""
    key = SignerKey.generate(name)
    directory = path.parent if str(path.parent) else Path(".")
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise EvidenceError(f"cannot create the directory {directory} for the signing key: {exc.strerror or exc}") from None
    tmp = directory / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, (key.text() + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            existing = load_signer(path)
            if existing is None:
                raise EvidenceError(f"the signing key {path} vanished while it was being created") from None
            return existing
    except OSError as exc:
        raise EvidenceError(f"cannot create the signing key {path}: {exc.strerror or exc}") from None
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return key
