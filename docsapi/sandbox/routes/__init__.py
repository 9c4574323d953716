"""The documentation-platform API's routes: one module per area, each with its ``ROUTES``.

A handler takes the request context and the path's arguments and returns a reply; the WSGI
app (``docsapi.sandbox._app``) lists every module's ``ROUTES``. Routes use the core and, for
the insights' seeded history, the demo's reference instant; nothing below imports them.

The modules, one job each:

- areas: ``_users`` (the API itself and users), ``_orgs`` (organizations, members, teams),
  ``_spaces`` (space operations), ``_content`` (a space's content), ``_git`` (Git sync),
  ``_change_requests``, ``_collections``, ``_permissions`` (of spaces and collections),
  ``_sites``, ``_invites`` (invite links), ``_audit_events`` (the audit log), ``_insights``
  (site insights);
- helpers: ``_access`` (finding the named resource, checking the caller may act on it),
  ``_checks`` (request values against the API's types and enums), ``_render`` and
  ``_render_access`` (API-shaped JSON), ``_insights_data`` (each site's visitor events) and
  ``_insights_query`` (their aggregation).
"""
