"""Digests and signatures of what docsapi writes: canonical JSON, SHA-256, HMAC-SHA256.

A *manifest* is a JSON object describing a file or a folder (a snapshot's ``snapshot.json``,
the ``.manifest.json`` beside a plan or an evidence file). It lists the SHA-256 of every
file it covers and is itself *sealed*: its ``integrity`` member holds the SHA-256 of the
rest of the manifest as canonical JSON (keys sorted, no whitespace, UTF-8), so a change to
any byte of what it describes, or to the manifest itself, shows.

Anyone can recompute a digest: a digest alone checks accidental damage only (:data:`UNSIGNED`).
With a signing key (made once per user, or ``DOCSAPI_SIGNING_KEY``: see
:mod:`docsapi.credentials.signing`) the seal also holds an HMAC-SHA256 of the same bytes,
which only a holder of the key can make: with a key at hand, a manifest that is unsigned, or
whose signature does not match, is refused. The key itself never appears in a manifest, a
message or a repr; a manifest records the key's *fingerprint* (``key_id``, a hash of the
key) so that a signature made with another key is told apart.

Examples
--------
>>> sealed = seal({"files": []}, None)
>>> sealed["integrity"]["digest"] == digest({"files": []})
True
>>> seal_problems(sealed, None)
[]
>>> seal_problems({**sealed, "files": ["x"]}, None)[0].split(":")[0]
'its content differs from its digest'
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docsapi.core.secret import Secret

__all__ = [
    "INTEGRITY",
    "MIN_KEY_LENGTH",
    "UNSIGNED",
    "Verdict",
    "canonical_json",
    "digest",
    "file_sha256",
    "is_signed",
    "key_id",
    "seal",
    "seal_fact",
    "seal_problems",
    "signed_with",
    "unsealed",
]

#: The member of a sealed manifest that holds its digest (and signature).
INTEGRITY = "integrity"
#: The shortest signing key accepted (characters): 32 hex digits are 128 bits.
MIN_KEY_LENGTH = 32
#: What ``docsapi verify`` says of what is sealed with a digest alone.
UNSIGNED_CONSEQUENCE = (
    "this checks accidental damage only; anyone who can write these files can re-seal them"
)
UNSIGNED = f"UNSIGNED: {UNSIGNED_CONSEQUENCE}"
_DIGEST = "sha256"
_SIGNATURE = "hmac-sha256"


def canonical_json(value: Any) -> bytes:
    """``value`` as canonical JSON bytes: keys sorted, no whitespace, UTF-8, no NaN.

    Examples
    --------
    >>> canonical_json({"b": 1, "a": [True, None, "é"]})
    b'{"a":[true,null,"\\xc3\\xa9"],"b":1}'
    """
    text = json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return text.encode("utf-8")


def digest(value: Any) -> str:
    """The SHA-256 (hex) of ``value`` as canonical JSON.

    Examples
    --------
    >>> digest({"a": 1}) == digest({"a": 1})
    True
    """
    return hashlib.sha256(canonical_json(value)).hexdigest()


def file_sha256(path: Path) -> str:
    """The SHA-256 (hex) of a file's bytes."""
    sha = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def key_id(key: Secret) -> str:
    """A short public name of a signing key (a hash of it; it does not reveal the key)."""
    return hashlib.sha256(b"docsapi signing key id\x00" + key.reveal().encode()).hexdigest()[:16]


def _signature(data: bytes, key: Secret) -> str:
    return hmac.new(key.reveal().encode(), data, hashlib.sha256).hexdigest()


