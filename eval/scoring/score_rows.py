"""The typed score rows every benchmark builds (SPEC §9, §11, §14): one `ScoreRow` per instance,
one `ConstraintResult` per constraint, with enums for the instance's status and the Judge
fallback's state, so that reports find a missing prediction or a fallback by its enum, never by
reading a reason's text.

A row keeps its benchmark's own columns in file order (`ScoreRow.of(case_id=…, …, status=…,
constraints=…, …)`: the keywords' order is scores.jsonl's key order) and is read by attribute
(`case_id`, `status`, `constraints`) or, for a benchmark's own column, as a read-only mapping
(`row["if_score"]`). It becomes a dict only where a file is written (`to_dict`), and a line of
scores.jsonl read back by another reader (compare, the Python API's `load_run`) becomes one again
through `row_from_dict`, which checks every field it types and says what is wrong in one line.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

HARD = "hard"
FALLBACK_KEY = "fallback"  # the detail key that carries a Judge fallback's state
MISSING_REASON = "missing prediction (null, empty or whitespace only, or no line)"
SKIPPED_REASON = "Judge skipped (--skip-judge)"


class Status(str, enum.Enum):
    """An instance's status in scores.jsonl: scored, or a missing prediction (SPEC §6: scores 0)."""

    OK = "ok"
    MISSING = "missing"


class Fallback(str, enum.Enum):
    """A hard rule's Judge fallback (SPEC §14, glossary): the Judge passed or failed the response
    after the rule failed, or was not asked (--skip-judge: the failure stands)."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


class ScoreRowError(ValueError):
    """A scores.jsonl row that is not one this harness writes: the message names the field."""


_EMPTY: Mapping[str, Any] = MappingProxyType({})


def frozen_detail(detail: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A read-only copy of a detail (its top level): no row's detail can change another's."""
    return MappingProxyType(dict(detail)) if detail else _EMPTY


def missing_detail() -> Mapping[str, Any]:
    """The detail of every constraint of a missing prediction: read-only (SPEC §6)."""
    return _MISSING_DETAIL


def skipped_detail() -> Mapping[str, Any]:
    """The detail of a soft constraint not judged (--skip-judge)."""
    return _SKIPPED_DETAIL


_MISSING_DETAIL = MappingProxyType({"reason": MISSING_REASON})
_SKIPPED_DETAIL = MappingProxyType({"reason": SKIPPED_REASON})


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


@dataclass(frozen=True, eq=False, slots=True)
class ConstraintResult(Mapping):
    """One constraint's result: a hard verdict (`passed`) or a soft score (`score`, null when not
    judged), with the detail that says what decided it. Read as a mapping it is the file's entry."""

    id: str
    kind: str
    passed: bool | None = None
    score: float | None = None
    detail: Mapping[str, Any] | None = None  # read-only once built (None: empty)
    index: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.detail, MappingProxyType):
            object.__setattr__(self, "detail", frozen_detail(self.detail))

    @property
    def hard(self) -> bool:
        return self.kind == HARD

    @property
    def fallback(self) -> Fallback | None:
        """The Judge fallback's state, where this rule has one."""
        return self.detail.get(FALLBACK_KEY)

    def _keys(self) -> tuple[str, ...]:
        """The file entry's keys (SPEC §11: index, id, kind, passed | score, detail)."""
        verdict = _HARD_KEYS if self.kind == HARD else _SOFT_KEYS
        return verdict if self.index is not None else verdict[1:]

    def to_dict(self) -> dict:
        """The scores.jsonl entry."""
        entry = {key: getattr(self, key) for key in self._keys()}
        entry["detail"] = {key: _plain(value) for key, value in self.detail.items()}
        return entry

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys():
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ConstraintResult):
            return self.to_dict() == other.to_dict()
        return isinstance(other, Mapping) and self.to_dict() == dict(other)

    __hash__ = None  # type: ignore[assignment]


_HARD_KEYS = ("index", "id", "kind", "passed", "detail")
_SOFT_KEYS = ("index", "id", "kind", "score", "detail")
@dataclass(frozen=True, eq=False, slots=True)
class ScoreRow(Mapping):
    """One instance's score row. `columns` holds every column in file order, the typed ones
    included; a benchmark's own columns are read as `row[name]`."""

    case_id: str
    status: Status
    constraints: tuple[ConstraintResult, ...] | None
    columns: Mapping[str, Any]

    @classmethod
    def of(cls, **columns: Any) -> ScoreRow:
        """A row from its columns in file order; `status` and `constraints` become typed."""
        status = Status(columns["status"])
        columns["status"] = status
        constraints = columns.get("constraints")
        if constraints is not None:
            constraints = tuple(constraints)
            if not all(isinstance(entry, ConstraintResult) for entry in constraints):
                raise TypeError("a score row's constraints are ConstraintResult objects")
            columns["constraints"] = constraints
        return cls(columns["case_id"], status, constraints, MappingProxyType(columns))

    @property
    def missing(self) -> bool:
        return self.status is Status.MISSING

    def with_columns(self, **more: Any) -> ScoreRow:
        """The same row with more columns after its own (--log-samples adds the prediction)."""
        return ScoreRow.of(**{**self.columns, **more})

    def to_dict(self) -> dict:
        """The scores.jsonl row, key for key and value for value as written."""
        row = dict(self.columns)
        row["status"] = self.status.value
        if self.constraints is not None:
            row["constraints"] = [entry.to_dict() for entry in self.constraints]
        return row

    def __getitem__(self, key: str) -> Any:
        return self.columns[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.columns)

    def __len__(self) -> int:
        return len(self.columns)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ScoreRow):
            return self.to_dict() == other.to_dict()
        return isinstance(other, Mapping) and self.to_dict() == dict(other)

    __hash__ = None  # type: ignore[assignment]


