"""Build the Judge's known-answer sets (SPEC §17) from the bundled data.

    python -m scripts.build_calibration           # write data/calibration/{insttrans,sandglass,ifmtbench}[.probes].jsonl
    python -m scripts.build_calibration --check   # exit 1 when a file on disk differs from a rebuild

Every item is a real bundled row and a candidate made from it by a named construction whose right
label follows from how it was made and from the harness's own rubric (eval/insttrans/prompts.py,
eval/sandglass/prompt.py, eval/ifmtbench/prompt.py): the reference is top; the source left
untranslated, another row's reference, the reference repeated three times, a correct translation
into another language are bottom; mechanical damage the rubric names (spacing inside a formula, a
citation marker restyled) is middle. A few constructions are edits written by hand for a named
row (a pronoun bound to the wrong antecedent, an ambiguous word given the wrong sense, one phrase
out of the requested register, one part of an IFMTBench text out of its style or scene), listed in
EDITS and IFMT_EDITS; a few are this team's own translations: WRITTEN (Sandglass lines into the
three languages without labels) and OTHER_LANGUAGE (a source into a third language, for the
wrong_language probe).
Each item says whether its label is `certain` (the rubric's own words decide it) or
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
from eval.io.data import read_rows_from_files
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
    "term_left_out": "rubric 0.5: one rendering dominates, with one occurrence of the term left out",
    "unclear_reference": "rubric 0.5: the chain is right overall, but one reference could point elsewhere",
    "wrong_sense": "rubric 0: another sense of the ambiguous expression is used",
    "vague_sense": "rubric 0.5: the stated sense is chosen, but one occurrence is vague",
    "sense_kept": "rubric 1: another word of the same, stated sense; every occurrence still carries it",
    "antecedent_named": "rubric 1: a reference written as the stated antecedent's name points to it, with no new ambiguity",
    "wrong_language": "a correct translation into another language: not in the target language, so 0",
    "clause_cut": "the gist survives but a detail the line needs is lost: 0.5",
    "translation": "a correct translation of the line, written by this team for the set, conveys its message in "
                   "natural spoken language: 1",
    "detail_lost": "the same translation with a detail the line needs left out (a number, a time, a place): the gist "
                   "is right, but a detail that matters is lost: 0.5",
    "padded": "the line padded with another line's content (invented content): 0",
    "style_half": "the required style kept in one part and dropped for a plain or opposite register in the other "
                  "(partly met, applied unevenly): 3",
    "setting_half": "one part fits the given scene and speaker, the other is worded as nobody in that scene would "
                    "say it, or misreads it (partly met, noticeable lapses): 3",
    "half_untranslated": "the requirement is met in the translated half only, the rest is left in the source "
                         "language (partly met, applied unevenly): 3",
    "term_recased": "the required term is applied with only its casing changed, which the exact-match test "
                    "misses and the glossary prompt allows: 1",
    "term_untranslated": "the glossary prompt: a term left untranslated is not applied: 0",
    "term_dropped": "the glossary prompt: a term left out is not applied: 0",
}
CERTAIN = {"reference", "source_copy", "other_reference", "repeated_3x", "repeated_3x_quality",
           "repeated_3x_rubric", "first_half", "formula_spacing", "citation_restyled", "formula_dropped",
           "citation_dropped", "wrong_antecedent", "wrong_sense", "sense_kept", "antecedent_named", "translation", "register_flipped", "two_renderings", "wrong_language", "term_untranslated",
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
# Rows written for these two constraints (issue 36) and more edits of the rows above: per row the other sense or
# person (0), one or two single-occurrence vague renderings or bare pronouns (0.5 each), and a top candidate that is
# not the reference: the same sense in another word, or a pronoun written as the stated antecedent's name (1).
EDITS += [
    ("itb-lit-006", "context_disambiguate", "sense_kept", 1.0, [("Oma is gisteravond overleden.", "Oma is gisteravond gestorven.")]),
    ("itb-lit-006", "context_disambiguate", "vague_sense", 0.5, [("Ze is heel vredig heengegaan.", "Ze is heel vredig gegaan.")]),
    ("itb-lit-015", "context_disambiguate", "sense_kept", 1.0, [("「主人が", "「夫が")]),
    ("itb-lit-022", "context_disambiguate", "sense_kept", 1.0, [("no banheiro", "no toalete")]),
    ("itb-lit-022", "context_disambiguate", "vague_sense", 0.5, [("dar uma passada no banheiro", "dar uma saidinha")]),
    ("itb-doc-053", "context_disambiguate", "sense_kept", 1.0, [("jewawut (milet)", "milet")]),
    ("itb-doc-053", "context_disambiguate", "vague_sense", 0.5, [("paket hadiah jewawut (milet)", "paket hadiah spesial")]),
    ("itb-lit-094", "context_disambiguate", "wrong_sense", 0.0,
     [("Ce n'est qu'un petit cadeau, ne le refusez surtout pas.", "Ce n'est qu'une petite remarque, ne la rejetez surtout pas."),
      ("son petit cadeau", "sa petite remarque")]),
    ("itb-lit-094", "context_disambiguate", "vague_sense", 0.5, [("son petit cadeau", "son petit quelque chose")]),
    ("itb-lit-094", "context_disambiguate", "vague_sense", 0.5, [("Ce n'est qu'un petit cadeau", "Ce n'est qu'un petit geste")]),
    ("itb-lit-094", "context_disambiguate", "sense_kept", 1.0, [("petit cadeau", "petit présent")]),
    ("itb-lit-095", "context_disambiguate", "wrong_sense", 0.0,
     [("decidió volver en taxi", "decidió llamar a alguien para que la recogiera"),
      ("ya había cogido un taxi tres veces", "ya había hecho tres llamadas")]),
    ("itb-lit-095", "context_disambiguate", "vague_sense", 0.5, [("decidió volver en taxi", "decidió buscarse la vida para volver")]),
    ("itb-lit-095", "context_disambiguate", "vague_sense", 0.5,
     [("ya había cogido un taxi tres veces", "ya se había dado ese lujo tres veces")]),
    ("itb-lit-095", "context_disambiguate", "sense_kept", 1.0, [("ya había cogido un taxi", "ya había tomado un taxi")]),
    ("itb-doc-061", "context_disambiguate", "wrong_sense", 0.0,
     [("пышно цветут рододендроны", "громко кукуют кукушки"),
      ("рододендроны больше всего боятся засухи, поэтому растут", "кукушки больше всего боятся засухи, поэтому гнездятся")]),
    ("itb-doc-061", "context_disambiguate", "vague_sense", 0.5,
     [("Местные жители говорят, что рододендроны", "Местные жители говорят, что дуцзюань")]),
    ("itb-doc-061", "context_disambiguate", "vague_sense", 0.5, [("пышно цветут рододендроны", "пышно цветут дуцзюань")]),
    ("itb-doc-061", "context_disambiguate", "sense_kept", 1.0, [("рододендроны", "азалии")]),
    ("itb-lit-096", "context_disambiguate", "wrong_sense", 0.0,
     [("애플의 이번", "사과의 이번"), ("애널리스트는 애플이", "애널리스트는 사과가")]),
    ("itb-lit-096", "context_disambiguate", "vague_sense", 0.5, [("애플의 이번", "'핑궈'의 이번")]),
    ("itb-lit-096", "context_disambiguate", "vague_sense", 0.5, [("애널리스트는 애플이", "애널리스트는 '핑궈'가")]),
    ("itb-lit-096", "context_disambiguate", "sense_kept", 1.0, [("애플의 이번", "애플사의 이번")]),
    ("itb-lit-097", "context_disambiguate", "wrong_sense", 0.0,
     [("you're going to pay for this!", "I'll go over the accounts with you!"),
      ("how to get even with them", "how to go over the accounts with them")]),
    ("itb-lit-097", "context_disambiguate", "vague_sense", 0.5, [("how to get even with them", "how to settle things with them")]),
    ("itb-lit-097", "context_disambiguate", "vague_sense", 0.5,
     [("you're going to pay for this!", "we're going to sort this out!")]),
    ("itb-lit-097", "context_disambiguate", "sense_kept", 1.0, [("how to get even with them", "how to pay them back")]),
    ("itb-lit-029", "coref_resolution", "unclear_reference", 0.5, [("que Helen plantara", "que ela plantara")]),
    ("itb-lit-018", "coref_resolution", "antecedent_named", 1.0, [("hacia él.", "hacia el capitán Chen.")]),
    ("itb-lit-002", "coref_resolution", "antecedent_named", 1.0, [("Та не обернулась", "Линь Вань не обернулась")]),
    ("itb-lit-002", "coref_resolution", "unclear_reference", 0.5, [("что запястье Линь Вань", "что её запястье")]),
    ("itb-lit-098", "coref_resolution", "wrong_antecedent", 0.0,
     [("Chen sah auf die Uhr", "Liu sah auf die Uhr"), ("doch Chen winkte ab", "doch Liu winkte ab")]),
    ("itb-lit-098", "coref_resolution", "unclear_reference", 0.5, [("doch Chen winkte ab", "doch er winkte ab")]),
    ("itb-lit-098", "coref_resolution", "unclear_reference", 0.5, [("Chen sah auf die Uhr", "Er sah auf die Uhr")]),
    ("itb-lit-098", "coref_resolution", "antecedent_named", 1.0, [("Liu redete ihm zu", "Liu redete Chen zu")]),
    ("itb-lit-099", "coref_resolution", "wrong_antecedent", 0.0,
     [("mais Wang Mei ne répondit pas", "mais Zhao Lin ne répondit pas"),
      ("Ce n'est que lorsque Zhao Lin la rattrapa que Wang Mei s'arrêta",
       "Ce n'est que lorsque Wang Mei la rattrapa que Zhao Lin s'arrêta")]),
    ("itb-lit-099", "coref_resolution", "unclear_reference", 0.5, [("mais Wang Mei ne répondit pas", "mais elle ne répondit pas")]),
    ("itb-lit-099", "coref_resolution", "unclear_reference", 0.5, [("que Wang Mei s'arrêta", "qu'elle s'arrêta")]),
    ("itb-lit-099", "coref_resolution", "antecedent_named", 1.0, [("Zhao Lin lui demanda", "Zhao Lin demanda à Wang Mei")]),
    ("itb-lit-100", "coref_resolution", "wrong_antecedent", 0.0,
     [("ma il vecchio Zhao non era comunque tranquillo", "ma Zhao Ming non era comunque tranquillo"),
      ("Quella sera, il vecchio Zhao restò", "Quella sera, Zhao Ming restò")]),
    ("itb-lit-100", "coref_resolution", "unclear_reference", 0.5, [("Quella sera, il vecchio Zhao restò", "Quella sera, lui restò")]),
    ("itb-lit-100", "coref_resolution", "unclear_reference", 0.5,
     [("ma il vecchio Zhao non era comunque tranquillo", "ma lui non era comunque tranquillo")]),
    ("itb-lit-100", "coref_resolution", "antecedent_named", 1.0, [("e gli raccomandò", "e raccomandò a Zhao Ming")]),
    ("itb-lit-101", "coref_resolution", "wrong_antecedent", 0.0,
     [("Xiulan leaned her soaked umbrella", "A-Zhen leaned her soaked umbrella"), ("Xiulan took it", "A-Zhen took it")]),
    ("itb-lit-101", "coref_resolution", "unclear_reference", 0.5,
     [("Xiulan leaned her soaked umbrella", "She leaned her soaked umbrella")]),
    ("itb-lit-101", "coref_resolution", "unclear_reference", 0.5, [("; Xiulan took it", "; she took it")]),
    ("itb-lit-101", "coref_resolution", "antecedent_named", 1.0, [("ladled a bowl for her", "ladled a bowl for Xiulan")]),
    ("itb-lit-102", "coref_resolution", "wrong_antecedent", 0.0,
     [("A-Jie haalde zijn hengel in", "Xiao Guang haalde zijn hengel in"),
      ("maar A-Jie nam het hem niet kwalijk", "maar Xiao Guang nam het hem niet kwalijk")]),
    ("itb-lit-102", "coref_resolution", "unclear_reference", 0.5, [("A-Jie haalde zijn hengel in", "Hij haalde zijn hengel in")]),
    ("itb-lit-102", "coref_resolution", "unclear_reference", 0.5,
     [("maar A-Jie nam het hem niet kwalijk", "maar hij nam het hem niet kwalijk")]),
    ("itb-lit-102", "coref_resolution", "antecedent_named", 1.0, [("lachte hem uit", "lachte A-Jie uit")]),
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
EDITS += [  # issue 36: more register slips, so the middle label holds an equal share (one phrase or address each)
    ("itb-doc-041", "style_consistency", "register_slip", 0.5,
     [("Bitte prüfen Sie den Zahlungseingang.", "Check mal, ob die Kohle da ist.")]),
    ("itb-subtitle-016", "style_consistency", "register_slip", 0.5,
     [("das sollten Sie sich ansehen", "das solltest du dir ansehen")]),
    ("itb-doc-034", "style_consistency", "register_slip", 0.5,
     [("which is why it is often called the", "which is why folks kinda call it the")]),
    ("itb-doc-038", "style_consistency", "register_slip", 0.5,
     [("abrieron a los hijos de familias plebeyas las puertas de la carrera administrativa",
       "les abrieron la puerta a los chavales de familias normalitas para pillar curro en la administración")]),
]
# One occurrence of a two-occurrence term left out (term_cross_sentence), the sentence written around the gap:
# the other occurrence still carries the reference's rendering (rubric 0.5: "one occurrence left out").
EDITS += [
    ("itb-lit-079", "term_cross_sentence", "term_left_out", 0.5,
     [("het kernprobleem van offline versterkend leren:", "het kernprobleem:")]),
    ("itb-subtitle-029", "term_cross_sentence", "term_left_out", 0.5, [("Ora la dissipazione fa", "Ora fa")]),
    ("itb-subtitle-009", "term_cross_sentence", "term_left_out", 0.5, [("är sidfläsket färdigt", "är det färdigt")]),
    ("itb-lit-014", "term_cross_sentence", "term_left_out", 0.5,
     [("An Echo Transcript is a patchwork", "It is a patchwork")]),
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

# IFMTBench, the 0–5 rubric's middle band (issue 36): hand edits of a row's reference, as EDITS. `style_half`: one part
# in the required style, the other in a plain or opposite register; `setting_half`: one part fits the given scene,
# the other is worded as nobody in it would say it, or misreads it. Both "partly met": 3 (approximate).
IFMT_EDITS = [
    ("418548a5d7298d0fa764e3288fbac8e0:en", "style", "style_half", 3.0,
     [("please rest assured that we will ship your order", "don't sweat it, we'll get your stuff out")]),
    ("54ef73ce5b3dc0068197fc3dd8776abb", "style", "style_half", 3.0,
     [("shall bear the costs of restoration to original condition", "has to pay for fixing the place back up")]),
    ("990d2b37902f4d46368be9d213dcfe80:fr", "style", "style_half", 3.0,
     [("le vendeur s'engage à rembourser l'intégralité du prix d'achat", "le vendeur vous rend tous vos sous")]),
    ("acd9294d36e6553a634891fe013f3350:es", "style", "style_half", 3.0,
     [("No lleguéis tarde, ¿eh?", "Se ruega a los asistentes la máxima puntualidad.")]),
    ("2c7bfa496473c4995f0425e3072dfa6c:de", "style", "style_half", 3.0,
     [("Funklöcher gehören der Vergangenheit an!", "Bereiche ohne Empfang treten damit seltener auf.")]),
    ("bc585078eb58ed5e5ca9927509ce6d9e:en", "style", "style_half", 3.0,
     [("There is no need to apply separately.", "No need to bug us about it.")]),
    ("b14825f751acc1f9b6329f993a99cd89:ja", "style", "style_half", 3.0,
     [("来週改めてご確認いただけますと幸いです。", "来週また見てね。")]),
    ("12cc06b219966032cc5dea0495e6c9e8:fr", "style", "style_half", 3.0,
     [("Né dans les jardins de haute montagne", "Ce thé provient de plantations situées en altitude")]),
    ("d52393bbf0c208288eaa79b88382e073", "style", "style_half", 3.0,
     [("Netzwerk prüfen und erneut versuchen.",
       "Bitte überprüfen Sie gegebenenfalls Ihre Netzwerkverbindung und versuchen Sie es anschließend noch einmal.")]),
    ("99783d7db34fac6fe347a334aae56e26:en", "background", "setting_half", 3.0,
     [("is adjourned until March 12", "is put off till March 12")]),
    ("70fbf669d21d2b231431cd43ccc831ef:en", "background", "setting_half", 3.0,
     [("rose 12% year on year", "went up, like, 12% on last year")]),
    ("0a94dbb2d1034a3556c632ba4dabdd5c:ja", "background", "setting_half", 3.0,
     [("午前中は故宮を見学し、午後は自由行動となります。", "午前：故宮見学。午後：自由行動。")]),
    ("b55682f4ab8bd5de64d043324efbee0f:en", "background", "setting_half", 3.0,
     [("may your home soon be blessed with children!", "may you soon reproduce!")]),
    ("dc80f84b3ca27f1bbdb047b8f56fde7b:es", "background", "setting_half", 3.0,
     [("las molestias ocasionadas", "el follón")]),
    ("bd05fa47921112852cef51fad69b7fca", "background", "setting_half", 3.0,
     [("rédiger le projet de loi", "rédiger le truc sur les loyers")]),
    ("9904685218552f20ed0d3d5693433193:ja", "background", "setting_half", 3.0,
     [("ベンチはペンキ塗りたてです！", "このベンチさっき塗ったばっかなんだよね！")]),
    ("72aa4854ed234cf3d478907f4ac3416d:zh", "background", "setting_half", 3.0, [("我听不见自己的声音。", "本人无法听清自身之嗓音。")]),
    ("7367536cf36c6aa0a77939abf21ec6a2:zh", "background", "setting_half", 3.0,
     [("你能去河岸那边检查一下吗？", "烦请阁下移步河岸进行巡查。")]),
]


def _edited(case_id: str, ref: str, pairs: list) -> str:
    """The reference with each (old, new) of a hand edit applied; a stale `old` stops the build."""
    text = ref
    for old, new in pairs:
        if old is not None and old not in text:
            raise SystemExit(f"EDITS / IFMT_EDITS: {case_id}: {old!r} is not in the reference")
        text = new if old is None else text.replace(old, new)  # None: the whole text rewritten
    return text


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


def interleave(items: list[dict], start: int = 0) -> list[dict]:
    """Items ordered round-robin over target languages (each language's items in their own order),
    so that any prefix spreads over the languages; the round starts at the `start`-th language."""
    groups: dict[str, list[dict]] = {}
    for item in items:
        groups.setdefault(item["target_lang"], []).append(item)
    order, queues = [], [groups[lang] for lang in sorted(groups)]
    queues = queues[start % len(queues):] + queues[:start % len(queues)] if queues else queues
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


def pick(by_label: dict[float, list[dict]], total: int = ITEMS_PER_KIND, rotate: bool = False) -> list[dict]:
    """About `total` items balanced over the labels, interleaved over languages. Hand-made and
    kind-specific constructions come before the generic ones within a language, and a hand edit that
    the round over the languages would leave out takes the place of the last item that is not one.
    A label the constructions reach only a few times takes all it has and the others fill up to
    `total`; where the top label itself is short (a constraint on a handful of rows), every label is
    held to twice the smallest count. With `rotate`, each label's round over the languages starts one
    language later, so that a set with few languages ends up with as even a count per language as the
    totals allow."""
    chosen = {label: interleave(sorted(items, key=lambda entry: entry["construction"] in GENERIC),
                                position if rotate else 0)
              for position, (label, items) in enumerate(by_label.items())}
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
        head, tail = chosen[label][:caps[label]], chosen[label][caps[label]:]
        for entry in (entry for entry in tail if _hand_made(entry)):  # a hand edit always makes the cut
            spare = next((index for index in reversed(range(len(head))) if not _hand_made(head[index])), None)
            if spare is None:
                break
            head[spare] = entry
        result += head
    return result


def _hand_made(entry: dict) -> bool:
    """Whether the item is one of EDITS or IFMT_EDITS (written for its row: never left out for a generic one)."""
    return (entry["case_id"], entry["kind"], entry["construction"]) in {
        (case_id, kind, construction) for case_id, kind, construction, _, _ in EDITS + IFMT_EDITS}


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
                    add(label, construction, _edited(case_id, ref, pairs))
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

# Correct translations of Sandglass lines into the three languages without labels, written by this team for
# the set, each with the same translation missing a detail the line needs: the Chinese line -> language ->
# (translation, detail lost). They give Japanese, Spanish and Arabic rows a top and a middle item, so the set
# spreads over all four of the release's target languages.
WRITTEN = {
    "北境三座城池，一夜之间全部失守。": {
        "es": ("Las tres ciudades de la frontera norte cayeron en una sola noche.",
               "Las ciudades de la frontera norte cayeron."),
        "ja": ("北の国境の三つの城が、一夜にしてすべて陥落した。", "北の国境の城が陥落した。"),
        "ar": ("سقطت مدن الحدود الشمالية الثلاث كلها في ليلة واحدة.", "سقطت مدن الحدود الشمالية."),
    },
    "敦煌莫高窟，开凿于公元四世纪。": {
        "es": ("Las cuevas de Mogao, en Dunhuang, se excavaron en el siglo IV d. C.",
               "Las cuevas de Mogao, en Dunhuang, se excavaron hace mucho tiempo."),
        "ja": ("敦煌の莫高窟は、四世紀に開削されました。", "敦煌の莫高窟は、昔に開削されました。"),
        "ar": ("حُفرت كهوف موغاو في دونهوانغ في القرن الرابع الميلادي.", "حُفرت كهوف موغاو في دونهوانغ منذ زمن بعيد."),
    },
    "大熊猫每天要花十几个小时吃竹子。": {
        "es": ("El panda gigante pasa más de diez horas al día comiendo bambú.",
               "El panda gigante come bambú todos los días."),
        "ar": ("يقضي الباندا العملاق أكثر من عشر ساعات يوميًا في أكل الخيزران.", "يأكل الباندا العملاق الخيزران كل يوم."),
    },
    "这个项目，我们已经准备了整整三年。": {
        "ja": ("このプロジェクトのために、私たちは丸三年準備してきました。", "このプロジェクトのために、私たちは準備してきました。"),
    },
    "红树林生长在海陆交界的潮间带。": {
        "es": ("Los manglares crecen en la zona intermareal, donde la tierra se une con el mar.",
               "Los manglares crecen junto al mar."),
        "ja": ("マングローブは、陸と海の境目にある潮間帯に生えています。", "マングローブは海の近くに生えています。"),
        "ar": ("تنمو غابات المانغروف في منطقة المد والجزر حيث تلتقي اليابسة بالبحر.", "تنمو غابات المانغروف قرب البحر."),
    },
}


def _sandglass_references(rows: list[dict], insttrans_rows: list[dict]) -> dict[str, dict[str, str]]:
    """The Chinese line -> language -> a reference: the English labels and the bundled InstTrans
    references of the same line."""
    from scripts.build_sandglass import LINES

    by_id = {row["case_id"]: row for row in insttrans_rows}
    translations: dict[str, dict[str, str]] = {}
    for line in LINES:
        row = by_id.get(line["row"])
        if row is not None and _is_json(row["reference"]):
            text = json.loads(row["reference"]).get(line["line"])
            if text:
                translations.setdefault(line["text"], {})[row["target_lang"]] = text
    for row in rows:
        if row["label"]:
            translations.setdefault(row["metadata"]["source"], {}).setdefault("en", row["label"])
    return translations


def sandglass_other_language(rows: list[dict], insttrans_rows: list[dict]) -> dict[str, str]:
    """case_id -> a correct translation of the row's line into another of the languages (a reference
    or a WRITTEN translation), for the wrong_language probe."""
    translations = _sandglass_references(rows, insttrans_rows)
    out = {}
    for row in rows:
        lang, source = row["metadata"]["target_language"], row["metadata"]["source"]
        known = {**{code: pair[0] for code, pair in WRITTEN.get(source, {}).items()}, **translations.get(source, {})}
        others = sorted(code for code in known if code != lang)
        if others:
            out[row["case_id"]] = known[others[0]]
    return out


def sandglass_items(rows: list[dict], insttrans_rows: list[dict]) -> list[dict]:
    """Top: the row's own label (English), the bundled InstTrans reference of the same line when it
    is in the row's language, or this team's translation (WRITTEN); bottom: a correct translation of
    the same line into another language, the Chinese line itself, a line padded with another line;
    middle: an English label cut at a clause boundary, or a written translation with a detail lost
    (approximate). The set is balanced over the four target languages as well as the labels."""
    translations = _sandglass_references(rows, insttrans_rows)
    by_label: dict[float, list[dict]] = {1.0: [], 0.5: [], 0.0: []}
    for index, row in enumerate(rows):
        meta = row["metadata"]
        lang, source = meta["target_language"], meta["source"]
        known = translations.get(source, {})
        written = WRITTEN.get(source, {})
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
        if lang in written:
            add(1.0, "translation", written[lang][0])
            add(0.5, "detail_lost", written[lang][1])
        others = sorted(code for code in {**known, **written} if code != lang)
        if others:
            code = others[index % len(others)]
            add(0.0, "wrong_language", known[code] if code in known else written[code][0])
        if index % 3 == 0:
            add(0.0, "source_copy", source)
    return pick(by_label, rotate=True)


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
            for case_id, edit_kind, construction, label, pairs in IFMT_EDITS:
                if case_id == row["case_id"] and edit_kind == dimension:
                    add(label, construction, _edited(case_id, ref, pairs))
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

# A correct translation of a row's source into a language other than its target (and its source), written by
# this team, for the `wrong_language` probe: case_id -> (language, translation). Sandglass takes its own from
# the set (another language's translation of the same line); InstTrans and IFMTBench rows are translated into
# one language only, so the probe's candidates for their top controls are written here.
OTHER_LANGUAGE = {
    # InstTrans-Bench
    "itb-doc-014": ("en", "This computer virus does not become active immediately after infection; instead it stays hidden "
                          "in the system unnoticed and keeps copying itself. Only when the moment is right does the computer "
                          "virus suddenly strike, crippling many systems within a short time. That is exactly why detecting "
                          "computer viruses early is often more important than repairing the damage afterwards."),
    "itb-doc-004": ("en", "Little raindrops, pitter-patter, pitter-patter,\nslide softly down the roof.\n"
                          "Little frog, croak, croak,\njumps into the pond to look for Mama."),
    "itb-doc-015": ("en", "{{nickname}} started following you! You have {{count}} mutual follows: go and take a look at "
                          "their profile."),
    "itb-doc-013": ("en", '{"dialog": {"title": "Are you sure you want to delete your account?", "body": "Once the account '
                          'is deleted, your uploaded videos, your favourites and your coin history will be permanently '
                          'erased and cannot be recovered.", "button_ok": "Confirm deletion", "button_cancel": "Not now"}}'),
    "itb-doc-028": ("en", "The Silk Road was not a single road but a vast trade network linking East and West. Through this "
                          "network, silk, porcelain and tea were carried from China to Central Asia and Europe, while "
                          "spices, glassware and new religious ideas travelled east."),
    "itb-doc-055": ("en", "Your coin balance is insufficient. Current balance: {balance} coins; this action requires {cost} "
                          "coins. Please top up first and then try again."),
    "itb-doc-038": ("en", "The imperial examination system, which originated in the Sui dynasty, was the mechanism by which "
                          "ancient China selected its officials. Compared with earlier methods based on recommendation by "
                          "family lineage, the imperial examinations opened the door to an official career for the sons of "
                          "commoner families. During the Ming and Qing dynasties, however, the imperial examinations "
                          "gradually ossified, and the eight-legged essay ended up constraining the thinking of scholars."),
    "itb-lit-063": ("en", "Graph neural networks (GNNs) perform well on node classification tasks [3, 7]. However, when a "
                          "graph's homophily is low, the classic message-passing mechanism often fails. In this paper, we "
                          "propose an adaptive aggregation operator with the update rule $h_v^{(l+1)} = \\sigma\\left(\\sum_{u "
                          "\\in \\mathcal{N}(v)} \\alpha_{vu} W^{(l)} h_u^{(l)}\\right)$, where $\\alpha_{vu}$ is set "
                          "dynamically based on the similarity of the nodes' features. On six heterophilous graph datasets, "
                          "accuracy rose by 4.3% on average."),
    "itb-lit-072": ("en", "Let $G = (V, E)$ be a simple undirected graph with $|V| = n \\ge 3$. We give a short proof of "
                          "Dirac's theorem [2]: if the minimum degree of $G$ satisfies $\\delta(G) \\ge n/2$, then $G$ "
                          "contains a Hamiltonian cycle. The key idea of the proof is to consider a longest path $P = v_1 "
                          "v_2 \\cdots v_m$ and to analyse the neighbourhoods of its two endpoints."),
    "itb-lit-070": ("en", "We use Monte Carlo tree search (MCTS) for policy improvement \\cite{silver2016mastering}. At each "
                          "node, the action is selected according to the UCT criterion $a^* = \\arg\\max_a \\left( Q(s,a) + "
                          "c \\sqrt{\\frac{\\ln N(s)}{N(s,a)}} \\right)$, where $c$ is the exploration constant."),
    "itb-lit-015": ("en", "The tea party was about to break up when Mrs Shen finally arrived, late. Taking off her gloves, "
                          "she said apologetically: \"My husband is rather unwell today and asked me to offer you all his "
                          "apologies.\" Amid a chorus of \"Never mind\", only Miss Su, sitting in the corner, quietly set "
                          "down her teacup."),
    "itb-lit-018": ("en", "Old Zhou stubbed out his cigarette and stared for a long while at Captain Chen across the table. "
                          "He knew that if the case were overturned, his twenty years in uniform would have been for "
                          "nothing. Still, Zhou slid the report across to him."),
    "itb-lit-097": ("de", "Ah Qiang hielt sich die geschwollene Gesichtshälfte, rappelte sich vom Boden auf und rief der Bande "
                          "hinterher: „Wartet nur! Früher oder später werdet ihr dafür bezahlen!“ Zu Hause schlief er die "
                          "ganze Nacht nicht; er dachte nur daran, wie er es ihnen heimzahlen könnte."),
    "itb-lit-095": ("en", "The rain was getting heavier, and the last bus had long since gone. Xiao Zhou looked at her watch "
                          "at the street corner and decided to take a taxi home. When the driver heard she was going to the "
                          "west side of town, he hesitated, but in the end he let her in. She was doing the sums: she had "
                          "already taken a taxi three times this month, and she feared her pay would run short again."),
    "itb-lit-094": ("en", "Before leaving, old Wang took a red paper envelope from his bag and pressed it into Teacher Li's "
                          "hand: \"It's just a small gift, please don't refuse it.\" Teacher Li waved his hands and flatly "
                          "refused. Old Wang had to put his little gift back in his bag; he sighed and said he would come "
                          "back to thank him next year, once the child had passed the exam."),
    "itb-doc-053": ("en", "Mid-Autumn goodies are here! Show off your hometown mooncakes in the comments before this Friday, "
                          "and we'll draw 20 lucky viewers who will each get a gift box of millet."),
    "itb-lit-098": ("en", "Old Chen and young Liu had been waiting outside the warehouse gate for over an hour, and the truck "
                          "still hadn't come. Chen looked at his watch, took out his phone and dialled the driver's number "
                          "once more. Liu urged him not to get worked up, but Chen waved him off: if this delivery didn't "
                          "arrive today, he might as well give up his job as supervisor."),
    "itb-lit-101": ("de", "Als Xiulan die Tür aufstieß, stand A-Zhen am Herd und kochte Reisbrei. Xiulan lehnte ihren "
                          "durchnässten Schirm an den Türrahmen, rieb sich die Hände und sagte, draußen schneie es. A-Zhen "
                          "schöpfte ihr eine Schale auf; Xiulan nahm sie und hielt sie lange in den Händen, ohne zu trinken."),
    "itb-lit-099": ("en", "Wang Mei opened the letter; she had read only two lines when her face changed. Zhao Lin asked her "
                          "what was wrong, but Wang Mei did not answer: she folded the letter, slipped it into her pocket and "
                          "set off at once for the station. Only when Zhao Lin caught up with her did Wang Mei stop and say "
                          "quietly that her mother was ill."),
    "itb-lit-100": ("en", "Old Zhao handed the keys to his son, Zhao Ming, and told him several times to be careful on the "
                          "road. Zhao Ming nodded, but old Zhao still wasn't at ease: he walked him all the way downstairs "
                          "and went back in only when he saw the car turn out of the end of the lane. That evening, old "
                          "Zhao sat on the balcony and smoked half a pack of cigarettes."),
    # IFMTBench
    "418548a5d7298d0fa764e3288fbac8e0:en": ("de", "Lieber Herr Wang, seien Sie versichert, dass wir Ihre Bestellung vor "
                                                  "Freitag versenden."),
    "acd9294d36e6553a634891fe013f3350:es": ("en", "This Friday at seven the whole team is having dinner! Don't be late, "
                                                  "okay?"),
    "0a94dbb2d1034a3556c632ba4dabdd5c:ja": ("en", "Please gather in the hotel lobby at 8 a.m. tomorrow.\nIn the morning we "
                                                  "will visit the Forbidden City; the afternoon is free time."),
    "12cc06b219966032cc5dea0495e6c9e8:fr": ("en", "An exceptional tea||Born in high-mountain tea gardens||Taste it today"),
    "dc80f84b3ca27f1bbdb047b8f56fde7b:es": ("en", "We sincerely apologize for the inconvenience caused."),
    "bd05fa47921112852cef51fad69b7fca": ("de", "Können Sie heute Abend den Gesetzentwurf ausarbeiten?"),
    "c0818b1d1f87b2d512b75e352c959c1d": ("en", "Let me think this plan over a bit more."),
    "20c9f7cdd31894d97449e9027616f529": ("fr", "Le certificat pour <b>{host}</b> expire dans 7 jours."),
    "2deee10c253c7db74d91309c6c05125e:en": ("ja", "最後の小節で、みんなの音程が下がっていたよ。"),
    "10c2e6e01999b461acfdde47990bf542:de": ("en", "Your account could not be verified. Check your email and try again."),
    "072b8b7fca619c2c2c02575adaf69e88:de": ("fr", "La garantie devient caduque si l'appareil a été ouvert de manière "
                                                  "inappropriée."),
    "300f373858a679a4a4226548d26d54f4": ("fr", "Le locataire doit informer le bailleur par écrit de toute réparation "
                                               "nécessaire."),
    "2dce55b56cae4cc8b9cef3e8072d1de8:en": ("es", "Equipa la Hoja de escarcha para infligir daño adicional a los enemigos de "
                                                  "tipo fuego."),
}

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
            if entry["construction"] in ("reference", "translation"):  # a correct text of another row
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
    wrong = sandglass_other_language(sandglass_rows, insttrans_rows)
    written = {case_id: text for case_id, (_, text) in OTHER_LANGUAGE.items()}
    by_id = lambda rows: {row["case_id"]: row for row in rows}  # noqa: E731
    always = lambda row, text: True  # noqa: E731
    probes = {
        "insttrans": probe_items(sets["insttrans"], by_id(insttrans_rows), lambda row: row["source_text"],
                                 _user_prompt("insttrans"), always, written),
        "sandglass": probe_items(sets["sandglass"], by_id(sandglass_rows), lambda row: row["metadata"]["source"],
                                 _user_prompt("sandglass"), always, wrong),
        "ifmtbench": probe_items(sets["ifmtbench"], by_id(ifmt_rows), lambda row: row["origin_text"],
                                 _user_prompt("ifmtbench"), _glossary_asked, written),
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
