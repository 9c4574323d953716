"""Page documents: a small block model rendered as markdown or as the API's JSON document.

A document is a tuple of blocks, each a plain dict with a ``type``:

``heading`` (level, text), ``paragraph`` (text), ``list`` (ordered, items),
``code`` (syntax, lines), ``hint`` (style, text), ``quote`` (text), ``divider``,
``image`` (file, alt) and ``reusable`` (id, slug).

Text may carry ``**bold**``, ```code``` and ``[label](https://url)`` inline marks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Block = Mapping[str, Any]

_INLINE = re.compile(
    r"\*\*(?P<bold>[^*]+)\*\*|`(?P<code>[^`]+)`|\[(?P<label>[^\]]+)\]\((?P<url>[^)]+)\)"
)


def to_markdown(blocks: Sequence[Block], files: Mapping[str, str] | None = None) -> str:
    """Render blocks as GitBook-flavoured markdown.

    Parameters
    ----------
    blocks
        The document's blocks.
    files
        File id -> file name, to write image paths.

    Returns
    -------
    str
        The markdown text, ending with a newline.

    Examples
    --------
    >>> to_markdown([{"type": "heading", "level": 1, "text": "Hi"}])
    '# Hi\\n'
    """
    files = files or {}
    parts = [_block_markdown(block, files) for block in blocks]
    return "\n\n".join(parts) + "\n" if parts else ""


def _block_markdown(block: Block, files: Mapping[str, str]) -> str:
    kind = block["type"]
    if kind == "heading":
        return "#" * block["level"] + " " + block["text"]
    if kind == "paragraph":
        return block["text"]
    if kind == "list":
        if block["ordered"]:
            return "\n".join(f"{n}. {item}" for n, item in enumerate(block["items"], start=1))
        return "\n".join(f"* {item}" for item in block["items"])
    if kind == "code":
        return "```" + block["syntax"] + "\n" + "\n".join(block["lines"]) + "\n```"
    if kind == "hint":
        return f'{{% hint style="{block["style"]}" %}}\n{block["text"]}\n{{% endhint %}}'
    if kind == "quote":
        return "> " + block["text"]
    if kind == "divider":
        return "***"
    if kind == "image":
        name = files.get(block["file"], block["file"])
        return f"![{block['alt']}](.gitbook/assets/{name})"
    if kind == "reusable":
        return f'{{% include "../.gitbook/includes/{block["slug"]}.md" %}}'
    raise ValueError(f"unknown block type {kind!r}")


def to_json_document(blocks: Sequence[Block]) -> dict[str, Any]:
    """Render blocks as the API's JSONDocument (``{"object": "document", "data", "nodes"}``).

    Examples
    --------
    >>> to_json_document([{"type": "paragraph", "text": "Hi"}])["nodes"][0]["type"]
    'paragraph'
    """
    return {
        "object": "document",
        "data": {"schemaVersion": 1},
        "nodes": [_block_json(b) for b in blocks],
    }


def _block_json(block: Block) -> dict[str, Any]:
    kind = block["type"]
    if kind == "heading":
        return _block(f"heading-{block['level']}", _inlines(block["text"]), data={})
    if kind == "paragraph":
        return _block("paragraph", _inlines(block["text"]))
    if kind == "list":
        items = [
            _block("list-item", [_block("paragraph", _inlines(item))]) for item in block["items"]
        ]
        if block["ordered"]:
            return _block("list-ordered", items, data={"start": 1})
        return _block("list-unordered", items)
    if kind == "code":
        lines = [_block("code-line", [_text(line)], data={}) for line in block["lines"]]
        return _block("code", lines, data={"syntax": block["syntax"]})
    if kind == "hint":
        return _block(
            "hint", [_block("paragraph", _inlines(block["text"]))], data={"style": block["style"]}
        )
    if kind == "quote":
        return _block("blockquote", [_block("paragraph", _inlines(block["text"]))])
    if kind == "divider":
        return {"object": "block", "type": "divider", "isVoid": True, "data": {}}
    if kind == "image":
        image = {
            "object": "block",
            "type": "image",
            "isVoid": True,
            "data": {"ref": {"kind": "file", "file": block["file"]}, "alt": block["alt"]},
            "fragments": [],
        }
        return {"object": "block", "type": "images", "isVoid": False, "data": {}, "nodes": [image]}
    if kind == "reusable":
        ref = {"kind": "reusable-content", "reusableContent": block["id"]}
        return {"object": "block", "type": "reusable-content", "isVoid": True, "data": {"ref": ref}}
    raise ValueError(f"unknown block type {kind!r}")


def _block(
    kind: str, nodes: list[dict[str, Any]], data: dict[str, Any] | None = None
) -> dict[str, Any]:
    node: dict[str, Any] = {"object": "block", "type": kind, "isVoid": False, "nodes": nodes}
    if data is not None:
        node["data"] = data
    return node


def _text(text: str, marks: Iterable[str] = ()) -> dict[str, Any]:
    leaf = {"object": "leaf", "text": text, "marks": [{"object": "mark", "type": m} for m in marks]}
    return {"object": "text", "leaves": [leaf]}


def _inlines(text: str) -> list[dict[str, Any]]:
    """Split text into text nodes with bold/code marks and link inlines."""
    nodes: list[dict[str, Any]] = []
    position = 0
    for match in _INLINE.finditer(text):
        if match.start() > position:
            nodes.append(_text(text[position : match.start()]))
        if match["bold"]:
            nodes.append(_text(match["bold"], ["bold"]))
        elif match["code"]:
            nodes.append(_text(match["code"], ["code"]))
        else:
            ref = {"kind": "url", "url": match["url"]}
            nodes.append(
                {
                    "object": "inline",
                    "type": "link",
                    "isVoid": False,
                    "data": {"ref": ref},
                    "nodes": [_text(match["label"])],
                }
            )
        position = match.end()
    if position < len(text) or not nodes:
        nodes.append(_text(text[position:]))
    return nodes


def plain_text(blocks: Sequence[Block]) -> str:
    """The readable text of blocks (marks and link targets removed), for search.

    Examples
    --------
    >>> plain_text([{"type": "paragraph", "text": "See **this**"}])
    'See this'
    """
    pieces: list[str] = []
    for block in blocks:
        if "text" in block:
            pieces.append(_strip_marks(block["text"]))
        elif block["type"] == "list":
            pieces.extend(_strip_marks(item) for item in block["items"])
        elif block["type"] == "code":
            pieces.extend(block["lines"])
    return "\n".join(pieces)


def _strip_marks(text: str) -> str:
    return _INLINE.sub(lambda m: m["bold"] or m["code"] or m["label"], text)


def sections(blocks: Sequence[Block]) -> list[tuple[str, str]]:
    """Split blocks at headings: a list of (heading text, plain text of the section body).

    Text before the first heading belongs to a section with an empty title.
    """
    result: list[tuple[str, list[Block]]] = [("", [])]
    for block in blocks:
        if block["type"] == "heading":
            result.append((block["text"], []))
        else:
            result[-1][1].append(block)
    return [(title, plain_text(body)) for title, body in result if title or body]
