"""The Judge's known-answer sets and bias probes (SPEC §17, data/calibration/): rebuilt
byte-identically, labels on each kind's scale and fixed by their construction, balanced, spread
over languages, and every item asked exactly as a run would ask it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from eval.benchmarks import BENCHMARKS
from eval.config import HARNESS
from scripts import build_calibration as builder

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "data" / "calibration"
SCALES = {"quality": {0, 0.5, 1}, "sandglass_quality": {0, 0.5, 1}, "style": set(range(6)),
          "background": set(range(6)), "glossary": {0, 1}, **{cid: {0, 0.5, 1} for cid in builder.SOFT_IDS}}
# Sandglass's release (and its bundled set) has four target languages (docs/judge.md#the-known-answer-sets).
FEWER_LANGUAGES = {"sandglass_quality": 4}


def items(name: str) -> list[dict]:
    return [json.loads(line) for line in (DIR / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def built() -> dict[str, list[dict]]:
    return builder.build()


@pytest.fixture(scope="module")
def rows() -> dict[str, dict[str, dict]]:
    return {name: {row["case_id"]: row for row in builder.load(name)} for name in BENCHMARKS}


def test_the_files_are_what_the_script_builds(built):
    for name, entries in built.items():
        assert (DIR / f"{name}.jsonl").read_bytes() == builder.render(entries), f"rerun python -m scripts.build_calibration ({name})"
    assert builder.main(["--check"]) == 0


def test_every_item_has_its_fields_and_a_label_on_its_kind_scale():
    for name in BENCHMARKS:
        for entry in items(name):
            assert {"id", "case_id", "kind", "candidate", "label", "construction", "certainty", "why", "prompt",
                    "read", "target_lang"} <= set(entry), entry["id"]
            assert entry["label"] in SCALES[entry["kind"]], entry["id"]
            assert entry["certainty"] in ("certain", "approximate")
            assert entry["candidate"].strip() and entry["why"].strip()
        assert len({entry["id"] for entry in items(name)}) == len(items(name))


def _reference(name: str, row: dict) -> str | None:
    return {"insttrans": row.get("reference"), "sandglass": row.get("label"), "ifmtbench": row.get("output")}[name]


def test_a_candidate_is_its_own_reference_only_when_it_is_labelled_top_by_reference(rows):
    for name in BENCHMARKS:
        for entry in items(name):
            top = max(SCALES[entry["kind"]])
            is_reference = entry["candidate"] == _reference(name, rows[name][entry["case_id"]])
            if entry["construction"] == "reference":
                assert entry["label"] == top, entry["id"]
            else:
                assert not is_reference, entry["id"]
            if is_reference:
                assert entry["construction"] == "reference" and entry["label"] == top, entry["id"]


def test_each_kind_has_forty_items_balanced_over_labels_and_six_languages(rows):
    kinds = {}
    for name in BENCHMARKS:
        for entry in items(name):
            kinds.setdefault(entry["kind"], []).append(entry)
    assert set(kinds) == set(SCALES)
    for kind, entries in kinds.items():
        counts = Counter(entry["label"] for entry in entries)
        n = len(entries)
        assert len(counts) >= 2, kind
        assert min(counts.values()) >= n / 10 and max(counts.values()) <= n / 2, (kind, counts)
        languages = Counter(entry["target_lang"] for entry in entries)
        assert len(languages) >= FEWER_LANGUAGES.get(kind, 6), (kind, languages)
        assert max(languages.values()) <= n / 3, (kind, languages)  # no language holds a third or more
        assert n >= 40, kind
    # each top label is reached by the reference; each bottom by a construction the rubric makes certain
    for kind, entries in kinds.items():
        top, bottom = max(SCALES[kind]), min(SCALES[kind])
        assert any(entry["certainty"] == "certain" for entry in entries if entry["label"] == bottom), kind
        if kind != "glossary":  # the fallback is never asked about a reference (its rule passes)
            assert any(entry["construction"] == "reference" for entry in entries if entry["label"] == top), kind


def test_the_sandglass_languages_are_all_the_bundled_ones_and_balanced(rows):
    bundled = {row["metadata"]["target_language"] for row in rows["sandglass"].values()}
    entries = items("sandglass")
    per_language = Counter(entry["target_lang"] for entry in entries)
    assert set(per_language) == bundled and len(bundled) == 4
    assert max(per_language.values()) - min(per_language.values()) <= 1, per_language  # as even as 42 allows
    for lang in bundled:  # every language reaches every label
        assert {entry["label"] for entry in entries if entry["target_lang"] == lang} == {0, 0.5, 1}, lang


def test_the_two_rare_soft_constraints_have_rows_in_six_languages_and_every_row_is_asked(rows):
    for cid in ("context_disambiguate", "coref_resolution"):
        having = {case_id: row for case_id, row in rows["insttrans"].items() if cid in row["constraint_ids"]}
        assert len({row["target_lang"] for row in having.values()}) >= 6, cid
        assert {entry["case_id"] for entry in items("insttrans") if entry["kind"] == cid} == set(having), cid


def test_every_written_text_is_in_another_language_and_in_use(rows):
    """WRITTEN (Sandglass) and OTHER_LANGUAGE (InstTrans, IFMTBench) are this team's own translations:
    each sits beside a row in another language than the row's target (and source), and each is used."""
    from scripts.build_sandglass import LINES

    lines = {line["text"] for line in LINES}
    for source, by_language in builder.WRITTEN.items():
        assert source in lines and set(by_language) <= {"ja", "es", "ar"}, source
        for translation, detail_lost in by_language.values():
            assert translation != detail_lost and len(detail_lost) < len(translation)
    candidates = {entry["candidate"] for name in BENCHMARKS for entry in items(name) + items(f"{name}.probes")}
    for case_id, (lang, text) in builder.OTHER_LANGUAGE.items():
        row = rows["insttrans"].get(case_id) or rows["ifmtbench"][case_id]
        target = row.get("target_lang") or row.get("target_language")
        source = row.get("source_lang") or row.get("origin_language")
        assert lang not in (target, source), case_id
        assert text in candidates, f"{case_id}: OTHER_LANGUAGE entry no probe uses"


