"""Spanish, Italian, Portuguese, Romanian and French words: vowel units and their glides."""

from __future__ import annotations

import re


# --- Romance languages -----------------------------------------------------------------------

_ES_STRONG = set("aeoáéóíú")


def _spanish_word(word: str) -> int:
    """Vowel groups; a group holds one syllable per strong vowel (a e o, accented í ú)."""
    if word == "y":
        return 1
    w = re.sub(r"(?<=[qg])u(?=[eiéí])", "", word)
    w = re.sub(r"y(?=[aeiouáéíóú])", "j", w)
    w = re.sub(r"(?<=[aeiouáéíóú])y", "i", w)
    count = 0
    for group in re.findall(r"[aeiouáéíóúüy]+", w):
        strong = sum(c in _ES_STRONG for c in group)
        count += max(1, strong)
    return count


_IT_STRONG = set("aeoàèéìíòóùú")


def _italian_word(word: str) -> int:
    """Vowel groups as in Spanish, with silent i after c/g/sc/gl and hiatus in short words."""
    w = re.sub(r"(?<=[qg])u(?=[aeioàèéìòó])", "w", word)
    w = re.sub(r"(?<=sc|gl)i(?=[aeouàèéòóù])", "", w)
    w = re.sub(r"(?<=[cg])i(?=[aouàòóù])", "", w)
    w = re.sub(r"(?<=[cg])i(?=e[^aeiou]*$)", "", w) if re.search(r"[cg]ie[^aeiou]*$", w) and not re.search(r"[aeiou].*[cg]ie", w) else w
    w = re.sub(r"(?<=[^aeiouqgàèéìíòóùú])ue", "úe", w)
    groups = re.findall(r"[aeiouàèéìíòóùúy]+", w)
    count = 0
    for group in groups:
        count += max(1, sum(c in _IT_STRONG for c in group))
        for run in re.finditer(r"[iuy]{2,}", group):
            touches_left = run.start() > 0
            touches_right = run.end() < len(group)
            if touches_left != touches_right:
                count += 1  # a-iu-to, bu-io: two glides cannot share one strong vowel
    if len(groups) == 1 and re.fullmatch(r"[iu][aeo]", groups[0]) and re.search(r"[iu][aeo]$", w):
        count = 2  # mio, tua, zio, due: stressed i/u in a monosyllable-looking word
    return count


_PT_STRONG = set("aeoáéóâêôãõíúàè")


def _portuguese_word(word: str) -> int:
    """Vowel groups; ã/õ + vowel, í/ú and i/u before nh or a closing consonant break a group."""
    w = re.sub(r"(?<=[qg])u(?=[eiéí])", "", word)
    w = re.sub(r"(?<=[bcdfgptv][lr])i(?=[aeoáéóâêôãõ])", "í", w)  # cri-an-ça, cli-en-te
    w = re.sub(r"(?<=[ãõ])[oe]", "w", w)
    w = re.sub(r"(?<=a)o", "w", w)
    w = re.sub(r"(?<=[aeiouáéíóúâêôãõ])i(?=(nh|[mnlrz](?![aeiouáéíóúâêôãõ])))", "í", w)
    w = re.sub(r"(?<=[aeiouáéíóúâêôãõ])u(?=([mnlrz](?![aeiouáéíóúâêôãõ])))", "ú", w)
    groups = re.findall(r"[aeiouáéíóúâêôãõàüy]+", w)
    count = 0
    for group in groups:
        count += max(1, sum(c in _PT_STRONG for c in group))
    if len(groups) == 1 and re.fullmatch(r"[iu][aeo]s?", groups[0] + ("s" if w.endswith("s") else "")) and re.search(r"[iu][aeo]s?$", w):
        count = 2  # dia, rio, lua, sua
    return count


_RO_DIPHTHONGS = ("ea", "oa", "ia", "ie", "io", "iu", "ua", "uă", "ai", "au", "ei", "eu", "ii", "oi",
                  "ou", "ui", "âi", "ăi", "ău", "îi", "âu", "îu", "ăo")
_RO_TRIPHTHONGS = ("eai", "eau", "iai", "iau", "ioa", "oai", "eoa", "iei", "ieu")


