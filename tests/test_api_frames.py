"""List answers become DataFrames with the columns and dtypes their item schema declares.

Property-based over every list operation of the description: answers drawn from the
operation's own response schema (and valid against it) convert without raising, to exactly
the declared columns and dtypes, and every value lands in its column unchanged.
"""

from __future__ import annotations

import json
from datetime import datetime

import pandas as pd
import pytest
from api_strategies import strategy_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from suite_scope import examples

from docsapi.api import catalog
from docsapi.api._results import (
    BOOLEAN,
    INTEGER,
    NUMBER,
    OBJECT,
    STRING,
    TIMESTAMP,
    Column,
    frame,
    item_columns,
    list_shape,
)
from docsapi.api._validate_args import schema_validator

LIST_OPERATIONS = {
    op.operation_id: op
    for ops in catalog().values()
    for op in ops
    if list_shape(op.success_schema) is not None
}
#: One operation per distinct item schema: the frame depends on the item schema only.
BY_ITEM_SCHEMA = {
    json.dumps(list_shape(op.success_schema).item_schema, sort_keys=True): op.operation_id
    for op in sorted(LIST_OPERATIONS.values(), key=lambda op: op.operation_id, reverse=True)
}
SHORT = settings(
    max_examples=examples(2),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
DTYPES = {
    STRING: pd.StringDtype("python"),
    TIMESTAMP: pd.DatetimeTZDtype("us", "UTC"),
    INTEGER: pd.Int64Dtype(),
    NUMBER: pd.Float64Dtype(),
    BOOLEAN: pd.BooleanDtype(),
    OBJECT: pd.api.types.pandas_dtype(object),
}


def _response_pointer(operation) -> str:
    status = min(s for s, schema in operation.responses.items() if schema is not None)
    return f"{operation.pointer}/responses/{status}/content/application~1json/schema"


def _dig(item, keys):
    for key in keys:
        if not isinstance(item, dict):
            return None
        item = item.get(key)
    return item


def _expected(value, column: Column):
    if value is None:
        return None
    if column.dtype == TIMESTAMP:
        return pd.Timestamp(datetime.fromisoformat(value.replace("Z", "+00:00"))).tz_convert("UTC")
    if column.dtype == NUMBER:
        return float(value)
    return value


def test_there_are_list_operations_of_every_shape():
    kinds = {list_shape(op.success_schema).kind for op in LIST_OPERATIONS.values()}
    assert kinds == {"pages", "items", "array"}
    assert len(LIST_OPERATIONS) > 90


def test_every_list_operation_has_unique_columns_and_a_stable_empty_frame():
    for operation in LIST_OPERATIONS.values():
        columns = item_columns(list_shape(operation.success_schema).item_schema)
        assert columns, operation.operation_id
        assert len({c.name for c in columns}) == len(columns)
        empty = frame([], columns)
        assert list(empty.columns) == [c.name for c in columns]
        assert [empty[c.name].dtype for c in columns] == [DTYPES[c.dtype] for c in columns]


@pytest.mark.parametrize("operation_id", sorted(BY_ITEM_SCHEMA.values()))
def test_list_answers_convert_to_the_declared_columns_and_dtypes(operation_id):
    operation = LIST_OPERATIONS[operation_id]
    shape = list_shape(operation.success_schema)
    columns = item_columns(shape.item_schema)
    validator = schema_validator(_response_pointer(operation))
    items = st.lists(strategy_of(shape.item_schema), max_size=2)
    answers = items if shape.kind == "array" else items.map(lambda xs: {"items": xs})

    @SHORT
    @given(answers.filter(validator.is_valid))
    def check(answer):
        records = answer if shape.kind == "array" else answer["items"]
        result = frame(records, columns)
        assert list(result.columns) == [c.name for c in columns]
        assert [result[c.name].dtype for c in columns] == [DTYPES[c.dtype] for c in columns]
        assert len(result) == len(records)
        for column in columns:
            for row, record in enumerate(records):
                raw = record if not column.keys else _dig(record, column.keys)
                got = result[column.name].iloc[row]
                want = _expected(raw, column)
                if want is None:
                    assert got is None or pd.isna(got)
                else:
                    assert got == want

    check()
