"""The audit log as codes: the crawl's events table holds what the log says, compactly.

The events the audit keeps are compared with the same log read through
``client.orgs.audit_events`` (a DataFrame built from the JSON objects): same events, same
values, while the crawl keeps no Python object per cell (categories of the few distinct
values, Arrow strings for an event's id, target id and label, nanoseconds for its time).
"""

from __future__ import annotations

import pandas as pd

from docsapi.audit import audit_permissions
from docsapi.audit.data import ColumnAccumulator

_COLUMNS = [
    "id",
    "occurred_at",
    "action",
    "source",
    "actor_type",
    "actor_id",
    "actor_label",
    "target_type",
    "target_id",
    "target_label",
]


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    table = frame[_COLUMNS].astype(object).where(frame[_COLUMNS].notna(), None)
    return table.sort_values("id").reset_index(drop=True)


def test_the_crawls_events_are_the_logs_events_as_codes(sandbox, client):
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    events = audit.data.events
    assert len(events) > 100
    for column in ("id", "target_id", "target_label"):
        assert events[column].dtype == pd.StringDtype("pyarrow")
    for column in ("action", "source", "actor_type", "actor_id", "actor_label", "target_type"):
        assert isinstance(events[column].dtype, pd.CategoricalDtype)
        assert len(events[column].cat.categories) < len(events)
    read = client.orgs.audit_events(sandbox.org_id, since=audit.data.events_since)
    read = read[read["occurred_at"] <= audit.generated_at]
    pd.testing.assert_frame_equal(_plain(events), _plain(read))


def test_an_accumulators_text_and_time_columns_keep_their_values():
    acc = ColumnAccumulator("events")
    acc.append(id=["e1", "e2"], occurred_at=[0, None], action=["a", "a"], target_id=["t", None])
    acc.append(id=["e3"], occurred_at=[86_400_000_000_000], action="b", target_id=["t"])
    frame = acc.frame()
    assert frame["id"].tolist() == ["e1", "e2", "e3"]
    assert frame["target_id"].isna().tolist() == [False, True, False]
    assert frame["action"].tolist() == ["a", "a", "b"]
    assert [str(t) for t in frame["occurred_at"]] == [
        "1970-01-01 00:00:00+00:00",
        "NaT",
        "1970-01-02 00:00:00+00:00",
    ]
    assert len(acc) == 0  # handed over