def _romanian_word(word: str) -> int:
    """Romanian vowels with diphthong/triphthong tables; final -i after a consonant is silent."""
    w = re.sub(r"(?:(?<=[cg])|(?<=[cg]h))[ei](?=[aouăâî])", "", word)
    w = re.sub(r"(?<=[cg]h)e(?=a)", "", w)
    w = re.sub(r"(?<=[aă])i(?=[^aeiouăâîi])", "-i", w)  # a-ici, gă-i-na
    w = re.sub(r"eu(?=l$|lui$)", "e-u", w)  # mu-ze-ul
    w = re.sub(r"(?<=[bcdfgptv][lr])ie", "i-e", w)  # pri-e-te-nii
    count = 0
    vowels = "aeiouăâî"
    for match in re.finditer(f"[{vowels}]+", w):
        group = match.group()
        i = 0
        while i < len(group):
            if group[i:i + 3] in _RO_TRIPHTHONGS:
                i += 3
            elif group[i:i + 2] in _RO_DIPHTHONGS and not (
                match.end() == len(w) and i + 2 == len(group) and group[i:i + 2] in ("ie", "ia") and match.start() + i > 0
                and len(re.findall(f"[{vowels}]+", w)) > 1
            ):
                i += 2
            else:
                i += 1
            count += 1
    if re.search(f"[^{vowels}]i$", w) and not re.search(f"[^{vowels}][lr]i$", w) and count > 1:
        count -= 1
    return max(count, 1) if re.search(f"[{vowels}]", w) else 0


_FR_UNITS = ("eau", "œu", "oeu", "aie", "ai", "aî", "ei", "au", "ou", "oû", "où", "oi", "oî", "eu", "eû", "œ",
             "ue", "ui", "ee", "oo")
_FR_UNIT = re.compile("|".join(map(re.escape, _FR_UNITS)))
_FR_PRONOUNCED_ENT = frozenset("""
moment comment parent souvent accident argent client content patient présent président récent
talent urgent agent absent différent évident excellent intelligent innocent serpent silent
vent dent cent lent gent sent ment rent arpent segment élément aliment ciment fragment
supplément événement évènement appartement gouvernement
""".split())
_FR_SILENT_ENT = frozenset("aiment sèment".split())
_FR_VOWEL = re.compile("[aeiouyéèêàâîïôûùœ]")


def _french_silent_final_e(w: str) -> str:
    """A final e/es dropped after a vowel, and always after é: what `re.search(r"[vowels].*(e|es)$")`
    then `re.sub(r"(e|es)$", "")` did, without the search that is quadratic on a long token."""
    ending = 2 if w.endswith("es") else 1 if w.endswith("e") else 0
    if ending and (w.endswith(("ée", "ées")) or _FR_VOWEL.search(w, 0, len(w) - ending)):
        return w[:-ending]
    return w


def _french_word(word: str) -> int:
    """French vowel units; final e/es and verbal -ent are silent; i/u/ou before a vowel glide."""
    w = word.replace("æ", "é")
    if re.search(r"ent$", w) and len(w) > 4:
        stem = w[:-3]
        pronounced = w in _FR_PRONOUNCED_ENT or (w.endswith("ment") and re.search(r"[aeiouéèêîûy]m?ment$", w) and w not in _FR_SILENT_ENT)
        if not pronounced and re.search(r"[aeiouyéèêàâîïôûù]", stem):
            w = stem + "e"
    w = re.sub(r"(?<=[qg])u(?=[aeiouéèêyi])", "", w)
    w = re.sub(r"(?<=g)e(?=[aoâuô])", "", w)
    w = re.sub(r"^pay(?=s)", "péi", w)  # pays, paysage, paysan: pé-i
    w = re.sub(r"(?<=[aeiou])y(?=[aeiouéè])", "ij", w)
    w = re.sub(r"(?<=[aeiou])y", "i", w)
    w = _french_silent_final_e(w)
    w = re.sub(r"(?<=[aeiouéè])e$", "", w)
    count = 0
    i = 0
    vowels = "aeiouyéèêàâîïôûùëüœ"
    while i < len(w):
        c = w[i]
        if c not in vowels:
            i += 1
            continue
        unit = _FR_UNIT.match(w, i)  # the first of _FR_UNITS, in order, that starts at i
        if unit:
            i = unit.end()
        else:
            glide = c in "iuy" or (c == "o" and w.startswith("ou", i))
            nxt = w[i + 1] if i + 1 < len(w) else ""
            prev2 = w[max(0, i - 2):i]
            after_cluster = len(prev2) == 2 and prev2[0] not in vowels and prev2[1] in "lr"
            if glide and nxt and nxt in "aeoéèêàâôu" and nxt not in "ï" and not after_cluster and i > 0:
                i += 1
                continue  # glide joins the next vowel: nation, lui, piano
            i += 1
        count += 1
    return count
