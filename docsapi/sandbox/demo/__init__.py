"""The seeded demo organization the sandbox serves (``docs/sandbox-demo.md``), built on the core.

The modules, one job each: ``_build`` (``build_demo``: runs every step in order),
``_size`` (how big an organization to build), ``_plan`` (the reference instant and where the
spaces with a part stand), ``_names`` (the word lists names are drawn from), ``_builder``
(the cast, the organization, its people, teams, collections and spaces), ``_grants``
(explicit permissions and the facts about them), ``_sites`` (sites, share links, invite
links), ``_history`` (the audit log's months of history, drawn from the final access).
``_grants``, ``_sites`` and ``_history`` take the builder; only ``_build`` calls them.
"""