def unsealed(manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` without its seal: what the digest and the signature cover."""
    return {name: value for name, value in manifest.items() if name != INTEGRITY}


def seal(manifest: dict[str, Any], key: Secret | None) -> dict[str, Any]:
    """A copy of ``manifest`` with its seal: the digest, and with ``key`` the signature.

    Parameters
    ----------
    manifest : dict
        JSON-able; a seal already there is replaced.
    key : Secret or None
        The signing key; None seals with the digest alone.

    Returns
    -------
    dict
        ``manifest`` with ``integrity``: ``{"digest_algorithm", "digest"}``, and with a key
        ``"signature_algorithm"``, ``"key_id"`` and ``"signature"`` too.
    """
    body = unsealed(manifest)
    data = canonical_json(body)
    integrity: dict[str, Any] = {
        "digest_algorithm": _DIGEST,
        "digest": hashlib.sha256(data).hexdigest(),
    }
    if key is not None:
        integrity.update(
            signature_algorithm=_SIGNATURE, key_id=key_id(key), signature=_signature(data, key)
        )
    return {**body, INTEGRITY: integrity}


def is_signed(manifest: dict[str, Any]) -> bool:
    """Whether ``manifest`` carries a signature (checked or not)."""
    integrity = manifest.get(INTEGRITY)
    return isinstance(integrity, dict) and "signature" in integrity


def seal_problems(manifest: dict[str, Any], key: Secret | None) -> list[str]:
    """What is wrong with ``manifest``'s seal; empty when it holds.

    Without ``key`` a signature cannot be checked and is not a problem (see
    :func:`is_signed`); with ``key`` an unsigned manifest, or one signed with another
    key, is.

    Parameters
    ----------
    manifest : dict
        A manifest as read from its file.
    key : Secret or None
        The signing key, when one is set.

    Returns
    -------
    list of str
        One short sentence per problem (never the key).
    """
    integrity = manifest.get(INTEGRITY)
    if not isinstance(integrity, dict) or not isinstance(integrity.get("digest"), str):
        return ["it carries no digest: it was not sealed by docsapi, or its seal was removed"]
    if integrity.get("digest_algorithm") != _DIGEST:
        return [f"its digest algorithm {integrity.get('digest_algorithm')!r} is not {_DIGEST}"]
    try:
        data = canonical_json(unsealed(manifest))
    except ValueError as exc:
        return [f"it holds a value JSON cannot state exactly ({exc})"]
    problems = []
    if not hmac.compare_digest(hashlib.sha256(data).hexdigest(), integrity["digest"]):
        problems.append("its content differs from its digest: it was changed after it was written")
    if key is None:
        return problems
    signature = integrity.get("signature")
    if not isinstance(signature, str):
        problems.append(
            "it is not signed, but a signing key is set: it was written without the key, "
            "or changed and re-hashed by someone without it"
        )
    elif integrity.get("key_id") != key_id(key):
        problems.append(
            f"it was signed with another key (key id {integrity.get('key_id')}, the key set "
            f"has key id {key_id(key)})"
        )
    elif not hmac.compare_digest(_signature(data, key), signature):
        problems.append(
            "its signature does not match: it was changed and re-hashed by someone without "
            "the signing key"
        )
    return problems


@dataclass(frozen=True)
class Verdict:
    """What checking a snapshot, a plan or an evidence file found (``docsapi verify``).

    Attributes
    ----------
    kind : str
        ``"snapshot"``, ``"plan"`` or ``"evidence"``.
    path : Path
        What was checked.
    problems : tuple of str
        One short sentence per problem; none when it verifies.
    facts : tuple of str
        What it is and how it is sealed (signed or not, signature checked or not).
    signed_with : str or None
        The fingerprint of the key whose signature was checked; None when it is unsigned,
        or signed with a key not on this machine (then it checks accidental damage only).
    """

    kind: str
    path: Path
    problems: tuple[str, ...]
    facts: tuple[str, ...] = ()
    signed_with: str | None = None

    @property
    def ok(self) -> bool:
        """Whether nothing is wrong."""
        return not self.problems


def seal_fact(manifest: dict[str, Any], key: Secret | None) -> str:
    """How ``manifest`` is sealed, in words (for a :class:`Verdict`'s facts).

    Examples
    --------
    >>> seal_fact(seal({}, None), None).split(";")[0]
    'UNSIGNED: this checks accidental damage only'
    """
    if not is_signed(manifest):
        return UNSIGNED
    signer = manifest[INTEGRITY].get("key_id")
    if key is None:
        return (
            f"signed with key {signer}, which is not on this machine: the signature was not "
            f"checked, so {UNSIGNED_CONSEQUENCE}"
        )
    return f"signed with key {signer}; the signature was checked"


def signed_with(manifest: dict[str, Any], key: Secret | None) -> str | None:
    """The fingerprint of ``key`` when ``manifest`` carries a signature made with it (its
    seal still to be checked, :func:`seal_problems`); None when unsigned or not checkable.

    Examples
    --------
    >>> signed_with(seal({}, None), None) is None
    True
    """
    if key is None or not is_signed(manifest):
        return None
    fingerprint = key_id(key)
    return fingerprint if manifest[INTEGRITY].get("key_id") == fingerprint else None