def test_every_glossary_candidate_fails_the_rule_so_the_fallback_is_asked(rows):
    from eval.ifmtbench.rules import RULES

    for entry in items("ifmtbench") + items("ifmtbench.probes"):
        if entry["kind"] == "glossary":
            assert not RULES["glossary"](rows["ifmtbench"][entry["case_id"]], entry["candidate"]).passed, entry["id"]


def test_every_hand_edit_is_in_the_set():
    made = {(entry["case_id"], entry["kind"], entry["construction"]) for entry in items("insttrans")}
    assert {(case_id, cid, construction) for case_id, cid, construction, _, _ in builder.EDITS} <= made


def test_the_probes_pair_with_controls_of_their_set():
    for name in BENCHMARKS:
        known = {entry["id"]: entry for entry in items(name)}
        probes = items(f"{name}.probes")
        assert probes
        for probe in probes:
            control = known[probe["control"]]
            top = max(SCALES[control["kind"]])
            assert probe["kind"] == control["kind"] and probe["case_id"] == control["case_id"]
            assert probe["candidate"] != control["candidate"]
            if probe["expect"] == "no_rise":  # room to rise
                assert probe["probe"] in builder.NO_RISE and control["label"] < top, probe["id"]
            else:
                assert probe["expect"] == "fall" and probe["probe"] in builder.FALL and control["label"] == top
        kinds = {probe["probe"] for probe in probes}
        assert set(builder.NO_RISE) <= kinds and {"cut_half", "source_copy"} <= kinds
        wrong = Counter(probe["kind"] for probe in probes if probe["probe"] == "wrong_language")
        assert set(wrong) == {entry["kind"] for entry in known.values()}, name  # every kind of every benchmark
        assert min(wrong.values()) >= 3, (name, wrong)


def test_every_item_becomes_the_request_a_run_would_send():
    from eval.calibrate import bundled_requests

    for name, bench in BENCHMARKS.items():
        entries, probes, requests = bundled_requests(bench, bench.prompt_sets[HARNESS])
        assert len(requests) == len(entries) + len(probes)
        for entry, request in zip(entries + probes, requests):
            assert request.case_id == entry["id"] and request.name == entry["prompt"]
            assert entry["candidate"] in request.prompt


def test_the_sentence_splitter_keeps_every_character():
    for text in ("One. Two! Three?", "第一句。第二句！", "No end", "Pi is 3.14. Then $x$.", ""):
        assert "".join(builder.sentences(text)) == text
    assert builder.sentences("One. Two! Three?") == ["One. ", "Two! ", "Three?"]
    assert builder.sentences("第一句。第二句！") == ["第一句。", "第二句！"]


def test_the_docs_show_the_sets_as_built(built):
    page = (ROOT / "docs" / "judge.md").read_text(encoding="utf-8")
    assert builder.docs_table(built) in page
    known = sum(len(entries) for name, entries in built.items() if not name.endswith(".probes"))
    probes = sum(len(entries) for name, entries in built.items() if name.endswith(".probes"))
    assert f"in all {known} items and {probes} probes" in page
    for construction in builder.WHY:  # every construction is explained on the page
        if not construction.startswith("repeated_3x_"):
            assert f"`{construction}`" in page, construction


def test_check_names_a_stale_file(tmp_path, monkeypatch, capsys):
    for path in DIR.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    (tmp_path / "sandglass.jsonl").write_bytes(b"{}\n")
    monkeypatch.setattr(builder, "OUT_DIR", tmp_path)
    monkeypatch.setattr(builder, "ROOT", tmp_path.parent)
    assert builder.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "sandglass.jsonl" in err and "ifmtbench.jsonl" not in err
