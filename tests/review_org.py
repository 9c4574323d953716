"""A small organization for the review tests, with every kind of access path.

Members a, b (edit), boss (admin), g (guest); team t1 = a, b; team t2 = a.

- s1: private (default none); direct a:edit, team t1:edit
- c1 (private) holds s2 and s3 (both inherit from it); user a:edit on c1; team t2:read on c1
- s4: default read, nothing else
- s5: private; team t1:comment
"""

from __future__ import annotations

from audit_org import Org

from docsapi.audit import PermissionAudit

#: The rule sets the review's tests run under.
RULE_SETS = ("precedence", "highest")


def org(model: str = "highest") -> PermissionAudit:
    """The organization the module docstring describes, audited under the rule set ``model``."""
    o = Org().member("a", "edit").member("b", "edit").member("boss", "admin").member("g", None)
    o.team("t1", "a", "b").team("t2", "a")
    o.space("s1").grant("s1", "a", "edit").grant("s1", "t1", "edit")
    o.collection("c1")
    o.space("s2", parent="c1", default="inherit").space("s3", parent="c1", default="inherit")
    o.grant("c1", "a", "edit").grant("c1", "t2", "read")
    o.space("s4", default="read")
    o.space("s5").grant("s5", "t1", "comment")
    return o.audit(model=model)  # the review predicts by the audit's own rule set
