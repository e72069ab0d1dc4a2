"""Signed notes (C2SP signed-note, the format of Go's ``golang.org/x/mod/sumdb/note``)
with Ed25519 keys, and the errors of evidence checking.

A signed note is a text ending in a newline, a blank line, then one or more
signature lines ``— <key name> <base64(key id || signature)>`` (an em dash,
U+2014).  The signature covers the text including its final newline.  The key
id of an Ed25519 key is the first four bytes (big-endian) of
``SHA-256(key name || 0x0A || 0x01 || 32-byte public key)``.

Key texts, as Go's ``note`` package writes them:

* verifier key (public): ``<name>+<key id, 8 hex>+<base64(0x01 || public key)>``
  — what ``tonk key`` prints and ``--key`` takes;
* signer key (private): ``PRIVATE+KEY+<name>+<key id>+<base64(0x01 || 32-byte seed)>``
  — the content of a store's key file, never printed.

Ed25519 comes from the optional ``cryptography`` package (``tonk[evidence]``);
every function that needs it says so when it is missing.
"""

from __future__ import annotations

import base64
import binascii
import struct
from hashlib import sha256
from typing import Any, NamedTuple, Sequence

from .errors import StoreError

ALG_ED25519 = 0x01
DASH = "\u2014 "
MAX_SIGNATURES = 100
INSTALL_HINT = "signing and verifying evidence needs the optional extra: pip install 'tonk[evidence]'"


class EvidenceError(StoreError):
    """A receipt, checkpoint, proof or key that cannot be used: malformed, a wrong key or
    signature, or ``cryptography`` missing.  Exit 2: nothing was found out about the store."""


class MalformedEvidence(EvidenceError):
    """The text is not a well-formed note, receipt, checkpoint, proof or key."""


class WrongKey(EvidenceError):
    """The note is not signed by the key the verifier trusts."""


class BadSignature(EvidenceError):
    """A signature by the trusted key does not verify: the text or the signature was changed after signing."""


def ed25519() -> Any:
    """The ``cryptography`` Ed25519 module, or :class:`EvidenceError` saying how to install it."""
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519 as mod
    except ImportError:
        raise EvidenceError(INSTALL_HINT) from None
    return mod


def check_key_name(name: str) -> None:
    if not name or "+" in name or any(c.isspace() for c in name) or any(ord(c) < 0x20 for c in name):
        raise MalformedEvidence(f"a key name must be non-empty, without spaces or '+': {name!r}")


def key_id(name: str, public_key: bytes) -> int:
    """The 32-bit key id of an Ed25519 key named ``name``."""
    return struct.unpack(">I", sha256(name.encode("utf-8") + b"\n" + bytes([ALG_ED25519]) + public_key).digest()[:4])[0]


