"""ipywidgets forms for every edit the documentation-platform API allows.

Each form is an ``ipywidgets`` container built for one client and one target. It sends
nothing while it is built: it loads when it is first displayed (saying "Loading…"
meanwhile), or when ``form.load()`` is called or Reload pressed. It then shows the current
values, checks entries as they are typed (a problem appears in red under its field and
Save stays disabled), sends only what changed, and shows the outcome or the API's error
in its ``status_output`` (also as plain text in ``.status``).

Importing this module imports ipywidgets; ``import docsapi`` alone does not.

Examples
--------
>>> from docsapi.widgets import UserProfileForm
>>> form = UserProfileForm(client)  # nothing sent yet
>>> form.load().id == admin_id  # what showing it does ("Loading…", then the values)
True
>>> form.display_name_text.value = "Ada L."
>>> form.save_button.click()
>>> form.status
'Saved display_name.'
"""

from __future__ import annotations

from docsapi.widgets.collection_permissions import CollectionPermissionEditor
from docsapi.widgets.git_sync import GitSyncForm
from docsapi.widgets.lifecycle import SpaceLifecyclePanel
from docsapi.widgets.login import LoginForm
from docsapi.widgets.move import MoveSpaceForm
from docsapi.widgets.org_member import OrgMemberForm
from docsapi.widgets.permissions import PermissionEditor, PermissionRow
from docsapi.widgets.share_links import ShareLinkPanel
from docsapi.widgets.space_settings import SpaceSettingsForm
from docsapi.widgets.team_members import TeamMembersEditor
from docsapi.widgets.user_profile import UserProfileForm

__all__ = [
    "CollectionPermissionEditor",
    "GitSyncForm",
    "LoginForm",
    "MoveSpaceForm",
    "OrgMemberForm",
    "PermissionEditor",
    "PermissionRow",
    "ShareLinkPanel",
    "SpaceLifecyclePanel",
    "SpaceSettingsForm",
    "TeamMembersEditor",
    "UserProfileForm",
]