def row_dict(row: Mapping[str, Any]) -> Any:
    """The dict a file holds for a row (a ScoreRow's `to_dict`; anything else as it is)."""
    return row.to_dict() if isinstance(row, ScoreRow) else row


# ---------------------------------------------------------------------------------------------
# Reading a row back
# ---------------------------------------------------------------------------------------------

MAX_CONSTRAINTS = 10_000  # far beyond any benchmark's constraints per instance


def _kind_of(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "a list", str: "a string"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _constraint_from_dict(entry: object, where: str) -> ConstraintResult:
    if not isinstance(entry, dict):
        raise ScoreRowError(f"field {where}: expected an object, found {_kind_of(entry)}")
    index = entry.get("index")
    if "index" in entry and not (isinstance(index, int) and not isinstance(index, bool)):
        raise ScoreRowError(f"field {where}.index: expected an integer, found {_kind_of(index)}")
    cid, kind, detail = entry.get("id"), entry.get("kind"), entry.get("detail", {})
    if not isinstance(cid, str):
        raise ScoreRowError(f"field {where}.id: expected a string, found {_kind_of(cid)}")
    if not isinstance(kind, str):
        raise ScoreRowError(f"field {where}.kind: expected a string, found {_kind_of(kind)}")
    if not isinstance(detail, dict):
        raise ScoreRowError(f"field {where}.detail: expected an object, found {_kind_of(detail)}")
    expected = ["index"] * ("index" in entry) + ["id", "kind", "passed" if kind == HARD else "score", "detail"]
    if list(entry) != expected:
        raise ScoreRowError(f"field {where}: expected the keys {expected}, found {list(entry)[:8]}")
    if kind == HARD and entry["passed"] is not None and not isinstance(entry["passed"], bool):
        raise ScoreRowError(f"field {where}.passed: expected a boolean or null, found {_kind_of(entry['passed'])}")
    if kind != HARD and entry["score"] is not None and not _is_number(entry["score"]):
        raise ScoreRowError(f"field {where}.score: expected a number or null, found {_kind_of(entry['score'])}")
    if FALLBACK_KEY in detail:
        state = detail[FALLBACK_KEY]
        if state not in {item.value for item in Fallback}:
            shown = repr(state)[:40] if isinstance(state, str) else _kind_of(state)
            raise ScoreRowError(f"field {where}.detail.fallback: expected one of "
                                f"{[item.value for item in Fallback]}, found {shown}")
        detail = {**detail, FALLBACK_KEY: Fallback(state)}
    return ConstraintResult(cid, kind, entry.get("passed"), entry.get("score"), detail, index)


def row_from_dict(row: object) -> ScoreRow:
    """A scores.jsonl row (parsed JSON) as a ScoreRow: `case_id` a string, `status` one of
    Status, `constraints` (when present) a list of entries as ConstraintResult writes them.
    Anything else is one ScoreRowError naming the field; nothing here recurses into the row."""
    if not isinstance(row, dict):
        raise ScoreRowError(f"expected a JSON object, found {_kind_of(row)}")
    if not isinstance(row.get("case_id"), str):
        raise ScoreRowError(f"field case_id: expected a string, found {_kind_of(row.get('case_id'))}")
    status = row.get("status")
    if status not in {item.value for item in Status}:
        shown = repr(status)[:40] if isinstance(status, str) else _kind_of(status)
        raise ScoreRowError(f"field status: expected one of {[item.value for item in Status]}, found {shown}")
    columns = dict(row)
    if "constraints" in row:
        entries = row["constraints"]
        if not isinstance(entries, list):
            raise ScoreRowError(f"field constraints: expected a list, found {_kind_of(entries)}")
        if len(entries) > MAX_CONSTRAINTS:
            raise ScoreRowError(f"field constraints: more than {MAX_CONSTRAINTS:,} entries")
        columns["constraints"] = [_constraint_from_dict(entry, f"constraints[{number}]")
                                  for number, entry in enumerate(entries)]
    return ScoreRow.of(**columns)
