"""The sandbox's core: its data, who may reach what, and serving HTTP; no route, no demo.

The layers above (``demo``, ``routes``, then the :class:`~docsapi.sandbox.Sandbox` and its
WSGI app) import from here; nothing here imports them. The ad-network sandbox uses
``_server`` and ``_jsonbody`` too.

The modules, one job each:

- data: ``_ids`` (API-like identifiers), ``_clock`` (real time plus an offset), ``_roles``
  (roles and their order), ``_grants`` (explicit permissions indexed both ways), ``_state``
  (the data, plain dicts), ``_document`` (the page block model), ``_content`` (a space's page
  tree, files, reusable content), ``_content_gen`` (deterministic generated content),
  ``_store`` (thread-safe access to state, content and clock);
- access: ``_permission_model`` (who reaches which content), ``_events`` (the audit log),
  ``_access_changes`` (grant changes shared by the routes and the sandbox's controls),
  ``_auth`` (tokens, security schemes, scopes);
- HTTP: ``_errors`` (the API error a handler raises), ``_jsonbody`` (strict JSON bodies),
  ``_web`` (request context, replies, pagination), ``_validation`` (requests checked against
  the API's description), ``_faults`` (injected faults, latency, rate limit), ``_server``
  (waitress in a daemon thread).
"""
