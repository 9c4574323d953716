"""Checks shared by the client tests: declared frame schemas, a second (ordinary) member."""

from __future__ import annotations

import pandas as pd

from docsapi import DocsClient, frames


def assert_schema(frame: pd.DataFrame, name: str) -> None:
    """The frame has exactly the columns and dtypes declared for list ``name``, also empty."""
    assert {c: str(t) for c, t in frame.dtypes.items()} == {
        c: str(t) for c, t in frames.SCHEMAS[name].items()
    }


def member_client(sandbox) -> DocsClient:
    """A client acting as the demo's ordinary ``read`` member (not an organization admin)."""
    return DocsClient(token=sandbox.tokens["other-user"], base_url=sandbox.url)


def share_link_keys(sandbox, org_id: str, site_id: str) -> list[str]:
    """The secret keys of a site's share links, read over raw HTTP (the client masks them)."""
    import requests

    reply = requests.get(
        f"{sandbox.url}/orgs/{org_id}/sites/{site_id}/share-links",
        headers={"Authorization": f"Bearer {sandbox.token}"},
        timeout=10,
    )
    reply.raise_for_status()
    return [item["urls"]["published"].rpartition("share=")[2] for item in reply.json()["items"]]
