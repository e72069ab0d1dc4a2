"""Signed notes interoperate with Go's golang.org/x/mod/sumdb/note: its published key and
note come out byte for byte; malformed notes and keys are refused naming the problem."""

from __future__ import annotations

import re

import pytest

from tonk.storage.signed_note import (
    BadSignature,
    MalformedEvidence,
    SignerKey,
    VerifierKey,
    WrongKey,
    key_id,
    open_note,
    parse,
    sign,
)

# The example of the Go note package's documentation and tests
GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
GO_NOTE = GO_TEXT + "\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"


def test_the_go_reference_key_and_note():
    signer = SignerKey.parse(GO_SKEY)
    assert signer.verifier.text() == GO_VKEY
    assert signer.text() == GO_SKEY
    assert sign(GO_TEXT, signer) == GO_NOTE
    vkey = VerifierKey.parse(GO_VKEY)
    assert vkey.id == 0xC74F20A3 == key_id("PeterNeumann", vkey.public_key)
    assert open_note(parse(GO_NOTE, "note"), [vkey], "note") == vkey


def test_a_changed_text_or_another_key_is_refused():
    vkey = VerifierKey.parse(GO_VKEY)
    with pytest.raises(BadSignature, match="does not verify"):
        open_note(parse(GO_NOTE.replace("answer", "ANSWER"), "note"), [vkey], "note")
    other = SignerKey.generate("PeterNeumann")
    with pytest.raises(WrongKey, match="not by a trusted key"):
        open_note(parse(GO_NOTE, "note"), [other.verifier], "note")
    # a signature of an unknown key is ignored when a trusted one verifies
    both = GO_NOTE + sign(GO_TEXT, other).split("\n\n")[1]
    assert open_note(parse(both, "note"), [vkey], "note") == vkey


def test_secrets_are_not_in_the_repr():
    signer = SignerKey.parse(GO_SKEY)
    assert "AYEKFALV" not in repr(signer) and "AYEKFALV" not in str(signer)


@pytest.mark.parametrize(
    "data, problem",
    [
        (b"", "is empty"),
        (b"\xff\xfe", "not UTF-8"),
        (GO_TEXT, "no signature"),
        (GO_NOTE.rstrip("\n"), "does not end in a newline"),
        (GO_NOTE.replace("\u2014", "--"), "does not start with an em dash"),
        (GO_NOTE.replace("x08go", "x08g!"), "not base64"),
        (GO_NOTE.replace("problem,", "problem,\x07"), "control character"),
        (GO_TEXT + "\n\u2014 PeterNeumann AAAA\n", "too short"),
        (GO_TEXT + "\n\u2014 PeterNeumann\n", "is not"),
    ],
)
def test_malformed_notes(data, problem):
    with pytest.raises(MalformedEvidence, match=problem):
        parse(data, "note")


@pytest.mark.parametrize(
    "text, problem",
    [
        ("PeterNeumann+c74f20a3", "<name>+<key id>+<base64 key>"),
        ("PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "does not match"),
        ("PeterNeumann+c74f20a3+AhpjZHFQ8OEwyHdDBcW84SqoGB+xWSaqr8sMTiLNbLXRNQ==", "not an Ed25519 key"),
        ("Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "without spaces"),
        ("PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "8 lowercase hex"),
    ],
)
def test_malformed_public_keys(text, problem):
    with pytest.raises(MalformedEvidence, match=re.escape(problem)):
        VerifierKey.parse(text)
