"""Resource groups of the documentation-platform API, one class per group.

A :class:`~docsapi.client.DocsClient` creates each group on first use
(``client.spaces``, ``client.permissions``, …); all share the client's transport.
"""

from docsapi.resources.change_requests import ChangeRequests
from docsapi.resources.collections import Collections
from docsapi.resources.content import Content
from docsapi.resources.git import Git
from docsapi.resources.orgs import Orgs
from docsapi.resources.permissions import Permissions
from docsapi.resources.sites import Sites
from docsapi.resources.spaces import Spaces
from docsapi.resources.users import Users

__all__ = [
    "ChangeRequests",
    "Collections",
    "Content",
    "Git",
    "Orgs",
    "Permissions",
    "Sites",
    "Spaces",
    "Users",
]
