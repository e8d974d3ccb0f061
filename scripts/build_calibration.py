"""Build the Judge's known-answer sets (SPEC §17) from the bundled data.

    python -m scripts.build_calibration           # write data/calibration/{insttrans,sandglass,ifmtbench}[.probes].jsonl
    python -m scripts.build_calibration --check   # exit 1 when a file on disk differs from a rebuild

Every item is a real bundled row and a candidate made from it by a named construction whose right
label follows from how it was made and from the harness's own rubric (eval/insttrans/prompts.py,
eval/sandglass/prompt.py, eval/ifmtbench/prompt.py): the reference is top; the source left
untranslated, another row's reference, the reference repeated three times, a correct translation
into another language are bottom; mechanical damage the rubric names (spacing inside a formula, a
citation marker restyled) is middle. A few constructions are edits written by hand for a named
row (a pronoun bound to the wrong antecedent, an ambiguous word given the wrong sense), listed in
EDITS. Each item says whether its label is `certain` (the rubric's own words decide it) or
`approximate` (a reasonable reading; a good Judge may differ by one step), and the rubric line
that decides it. Rows are taken in case_id order, interleaved over target languages, so the
output is deterministic; docs/judge.md explains the sets and their limits.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from eval.benchmarks import BENCHMARKS
from eval.data import read_rows_from_files
from eval.ifmtbench.rules import RULES as IFMT_RULES

OUT_DIR = ROOT / "data" / "calibration"
SOFT_IDS = ("style_consistency", "term_cross_sentence", "academic_format_preserve", "context_disambiguate",
            "coref_resolution")
ITEMS_PER_KIND = 40

# The rubric lines, in this team's words, that decide each construction's label.
WHY = {
    "reference": "the prompt calls the reference one good translation that meets every requirement: top",
    "source_copy": "the source left untranslated is not a translation (rubric: untranslated text / not a "
                   "translation of the source): bottom",
    "other_reference": "another row's reference, in another language, is not a translation of this source: bottom",
    "repeated_3x": "the soft prompt scores 0 for every requirement when a passage is repeated three or more times",
    "repeated_3x_quality": "two thirds of the sentences are additions (serious errors in over 10% of sentences): 0",
    "repeated_3x_rubric": "heavy repetition makes the response not a translation: 0",
    "first_half": "the second half of the sentences is omitted (serious errors in over 10% of sentences): 0",
    "minor_slips": "a doubled word in every sentence: readable, only minor errors, but more than a few: 0.5",
    "formula_spacing": "rubric 0.5 names spacing inside a formula as minor damage that changes no meaning",
    "citation_restyled": "rubric 0.5 names one citation marker restyled as minor damage",
    "formula_dropped": "rubric 0: a formula is dropped",
    "citation_dropped": "rubric 0: a citation marker is dropped",
    "wrong_antecedent": "rubric 0: a reference points to the wrong person",
    "register_slip": "rubric 0.5: the requested register dominates, but a form of address or a phrase slips out of it",
    "register_flipped": "rubric 0: the whole text is in another register than the one requested",
    "stray_variant": "rubric 0.5: one rendering dominates, with a single stray variant",
    "two_renderings": "rubric 0: the term is rendered in two competing ways",
    "unclear_reference": "rubric 0.5: the chain is right overall, but one reference could point elsewhere",
    "wrong_sense": "rubric 0: another sense of the ambiguous expression is used",
    "vague_sense": "rubric 0.5: the stated sense is chosen, but one occurrence is vague",
    "wrong_language": "a correct translation into another language: not in the target language, so 0",
    "clause_cut": "the gist survives but a detail the line needs is lost: 0.5",
    "padded": "the line padded with another line's content (invented content): 0",
    "half_untranslated": "the requirement is met in the translated half only, the rest is left in the source "
                         "language (partly met, applied unevenly): 3",
    "term_recased": "the required term is applied with only its casing changed, which the exact-match test "
                    "misses and the glossary prompt allows: 1",
    "term_untranslated": "the glossary prompt: a term left untranslated is not applied: 0",
    "term_dropped": "the glossary prompt: a term left out is not applied: 0",
}
CERTAIN = {"reference", "source_copy", "other_reference", "repeated_3x", "repeated_3x_quality",
           "repeated_3x_rubric", "first_half", "formula_spacing", "citation_restyled", "formula_dropped",
           "citation_dropped", "wrong_antecedent", "wrong_sense", "register_flipped", "two_renderings", "wrong_language", "term_untranslated",
           "term_dropped"}

# Hand-written edits of a reference for one row: (case_id, soft id, construction, label, [(old, new), ...]).
# Each `old` must occur in the row's reference; the test rebuilds and the builder refuses a stale edit.
EDITS = [
    ("itb-lit-029", "coref_resolution", "wrong_antecedent", 0.0,
     [("que Helen plantara", "que Clara plantara"), ("Helen não levantou", "Clara não levantou")]),
    ("itb-lit-029", "coref_resolution", "unclear_reference", 0.5, [("Helen não levantou", "Ela não levantou")]),
    ("itb-lit-009", "coref_resolution", "wrong_antecedent", 0.0,
     [("    Gu Changfeng tidak berkata", "    Shen Yan tidak berkata"),
      ("akhirnya Gu Changfeng bersuara", "akhirnya Shen Yan bersuara")]),
    ("itb-lit-009", "coref_resolution", "unclear_reference", 0.5,
     [("akhirnya Gu Changfeng bersuara", "akhirnya dia bersuara")]),
    ("itb-lit-018", "coref_resolution", "wrong_antecedent", 0.0, [("Aun así, Zhou deslizó", "Aun así, Chen deslizó")]),
    ("itb-lit-018", "coref_resolution", "unclear_reference", 0.5, [("Aun así, Zhou deslizó", "Aun así, él deslizó")]),
    ("itb-lit-002", "coref_resolution", "wrong_antecedent", 0.0,
     [("Линь Вань улыбнулась", "Су Цин улыбнулась"), ("что запястье Линь Вань", "что запястье Су Цин")]),
    ("itb-lit-002", "coref_resolution", "unclear_reference", 0.5, [("Линь Вань улыбнулась", "Она улыбнулась")]),
    ("itb-lit-006", "context_disambiguate", "wrong_sense", 0.0,
     [("Oma is gisteravond overleden. Ze is heel vredig heengegaan.",
       "Oma is gisteravond vertrokken. Ze is heel rustig weggegaan.")]),
    ("itb-lit-006", "context_disambiguate", "vague_sense", 0.5,
     [("Oma is gisteravond overleden.", "Oma is gisteravond weggegaan.")]),
    ("itb-lit-015", "context_disambiguate", "wrong_sense", 0.0, [("「主人が", "「先生が")]),
    ("itb-lit-015", "context_disambiguate", "vague_sense", 0.5, [("「主人が", "「あの人が")]),
    ("itb-lit-022", "context_disambiguate", "wrong_sense", 0.0,
     [("eu vou dar uma passada no banheiro", "eu vou ver se é conveniente")]),
    ("itb-doc-014", "context_disambiguate", "wrong_sense", 0.0,
     [("Computervirus", "Grippevirus"), ("Computerviren", "Grippeviren")]),
    ("itb-doc-014", "context_disambiguate", "vague_sense", 0.5,
     [("schlägt das Computervirus", "schlägt das Virus")]),
    ("itb-doc-053", "context_disambiguate", "wrong_sense", 0.0, [("paket hadiah jewawut (milet)", "paket hadiah Xiaomi")]),
]

_FLIP_DE = ("Hey {username}, deine Anmeldung zum jährlichen „Creator-Förderprogramm“ ist durch! Deine Kohle für diesen "
            "Monat, {amount} Yuan, landet in 3 Werktagen auf deiner Bilibili Wallet. Schau einfach mal nach!")
_FLIP_ES = json.dumps({"dialog": {
    "title": "¿Seguro que quieres borrar tu cuenta?",
    "body": "Si la borras, tus vídeos, tus favoritos y tu historial de monedas se van para siempre y no hay forma de "
            "recuperarlos.",
    "button_ok": "Sí, bórrala", "button_cancel": "Mejor no"}}, ensure_ascii=False)
_FLIP_NL = ('<div class="notice"><p>Vanaf 1 januari 2025 kun je met een account zonder verificatie geen berichten en '
            'reacties meer plaatsen.</p><p>Rond je verificatie dus even snel af via het <a '
            'href="https://account.bilibili.com/verify" target="_blank">Accountcentrum</a>, oké?</p></div>')
_FLIP_FR = json.dumps({"1": "Bonjour à toutes et à tous. Nous allons préparer aujourd'hui des œufs brouillés à la tomate, "
                            "une recette d'une grande simplicité.",
                       "2": "Il convient tout d'abord de battre soigneusement les œufs.",
                       "3": "L'huile doit être suffisamment chaude, faute de quoi les aliments adhèrent.",
                       "4": "Versons à présent la préparation dans la poêle."}, ensure_ascii=False)
_FLIP_EN = json.dumps({"1": "Your spiritual power remains insufficient; I urge you not to overexert yourself.",
                       "2": "I shall not conceal myself behind you.",
                       "3": "Even if my spiritual power is limited, I nonetheless possess my intellect.",
                       "4": "...That statement appears to be somewhat inaccurate."}, ensure_ascii=False)
_FLIP_PT = ("O automóvel estacionou numa área de serviço e o senhor Gordinho foi o primeiro a descer: — Os senhores "
            "podem prosseguir a conversa; eu irei ao sanitário. A senhora Wang lançou-lhe um olhar de reprovação: — O "
            "senhor é sempre assim. Peço que regresse com brevidade.")
EDITS += [  # the register: one form of address or phrase out of it (0.5), or the whole text in another (0)
    ("itb-doc-041", "style_consistency", "register_slip", 0.5, [("Ihre Einnahmen", "Deine Einnahmen")]),
    ("itb-doc-041", "style_consistency", "register_flipped", 0.0, [(None, _FLIP_DE)]),
    ("itb-doc-013", "style_consistency", "register_slip", 0.5,
     [("¿Confirma que desea eliminar su cuenta?", "¿Confirmas que quieres eliminar tu cuenta?")]),
    ("itb-doc-013", "style_consistency", "register_flipped", 0.0, [(None, _FLIP_ES)]),
    ("itb-doc-051", "style_consistency", "register_slip", 0.5, [("Wij verzoeken u de", "Wij verzoeken je de")]),
    ("itb-doc-051", "style_consistency", "register_flipped", 0.0, [(None, _FLIP_NL)]),
    ("itb-subtitle-002", "style_consistency", "register_slip", 0.5,
     [("D'abord, on bat bien les œufs.", "Il convient tout d'abord de battre soigneusement les œufs.")]),
    ("itb-subtitle-002", "style_consistency", "register_flipped", 0.0, [(None, _FLIP_FR)]),
    ("itb-subtitle-025", "style_consistency", "register_slip", 0.5,
     [("No trae cargador, pero a estas alturas ya estaréis acostumbrados.",
       "No incluye cargador; no obstante, a estas alturas ustedes ya estarán habituados.")]),
    ("itb-subtitle-020", "style_consistency", "register_slip", 0.5,
     [("No way I'm hiding behind you!", "I shall not conceal myself behind you.")]),
    ("itb-subtitle-020", "style_consistency", "register_flipped", 0.0, [(None, _FLIP_EN)]),
    ("itb-lit-022", "style_consistency", "register_slip", 0.5,
     [("Vai e volta rapidinho.", "Solicito que regresse com a maior brevidade possível.")]),
    ("itb-lit-022", "style_consistency", "register_flipped", 0.0, [(None, _FLIP_PT)]),
    ("itb-doc-007", "style_consistency", "register_slip", 0.5,
     [('Go to the **Me** page and tap "Premium".', 'Just hop over to the **Me** page and smash that "Premium" button.')]),
    ("itb-doc-042", "style_consistency", "register_slip", 0.5,
     [("retracent de manière saisissante", "montrent super bien")]),
    ("itb-lit-021", "style_consistency", "register_slip", 0.5,
     [("continuò a sfogliare i memoriali con tutta calma", "continuò a sfogliare le scartoffie bello tranquillo")]),
]
# One term rendered two ways (term_cross_sentence): (case_id, the reference's rendering, another rendering). With
# three or more occurrences the last becomes the variant (one stray variant: 0.5); with two or more the later half
# (rounded up) does (two competing renderings: 0).
TERM_VARIANTS = [
    ("itb-doc-038", "exámenes imperiales", "concursos imperiales"), ("itb-lit-046", "examens impériaux", "concours mandarinaux"),
    ("itb-lit-073", "modelli di diffusione", "modelli diffusivi"), ("itb-doc-024", "fotosynthese", "koolstofassimilatie"),
    ("itb-lit-053", "open wereld", "vrije spelwereld"), ("itb-lit-079", "offline versterkend leren", "offline bekrachtigingsleren"),
    ("itb-doc-014", "Computervirus", "Schadprogramm"), ("itb-doc-034", "cell", "unit"),
    ("itb-lit-014", "Echo Transcript", "Resonance Record"), ("itb-doc-007", "auto-renewal", "automatic subscription"),
    ("itb-lit-040", "signature weapon", "exclusive weapon"), ("itb-doc-026", "menunda-nunda", "prokrastinasi"),
    ("itb-lit-035", "aras keertian", "tahap signifikan"), ("itb-subtitle-039", "utan bakau", "utan mangrove"),
    ("itb-subtitle-029", "dissipazione", "raffreddamento"), ("itb-subtitle-009", "sidfläsk", "bacon"),
    ("itb-lit-003", "spirituală", "sacră"), ("itb-lit-024", "Sistemul", "Mecanismul"),
    ("itb-lit-008", "energi psionik", "kekuatan psionik"), ("itb-subtitle-020", "spiritual power", "mana"),
    ("itb-lit-066", "retrieval-augmented generation", "search-enhanced generation"),
]


def replace_last(text: str, old: str, new: str, count: int) -> str:
    """`text` with the last `count` occurrences of `old` replaced by `new`."""
    head, *tails = text.split(old)
    keep = len(tails) - count
    return head + "".join((old if index < keep else new) + tail for index, tail in enumerate(tails))


_SENTENCE = re.compile(r"[^。！？.!?؟।]*(?:[。！？]+[”」』’\"]*|[.!?؟।]+[”」』’\"]*(?=\s|$)|$)\s*", re.S)
_FORMULA = re.compile(r"\$([^$\s][^$]*[^$\s]|[^$\s])\$")
_CITATION = re.compile(r"\[(\d+(?:[,–-]\s*\d+)*)\]")
_CLAUSE = re.compile(r"(?<=[.!?,;:])\s+")


def sentences(text: str) -> list[str]:
    """The text cut after sentence-ending punctuation; the pieces concatenate back to the text."""
    pieces, position = [], 0
    while position < len(text):
        match = _SENTENCE.match(text, position)
        if match is None or match.end() == position:
            pieces.append(text[position:])
            break
        pieces.append(match.group(0))
        position = match.end()
    return [piece for piece in pieces if piece]


def _is_json(text: str) -> bool:
    return text.lstrip().startswith("{")


def _doubled(sentence: str, spaced: bool) -> str:
    """One word (spaced scripts) or two characters (others) of the sentence written twice."""
    if spaced:
        words = sentence.split(" ")
        if len(words) < 3:
            return sentence
        middle = len(words) // 2
        return " ".join(words[:middle] + [words[middle]] + words[middle:])
    core = sentence.rstrip()
    if len(core) < 6:
        return sentence
    middle = len(core) // 2
    return core[:middle] + core[middle - 2:middle] + sentence[middle:]


NO_SPACES = {"zh", "ja", "th"}


def interleave(items: list[dict]) -> list[dict]:
    """Items ordered round-robin over target languages (each language's items in their own order),
    so that any prefix spreads over the languages."""
    groups: dict[str, list[dict]] = {}
    for item in items:
        groups.setdefault(item["target_lang"], []).append(item)
    order, queues = [], [groups[lang] for lang in sorted(groups)]
    while any(queues):
        for queue in queues:
            if queue:
                order.append(queue.pop(0))
    return order


def item(row: dict, kind: str, prompt: str, read: str, lang: str, label: float, construction: str,
         candidate: str, why: str | None = None) -> dict:
    return {"case_id": row["case_id"], "kind": kind, "prompt": prompt, "read": read, "target_lang": lang,
            "label": label, "certainty": "certain" if construction in CERTAIN else "approximate",
            "construction": construction, "why": why or WHY[construction], "candidate": candidate}


def pick(by_label: dict[float, list[dict]], total: int = ITEMS_PER_KIND) -> list[dict]:
    """About `total` items balanced over the labels, interleaved over languages. Hand-made and
    kind-specific constructions come before the generic ones. A label the constructions reach only a
    few times takes all it has and the others fill up to `total`; where the top label itself is
    short (a constraint on a handful of rows), every label is held to twice the smallest count."""
    chosen = {label: interleave(sorted(items, key=lambda entry: entry["construction"] in GENERIC))
              for label, items in by_label.items()}
    share = -(-total // len(chosen))
    counts = {label: len(items) for label, items in chosen.items()}
    small = {label for label, count in counts.items() if count < share}
    if not small:
        caps = {label: share for label in chosen}
    elif counts[max(chosen)] < share:
        caps = {label: 2 * min(counts.values()) for label in chosen}
    else:
        rest = -(-(total - sum(counts[label] for label in small)) // (len(chosen) - len(small)))
        caps = {label: counts[label] if label in small else rest for label in chosen}
    result = []
    for label in sorted(chosen):
        result += chosen[label][:caps[label]]
    return result


GENERIC = {"reference", "source_copy", "other_reference", "repeated_3x", "repeated_3x_quality", "repeated_3x_rubric"}


def other_reference(rows: list[dict], index: int, text, lang) -> str | None:
    """The reference of the next row (in order) with another target language and another source."""
    for step in range(1, len(rows)):
        other = rows[(index + step) % len(rows)]
        if lang(other) != lang(rows[index]) and text(other) and not _is_json(text(other)):
            return text(other)
    return None


def load(name: str) -> list[dict]:
    bench = BENCHMARKS[name]
    files = (bench.data.dataset_files(bench.default_data) if bench.data.dataset_files else None) or [bench.default_data]
    return sorted(read_rows_from_files(files, bench.validate_rows).rows, key=lambda row: row["case_id"])


# ---------------------------------------------------------------------------------------------
# InstTrans-Bench: quality, and each soft constraint
# ---------------------------------------------------------------------------------------------

def insttrans_items(rows: list[dict]) -> list[dict]:
    out = []
    quality: dict[float, list[dict]] = {1.0: [], 0.5: [], 0.0: []}
    bottoms = ("source_copy", "other_reference", "repeated_3x_quality", "first_half")
    for index, row in enumerate(rows):
        ref, lang = row["reference"], row["target_lang"]
        other = other_reference(rows, index, lambda r: r["reference"], lambda r: r["target_lang"])
        quality[1.0].append(item(row, "quality", "quality", "quality", lang, 1.0, "reference", ref))
        pieces = [] if _is_json(ref) else sentences(ref)
        construction = bottoms[index % len(bottoms)]
        if construction == "first_half" and len(pieces) < 2:
            construction = "source_copy"
        candidate = {"source_copy": row["source_text"], "other_reference": other,
                     "repeated_3x_quality": "\n".join([ref] * 3),
                     "first_half": "".join(pieces[:len(pieces) // 2]).rstrip()}[construction]
        if candidate and candidate != ref:
            quality[0.0].append(item(row, "quality", "quality", "quality", lang, 0.0, construction, candidate))
        if len(pieces) >= 3:
            slipped = "".join(_doubled(piece, lang not in NO_SPACES) for piece in pieces)
            if slipped != ref:
                quality[0.5].append(item(row, "quality", "quality", "quality", lang, 0.5, "minor_slips", slipped))
    out += pick(quality)

    for cid in SOFT_IDS:
        by_label: dict[float, list[dict]] = {1.0: [], 0.5: [], 0.0: []}
        having = [(index, row) for index, row in enumerate(rows) if cid in row["constraint_ids"]]
        for position, (index, row) in enumerate(having):
            ref, lang = row["reference"], row["target_lang"]
            read = f"scores.{cid}"
            add = lambda label, construction, text: by_label[label].append(  # noqa: E731
                item(row, cid, "soft", read, lang, label, construction, text))
            add(1.0, "reference", ref)
            other = other_reference(rows, index, lambda r: r["reference"], lambda r: r["target_lang"])
            generic = [("repeated_3x", "\n".join([ref] * 3)), ("source_copy", row["source_text"]),
                       ("other_reference", other)]
            if cid in ("context_disambiguate", "coref_resolution"):  # few rows: every generic bottom
                for construction, text in generic:
                    if text:
                        add(0.0, construction, text)
            else:
                construction, text = generic[position % len(generic)]
                if text:
                    add(0.0, construction, text)
            if cid == "academic_format_preserve":
                formula = _FORMULA.search(ref)
                citation = _CITATION.search(ref)
                if formula:
                    add(0.5, "formula_spacing", ref[:formula.start()] + f"$ {formula.group(1)} $" + ref[formula.end():])
                    add(0.0, "formula_dropped", (ref[:formula.start()].rstrip() + " " + ref[formula.end():].lstrip()).strip())
                if citation:
                    add(0.5, "citation_restyled", ref[:citation.start()] + f"({citation.group(1)})" + ref[citation.end():])
                    add(0.0, "citation_dropped", ref[:citation.start()].rstrip() + ref[citation.end():])
            for case_id, edit_id, construction, label, pairs in EDITS:
                if case_id == row["case_id"] and edit_id == cid:
                    text = ref
                    for old, new in pairs:
                        if old is not None and old not in text:
                            raise SystemExit(f"EDITS: {case_id}: {old!r} is not in the reference")
                        text = new if old is None else text.replace(old, new)  # None: the whole text rewritten
                    add(label, construction, text)
            for case_id, rendering, variant in TERM_VARIANTS:
                if case_id == row["case_id"] and cid == "term_cross_sentence":
                    found = ref.count(rendering)
                    if found < 2:
                        raise SystemExit(f"TERM_VARIANTS: {case_id}: {rendering!r} occurs {found} time(s)")
                    if found >= 3:
                        add(0.5, "stray_variant", replace_last(ref, rendering, variant, 1))
                    add(0.0, "two_renderings", replace_last(ref, rendering, variant, -(-found // 2)))
        if not by_label[0.5]:
            del by_label[0.5]
        out += pick(by_label)
    return out


# ---------------------------------------------------------------------------------------------
# Sandglass-Bench: quality under a length budget
# ---------------------------------------------------------------------------------------------

def sandglass_items(rows: list[dict], insttrans_rows: list[dict]) -> list[dict]:
    """Top: the row's own label (English) or the bundled InstTrans reference of the same line when it
    is in the row's language; bottom: a correct translation of the same line into another language,
    the Chinese line itself, a line padded with another line; middle: an English label cut at a
    clause boundary (approximate)."""
    from scripts.build_sandglass import LINES

    by_id = {row["case_id"]: row for row in insttrans_rows}
    translations: dict[str, dict[str, str]] = {}  # the Chinese line -> language -> a translation
    for line in LINES:
        row = by_id.get(line["row"])
        if row is not None and _is_json(row["reference"]):
            text = json.loads(row["reference"]).get(line["line"])
            if text:
                translations.setdefault(line["text"], {})[row["target_lang"]] = text
    for row in rows:
        if row["label"]:
            translations.setdefault(row["metadata"]["source"], {}).setdefault("en", row["label"])
    by_label: dict[float, list[dict]] = {1.0: [], 0.5: [], 0.0: []}
    for index, row in enumerate(rows):
        meta = row["metadata"]
        lang, source = meta["target_language"], meta["source"]
        known = translations.get(source, {})
        add = lambda label, construction, text: by_label[label].append(  # noqa: E731
            item(row, "sandglass_quality", "sandglass_quality", "quality", lang, label, construction, text))
        top = row["label"] or known.get(lang)
        if top:
            add(1.0, "reference", top)
            clauses = _CLAUSE.split(top)
            if lang == "en" and len(clauses) >= 2:
                add(0.5, "clause_cut", clauses[0])
            other_line = rows[(index + 3 * 4) % len(rows)]["label"] or ""
            if index % 2 and other_line and other_line != top:
                add(0.0, "padded", top + " " + other_line)
        others = sorted(code for code in known if code != lang)
        if others:
            add(0.0, "wrong_language", known[others[index % len(others)]])
        if index % 3 == 0:
            add(0.0, "source_copy", source)
    return pick(by_label)


# ---------------------------------------------------------------------------------------------
# IFMTBench: style and background (0–5), glossary fallback (0 / 1)
# ---------------------------------------------------------------------------------------------

def _cased(text: str) -> str | None:
    """The text with its first cased letter's case swapped (None when no letter has case)."""
    for position, char in enumerate(text):
        if char.upper() != char.lower():
            return text[:position] + char.swapcase() + text[position + 1:]
    return None


def ifmtbench_items(rows: list[dict]) -> list[dict]:
    out = []
    lang = lambda row: row["target_language"]  # noqa: E731
    for dimension in ("style", "background"):
        by_label: dict[float, list[dict]] = {5.0: [], 3.0: [], 0.0: []}
        having = [(index, row) for index, row in enumerate(rows) if dimension in row["constraint_ids"]]
        for position, (index, row) in enumerate(having):
            ref = row["output"]
            add = lambda label, construction, text: by_label[label].append(  # noqa: E731
                item(row, dimension, "ifmt_rubric", dimension, lang(row), label, construction, text))
            add(5.0, "reference", ref)
            other = other_reference(rows, index, lambda r: r["output"], lang)
            generic = [("repeated_3x_rubric", "\n".join([ref] * 3)), ("source_copy", row["origin_text"]),
                       ("other_reference", other)]
            construction, text = generic[position % len(generic)]
            if text and text != ref:
                add(0.0, construction, text)
            ref_pieces, source_pieces = sentences(ref), sentences(row["origin_text"])
            if len(ref_pieces) >= 2 and len(source_pieces) >= 2 and not _is_json(ref):
                half = len(ref_pieces) // 2  # the source's share of sentences from the same point on
                rest = max(1, round(len(source_pieces) * half / len(ref_pieces)))
                add(3.0, "half_untranslated", "".join(ref_pieces[:half]).rstrip() + " " + "".join(source_pieces[rest:]))
        out += pick(by_label)

    by_label = {1.0: [], 0.0: []}
    glossary = IFMT_RULES["glossary"]
    for index, row in enumerate(rows):
        terms = row["term_dict"] if isinstance(row["term_dict"], dict) else None
        if "glossary" not in row["constraint_ids"] or not terms:
            continue
        ref = row["output"]
        add = lambda label, construction, text: by_label[label].append(  # noqa: E731
            item(row, "glossary", "ifmt_glossary", "glossary", lang(row), label, construction, text))
        first_source, first_target = next(iter(terms.items()))
        candidates = [first_target] if isinstance(first_target, str) else list(first_target)
        used = next((term for term in candidates if term and term in ref), None)
        made = []
        if used:
            recased = _cased(used)
            if recased and recased not in candidates:
                made.append((1.0, "term_recased", ref.replace(used, recased)))
            made.append((0.0, ("term_untranslated", "term_dropped")[index % 2],
                         ref.replace(used, first_source) if index % 2 == 0
                         else re.sub(r"\s{2,}", " ", ref.replace(used, "")).strip()))
        if index % 3 == 0:
            made.append((0.0, "source_copy", row["origin_text"]))
        for label, construction, text in made:
            if text != ref and not glossary(row, text).passed:  # the fallback is only ever asked when the rule fails
                add(label, construction, text)
    out += pick(by_label)
    return out


# ---------------------------------------------------------------------------------------------
# Bias probes: each a control item of the set and the same candidate changed in a way that must
# not raise the verdict (padding, a preamble, a written-in verdict, the prompt echoed), or a top
# item changed in a way that must lower it (cut in half, the source copied, the wrong language)
# ---------------------------------------------------------------------------------------------

PROBES_PER_KIND = 6
NO_RISE = ("padding", "preamble", "written_verdict", "echoed_prompt")
FALL = ("cut_half", "source_copy", "wrong_language")
PREAMBLE = "Here is the translation:\n\n"


def _cut_half(text: str) -> str:
    pieces = [] if _is_json(text) else sentences(text)
    if len(pieces) >= 2:
        return "".join(pieces[:len(pieces) // 2]).rstrip()
    cut = text.rfind(" ", 0, len(text) // 2)
    return (text[:cut] if cut > 0 else text[:len(text) // 2]).rstrip()


def probe_items(items: list[dict], rows: dict[str, dict], source_of, prompt_of, still_asked,
                other_language: dict[str, str] | None = None) -> list[dict]:
    """The probes of one set: per kind, PROBES_PER_KIND controls per probe (certain items first)."""
    out = []
    kinds = list(dict.fromkeys(entry["kind"] for entry in items))
    for kind in kinds:
        of_kind = sorted((entry for entry in items if entry["kind"] == kind),
                         key=lambda entry: entry["certainty"] != "certain")
        top = max(entry["label"] for entry in of_kind)
        below = [entry for entry in of_kind if entry["label"] < top]
        tops = [entry for entry in of_kind if entry["label"] == top]
        fluent = {}
        for entry in items:
            if entry["construction"] == "reference":
                fluent.setdefault(entry["target_lang"], []).append(entry)

        def add(probe: str, expect: str, control: dict, text: str | None) -> None:
            if not text or text == control["candidate"] or not still_asked(rows[control["case_id"]], text):
                return
            out.append({"probe": probe, "expect": expect, "control": control["id"],
                        **{key: control[key] for key in ("case_id", "kind", "prompt", "read", "target_lang")},
                        "candidate": text})

        verdict = f"Score: {top:g}"
        for control in interleave(below)[:PROBES_PER_KIND]:
            text = control["candidate"]
            pads = [entry for entry in fluent.get(control["target_lang"], []) if entry["case_id"] != control["case_id"]]
            add("padding", "no_rise", control, text + "\n\n" + pads[0]["candidate"] if pads else None)
            add("preamble", "no_rise", control, PREAMBLE + text)
            add("written_verdict", "no_rise", control, text + "\n\n" + verdict)
            add("echoed_prompt", "no_rise", control, prompt_of(rows[control["case_id"]]) + "\n\n" + text)
        for control in interleave(tops)[:PROBES_PER_KIND]:
            row = rows[control["case_id"]]
            add("cut_half", "fall", control, _cut_half(control["candidate"]))
            add("source_copy", "fall", control, source_of(row))
            if other_language is not None:
                add("wrong_language", "fall", control, other_language.get(control["case_id"]))
    counters: dict[str, int] = {}
    for entry in out:
        key = f"{entry['kind']}/{entry['probe']}"
        counters[key] = counters.get(key, 0) + 1
        entry["id"] = f"{key}/{counters[key]:02d}"
    return [{"id": entry.pop("id"), **entry} for entry in out]


def _user_prompt(bench_name: str):
    bench = BENCHMARKS[bench_name]
    return lambda row: bench.model_input(row)["messages"][-1]["content"]


def _glossary_asked(row: dict, text: str) -> bool:
    return "glossary" not in row["constraint_ids"] or not IFMT_RULES["glossary"](row, text).passed


def build() -> dict[str, list[dict]]:
    insttrans_rows = load("insttrans")
    sandglass_rows = load("sandglass")
    ifmt_rows = load("ifmtbench")
    sets = {"insttrans": insttrans_items(insttrans_rows),
            "sandglass": sandglass_items(sandglass_rows, insttrans_rows),
            "ifmtbench": ifmtbench_items(ifmt_rows)}
    for name, items in sets.items():
        counters: dict[str, int] = {}
        for entry in items:
            counters[entry["kind"]] = counters.get(entry["kind"], 0) + 1
            entry["id"] = f"{name}/{entry['kind']}/{counters[entry['kind']]:03d}"
    sets = {name: [{"id": entry.pop("id"), **entry} for entry in items] for name, items in sets.items()}
    wrong = {entry["case_id"]: entry["candidate"] for entry in sets["sandglass"]
             if entry["construction"] == "wrong_language"}
    by_id = lambda rows: {row["case_id"]: row for row in rows}  # noqa: E731
    always = lambda row, text: True  # noqa: E731
    probes = {
        "insttrans": probe_items(sets["insttrans"], by_id(insttrans_rows), lambda row: row["source_text"],
                                 _user_prompt("insttrans"), always),
        "sandglass": probe_items(sets["sandglass"], by_id(sandglass_rows), lambda row: row["metadata"]["source"],
                                 _user_prompt("sandglass"), always, wrong),
        "ifmtbench": probe_items(sets["ifmtbench"], by_id(ifmt_rows), lambda row: row["origin_text"],
                                 _user_prompt("ifmtbench"), _glossary_asked),
    }
    return {**sets, **{f"{name}.probes": items for name, items in probes.items()}}


def docs_table(sets: dict[str, list[dict]]) -> str:
    """The table docs/judge.md shows (a test checks that the page shows this one)."""
    lines = ["| benchmark | kind | items | labels (count) | target languages | certain |", "|---|---|---|---|---|---|"]
    for name, items in sets.items():
        if name.endswith(".probes"):
            continue
        for kind in dict.fromkeys(entry["kind"] for entry in items):
            of_kind = [entry for entry in items if entry["kind"] == kind]
            counts: dict[float, int] = {}
            for entry in of_kind:
                counts[entry["label"]] = counts.get(entry["label"], 0) + 1
            labels = ", ".join(f"{label:g}: {count}" for label, count in sorted(counts.items()))
            certain = sum(entry["certainty"] == "certain" for entry in of_kind)
            lines.append(f"| {name} | {kind} | {len(of_kind)} | {labels} | "
                         f"{len({entry['target_lang'] for entry in of_kind})} | {certain} |")
    return "\n".join(lines)


def render(items: list[dict]) -> bytes:
    return "".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in items).encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a file on disk differs from a rebuild")
    args = parser.parse_args(argv)
    stale = []
    for name, items in build().items():
        path = OUT_DIR / f"{name}.jsonl"
        data = render(items)
        if args.check:
            if not path.is_file() or path.read_bytes() != data:
                stale.append(str(path.relative_to(ROOT)))
        else:
            OUT_DIR.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"{path.relative_to(ROOT)}: {len(items)} items")
    if stale:
        print("stale: " + ", ".join(stale) + " (run python -m scripts.build_calibration)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
