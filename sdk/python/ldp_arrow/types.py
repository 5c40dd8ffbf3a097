"""Arrow types, fields, schemas and a small columnar table, as plain Python values."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence

__all__ = [
    "DataType",
    "Field",
    "Schema",
    "Table",
    "null",
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "utf8",
    "large_utf8",
    "binary",
    "large_binary",
    "date32",
    "date64",
    "timestamp",
    "time32",
    "time64",
    "duration",
    "to_python",
    "from_python",
]

UNITS = ("s", "ms", "us", "ns")


@dataclass(frozen=True)
class DataType:
    """An Arrow type. `name` is pyarrow's spelling (`int64`, `utf8`, `timestamp`, ...); temporal
    types also have a `unit` (`s`, `ms`, `us`, `ns`) and timestamps may have a time zone `tz`."""

    name: str
    unit: Optional[str] = None
    tz: Optional[str] = None

    def __str__(self) -> str:
        if self.name == "timestamp":
            return f"timestamp[{self.unit}" + (f", tz={self.tz}]" if self.tz else "]")
        if self.name in ("time32", "time64", "duration"):
            return f"{self.name}[{self.unit}]"
        if self.name == "date32":
            return "date32[day]"
        if self.name == "date64":
            return "date64[ms]"
        return self.name

    @property
    def is_string(self) -> bool:
        return self.name in ("utf8", "large_utf8")


null = DataType("null")
bool_ = DataType("bool")
int8, int16, int32, int64 = (DataType(f"int{b}") for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (DataType(f"uint{b}") for b in (8, 16, 32, 64))
float32, float64 = DataType("float"), DataType("double")
utf8, large_utf8 = DataType("utf8"), DataType("large_utf8")
binary, large_binary = DataType("binary"), DataType("large_binary")
date32, date64 = DataType("date32"), DataType("date64")


def _unit(unit: str) -> str:
    if unit not in UNITS:
        raise ValueError(f"unknown time unit {unit!r}: one of {', '.join(UNITS)}")
    return unit


def timestamp(unit: str, tz: Optional[str] = None) -> DataType:
    return DataType("timestamp", _unit(unit), tz)


def time32(unit: str) -> DataType:
    if unit not in ("s", "ms"):
        raise ValueError("time32 has unit 's' or 'ms'")
    return DataType("time32", unit)


def time64(unit: str) -> DataType:
    if unit not in ("us", "ns"):
        raise ValueError("time64 has unit 'us' or 'ns'")
    return DataType("time64", unit)


def duration(unit: str) -> DataType:
    return DataType("duration", _unit(unit))


@dataclass(frozen=True)
class Field:
    name: str
    type: DataType
    nullable: bool = True
    metadata: Mapping[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.name}: {self.type}" + ("" if self.nullable else " not null")


@dataclass(frozen=True)
class Schema:
    fields: Sequence[Field]
    metadata: Mapping[str, str] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    def index(self, name: str) -> int:
        """The position of the first field called `name`; KeyError when there is none."""
        for i, f in enumerate(self.fields):
            if f.name == name:
                return i
        raise KeyError(name)

    def field(self, name: str) -> Field:
        return self.fields[self.index(name)]

    def append(self, new: Field) -> "Schema":
        return Schema([*self.fields, new], self.metadata)

    def __str__(self) -> str:
        return "\n".join(str(f) for f in self.fields)


class Table:
    """The rows of one record batch, column by column: `columns[i]` is a list of Python values
    for `schema.fields[i]` (None for null).

    Values: int for integers, float for floats, bool, str for utf8, bytes for binary, and the
    raw int of the Arrow representation for temporal types (days since the epoch for date32,
    `unit`s since the epoch for timestamps, ...), so that they pass through exactly; use
    `to_python` / `from_python` to convert one to a `datetime`.
    """

    __slots__ = ("schema", "columns")

    def __init__(self, schema: Schema, columns: Sequence[list]):
        if len(columns) != len(schema.fields):
            raise ValueError(f"{len(columns)} columns for a schema of {len(schema.fields)} fields")
        lengths = {len(c) for c in columns}
        if len(lengths) > 1:
            raise ValueError(f"columns of different lengths: {sorted(lengths)}")
        self.schema = schema
        self.columns = list(columns)

    @classmethod
    def from_pydict(cls, data: Mapping[str, list], schema: Schema) -> "Table":
        return cls(schema, [list(data[f.name]) for f in schema.fields])

    @property
    def num_rows(self) -> int:
        return len(self.columns[0]) if self.columns else 0

    def column(self, key: int | str) -> list:
        return self.columns[key if isinstance(key, int) else self.schema.index(key)]

    def __getitem__(self, key: int | str) -> list:
        return self.column(key)

    def to_pydict(self) -> dict[str, list]:
        return {f.name: c for f, c in zip(self.schema.fields, self.columns)}

    def __repr__(self) -> str:
        return f"Table({self.num_rows} rows, schema=[{', '.join(map(str, self.schema.fields))}])"


# ---------------------------------------------------------------------------------------------
# Temporal values. The codec keeps them as the raw integers Arrow stores; these convert one.

_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_DATE = _dt.date(1970, 1, 1)
_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def to_python(value: Optional[int], dtype: DataType) -> Any:
    """The Python value of a raw temporal integer: a `date` (date32/64), a `datetime`
    (timestamp: naive without a time zone, in UTC with one), a `time` or a `timedelta`.
    Nanoseconds are truncated to microseconds. Other types are returned unchanged."""
    if value is None:
        return None
    if dtype.name == "date32":
        return _EPOCH_DATE + _dt.timedelta(days=value)
    if dtype.name == "date64":
        return _EPOCH_DATE + _dt.timedelta(days=value // 86_400_000)
    if dtype.name in ("timestamp", "time32", "time64", "duration"):
        delta = _dt.timedelta(microseconds=value * 1_000_000 // _PER_SECOND[dtype.unit])
        if dtype.name == "duration":
            return delta
        if dtype.name == "timestamp":
            moment = _EPOCH + delta
            return moment.replace(tzinfo=_dt.timezone.utc) if dtype.tz else moment
        return (_EPOCH + delta).time()
    return value


def from_python(value: Any, dtype: DataType) -> Any:
    """The raw integer Arrow stores for a `date`, `datetime`, `time` or `timedelta` of `dtype`
    (an aware datetime is converted to UTC). Integers and None are returned unchanged."""
    if value is None or isinstance(value, int):
        return value
    per_second = _PER_SECOND.get(dtype.unit or "s", 1)

    def micros(delta: _dt.timedelta) -> int:
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds

    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        if dtype.name == "date32":
            return (value.date() - _EPOCH_DATE).days
        if dtype.name == "date64":
            return (value.date() - _EPOCH_DATE).days * 86_400_000
        return micros(value - _EPOCH) * per_second // 1_000_000
    if isinstance(value, _dt.date):
        days = (value - _EPOCH_DATE).days
        return days * 86_400_000 if dtype.name == "date64" else days
    if isinstance(value, _dt.time):
        delta = _dt.timedelta(
            hours=value.hour,
            minutes=value.minute,
            seconds=value.second,
            microseconds=value.microsecond,
        )
        return micros(delta) * per_second // 1_000_000
    if isinstance(value, _dt.timedelta):
        return micros(value) * per_second // 1_000_000
    raise TypeError(f"cannot store {value!r} in a {dtype} column")