def _b64decode(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise MalformedEvidence(f"{what} is not base64") from None


class VerifierKey(NamedTuple):
    """A public key: its name, 32-bit id and the 32 bytes of the Ed25519 key."""

    name: str
    id: int
    public_key: bytes

    @classmethod
    def make(cls, name: str, public_key: bytes) -> "VerifierKey":
        check_key_name(name)
        return cls(name, key_id(name, public_key), public_key)

    def text(self) -> str:
        return f"{self.name}+{self.id:08x}+{base64.b64encode(bytes([ALG_ED25519]) + self.public_key).decode()}"

    @classmethod
    def parse(cls, text: str) -> "VerifierKey":
        """A verifier key from its text; :class:`MalformedEvidence` naming what is wrong."""
        text = text.strip()
        parts = text.split("+", 2)  # the base64 key may itself hold '+'
        if len(parts) != 3:
            raise MalformedEvidence("a public key is <name>+<key id>+<base64 key> (as tonk key prints it)")
        name, hex_id, b64 = parts
        check_key_name(name)
        if len(hex_id) != 8 or any(c not in "0123456789abcdef" for c in hex_id):
            raise MalformedEvidence(f"the public key's id {hex_id!r} is not 8 lowercase hex digits")
        raw = _b64decode(b64, "the public key")
        if len(raw) != 33 or raw[0] != ALG_ED25519:
            raise MalformedEvidence("the public key is not an Ed25519 key (algorithm 1, 32 bytes)")
        key = cls(name, int(hex_id, 16), raw[1:])
        if key_id(name, key.public_key) != key.id:
            raise MalformedEvidence(f"the public key's id {hex_id} does not match its name and key")
        return key

    def verify(self, signature: bytes, message: bytes) -> bool:
        mod = ed25519()
        from cryptography.exceptions import InvalidSignature

        try:
            mod.Ed25519PublicKey.from_public_bytes(self.public_key).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True

    def describe(self) -> str:
        return f"{self.name} (key id {self.id:08x})"


class SignerKey:
    """A private Ed25519 key with its name.  Its text (:meth:`text`) is for the key file
    only; ``repr`` and ``str`` never show it."""

    __slots__ = ("name", "_private", "verifier")

    def __init__(self, name: str, private: Any):
        check_key_name(name)
        self.name = name
        self._private = private
        from cryptography.hazmat.primitives import serialization

        pub = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.verifier = VerifierKey.make(name, pub)

    @classmethod
    def generate(cls, name: str) -> "SignerKey":
        return cls(name, ed25519().Ed25519PrivateKey.generate())

    @classmethod
    def parse(cls, text: str) -> "SignerKey":
        """The key from its file text; :class:`MalformedEvidence` (never quoting the text)."""
        mod = ed25519()
        parts = text.strip().split("+", 4)  # the base64 key may itself hold '+'
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise MalformedEvidence("not a signing key (PRIVATE+KEY+<name>+<key id>+<base64 key>)")
        name, hex_id, b64 = parts[2:]
        raw = _b64decode(b64, "the signing key")
        if len(raw) != 33 or raw[0] != ALG_ED25519:
            raise MalformedEvidence("the signing key is not an Ed25519 key")
        key = cls(name, mod.Ed25519PrivateKey.from_private_bytes(raw[1:]))
        if f"{key.verifier.id:08x}" != hex_id:
            raise MalformedEvidence("the signing key's id does not match its key")
        return key

    def text(self) -> str:
        from cryptography.hazmat.primitives import serialization

        seed = self._private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
        return f"PRIVATE+KEY+{self.name}+{self.verifier.id:08x}+{base64.b64encode(bytes([ALG_ED25519]) + seed).decode()}"

    def sign(self, message: bytes) -> bytes:
        return self._private.sign(message)

    def __repr__(self) -> str:
        return f"SignerKey({self.verifier.describe()})"

    __str__ = __repr__


class Signature(NamedTuple):
    name: str
    id: int
    signature: bytes


class Note(NamedTuple):
    """A parsed signed note: the signed ``text`` (ending in a newline) and its signatures."""

    text: str
    signatures: list[Signature]


def check_text(text: str, what: str = "the note") -> None:
    """A note text: ends in a newline, no control characters other than newlines."""
    if not text.endswith("\n"):
        raise MalformedEvidence(f"{what} does not end in a newline")
    for c in text:
        if ord(c) < 0x20 and c != "\n":
            raise MalformedEvidence(f"{what} holds a control character (U+{ord(c):04X})")


def sign(text: str, signer: SignerKey) -> str:
    """The signed note of ``text`` (which must end in a newline) by ``signer``."""
    check_text(text)
    sig = signer.sign(text.encode("utf-8"))
    blob = struct.pack(">I", signer.verifier.id) + sig
    return f"{text}\n{DASH}{signer.name} {base64.b64encode(blob).decode()}\n"


def parse(data: bytes | str, what: str) -> Note:
    """A signed note from its bytes; :class:`MalformedEvidence` naming ``what`` and the problem."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedEvidence(f"{what} is not UTF-8 text (byte {exc.start})") from None
    data = data.replace("\r\n", "\n")  # a copy that went through a Windows editor
    if not data:
        raise MalformedEvidence(f"{what} is empty")
    check_text(data, what)
    split = data.rfind("\n\n")
    if split < 0:
        raise MalformedEvidence(f"{what} has no signature (no blank line before signature lines)")
    text, tail = data[: split + 1], data[split + 2 :]
    lines = tail.split("\n")
    if lines[-1] != "" or len(lines) < 2:
        raise MalformedEvidence(f"{what} has no signature lines after its blank line")
    sigs: list[Signature] = []
    for n, line in enumerate(lines[:-1], 1):
        if not line.startswith(DASH):
            raise MalformedEvidence(f"{what}: signature line {n} does not start with an em dash and a space")
        name, sep, b64 = line[len(DASH) :].partition(" ")
        if not sep or " " in b64:
            raise MalformedEvidence(f"{what}: signature line {n} is not '\u2014 <key name> <base64 signature>'")
        check_key_name(name)
        blob = _b64decode(b64, f"{what}: signature line {n}")
        if len(blob) < 5:
            raise MalformedEvidence(f"{what}: signature line {n} is too short")
        sigs.append(Signature(name, struct.unpack(">I", blob[:4])[0], blob[4:]))
    if len(sigs) > MAX_SIGNATURES:
        raise MalformedEvidence(f"{what} has more than {MAX_SIGNATURES} signatures")
    return Note(text, sigs)


def open_note(note: Note, trusted: Sequence[VerifierKey], what: str) -> VerifierKey:
    """The trusted key that signed ``note``.

    As the signed-note spec says: signatures of unknown keys are ignored; a signature
    whose name and id match a trusted key must verify (:class:`BadSignature` if not);
    :class:`WrongKey` when no trusted key signed the note."""
    by_id = {(k.name, k.id): k for k in trusted}
    good = None
    for sig in note.signatures:
        key = by_id.get((sig.name, sig.id))
        if key is None:
            continue
        if not key.verify(sig.signature, note.text.encode("utf-8")):
            raise BadSignature(f"{what}: the signature by {key.describe()} does not verify: the text or the signature was changed after signing")
        good = good or key
    if good is None:
        signers = ", ".join(f"{s.name} (key id {s.id:08x})" for s in note.signatures)
        want = ", ".join(k.describe() for k in trusted) or "none"
        raise WrongKey(f"{what} is signed by {signers}, not by a trusted key ({want})")
    return good
