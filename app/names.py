"""People's names in the order a class list is read: Chinese names by pinyin, other names by letter.

Code point order put 张 (U+5F20) before 李 (U+674E) and 王 (U+738B) after both, nothing like a Chinese class
list (李 li, 王 wang, 张 zhang). A name's key reads each Han character as its pinyin syllable and each run of
other letters casefolded with its accents dropped (Émile among the e's, not after 张); the key compares word
by word, a syllable being a word: 阿强 (a, qiang) comes before Aaron (a < aaron), as a list that spells 阿强
"A Qiang" has it. Ties go by tone (and accent), then by the name's characters, then by the email, so two
students never swap places between two page loads.

A character's syllable is its most common reading in pypinyin's character table, read where the name says
more: a surname by its surname reading (曾 zeng, 单 shan, 万俟 mo qi), two characters of a given name that
pypinyin's phrase table reads otherwise by that reading (长江 chang jiang, not zhang jiang; 朝霞 zhao xia), a
given name's 长 as cháng. Where the phrase table gives a character several readings, its own among them, it keeps
its own (朝阳 cháo yáng: the table has "zhāo,cháo"); which a given person uses stays theirs to say. The phrase readings are kept in name_phrases.txt, written from the pinned pypinyin by
``python -m app.names`` (a test checks it is current): pypinyin's phrase table is 38 MiB in a worker for about
3,500 pairs that change a name's reading.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

# A surname's reading where it differs from the character's everyday one (曾 zeng, not ceng "once"):
# pypinyin reads characters as words and has no surname mode; these are the common surnames of this kind,
# those whose letters differ first, then those whose tone does (任 rén, not rèn).
_SURNAMES = {"曾": "zeng1", "单": "shan4", "区": "ou1", "仇": "qiu2", "解": "xie4", "查": "zha1", "朴": "piao2",
             "盖": "ge3", "乐": "yue4", "缪": "miao4", "种": "chong2", "覃": "qin2", "翟": "zhai2", "召": "shao4",
             "秘": "bi4", "尉": "yu4", "重": "chong2", "薄": "bo2", "都": "du1", "藏": "zang4", "员": "yun4",
             "隗": "wei3", "折": "she2", "句": "gou1", "繁": "po2", "能": "nai4", "祭": "zhai4", "柏": "bai3",
             "长": "chang2", "任": "ren2", "华": "hua4", "纪": "ji3", "宁": "ning4", "葛": "ge3", "燕": "yan1",
             "那": "na1"}
# Two-character surnames, read as one (单于 chan yu, not 单's shan); checked before the one-character ones.
_COMPOUND_SURNAMES = {"万俟": ("mo4", "qi2"), "澹台": ("tan2", "tai2"), "单于": ("chan2", "yu2"),
                      "尉迟": ("yu4", "chi2"), "长孙": ("zhang3", "sun1"), "令狐": ("ling2", "hu2"),
                      "欧阳": ("ou1", "yang2"), "司马": ("si1", "ma3"), "上官": ("shang4", "guan1"),
                      "诸葛": ("zhu1", "ge3"), "皇甫": ("huang2", "fu3"), "公孙": ("gong1", "sun1")}
# A given name's character whose name reading is not its first reading in the table and that no phrase covers:
# 长 is the adjective cháng in names (长风, 长明), the table's first reading zhǎng is the verb "grow".
_GIVEN = {"长": "chang2"}

# Latin letters NFD does not take apart (no combining mark): their base letters, for the primary key.
_LATIN_BASE = str.maketrans({"ø": "o", "ł": "l", "đ": "d", "ð": "d", "ħ": "h", "ı": "i", "ŧ": "t", "þ": "th",
                             "æ": "ae", "œ": "oe", "ŋ": "n"})

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+")
_WORD = re.compile(r"\w+")
_PHRASES_FILE = Path(__file__).with_name("name_phrases.txt")


# Pinyin's tone marks as combining characters (NFD): the tone's number.
_TONES = {"\u0304": "1", "\u0301": "2", "\u030c": "3", "\u0300": "4"}


def _pypinyin_file(name: str) -> Path:
    """A data file of the installed pypinyin, found without importing the package (its import loads the phrase
    table, 38 MiB and a second in each web worker)."""
    spec = importlib.util.find_spec("pypinyin")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("pypinyin is not installed (pyproject.toml lists it): make install")
    return Path(next(iter(spec.submodule_search_locations))) / name


@lru_cache(maxsize=1)
def _readings() -> dict[int, str]:
    """{code point: its most common reading as 'wang2'}, from pypinyin's character table ("wáng,wàng,yù");
    only the first reading is kept (about 5 MiB less than the whole strings)."""
    raw = json.loads(_pypinyin_file("pinyin_dict.json").read_text(encoding="utf-8"))
    return {int(k): _tone3(v.split(",", 1)[0]) for k, v in raw.items()}


@lru_cache(maxsize=1)
def _phrases() -> dict[str, tuple[str, str]]:
    """{"长江": ("chang2", "jiang1"), ...}: the two-character readings of name_phrases.txt."""
    out = {}
    for line in _PHRASES_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            pair, first, second = line.split()
            out[pair] = (first, second)
    return out


def _tone3(reading: str) -> str:
    """'wáng' -> 'wang2', 'lǜ' -> 'lv4', 'ma' -> 'ma5' (neutral)."""
    tone, letters = "5", []
    for ch in unicodedata.normalize("NFD", reading):
        if ch in _TONES:
            tone = _TONES[ch]
        elif ch == "\u0308":  # ü: written v, after u
            letters[-1] = "v"
        elif not unicodedata.combining(ch):
            letters.append(ch)
    return "".join(letters) + tone


def _char(ch: str) -> str:
    """A given name's character: its name reading, else its most common one ('wang2'); a character without a
    reading stands for itself."""
    return _GIVEN.get(ch) or _readings().get(ord(ch), ch)


def _syllables(han: str, surname: bool) -> list[str]:
    """The pinyin of a run of Han characters, one 'syllable+tone' item each: the surname (when the run starts
    the name) by its surname reading, then two characters at a time by name_phrases.txt, else one by one."""
    out: list[str] = []
    i = 0
    if surname and han[:2] in _COMPOUND_SURNAMES:
        out, i = list(_COMPOUND_SURNAMES[han[:2]]), 2
    elif surname and han[0] in _SURNAMES:
        out, i = [_SURNAMES[han[0]]], 1
    elif surname:
        out, i = [_readings().get(ord(han[0]), han[0])], 1
    phrases = _phrases()
    while i < len(han):
        if han[i:i + 2] in phrases:
            out.extend(phrases[han[i:i + 2]])
            i += 2
        else:
            out.append(_char(han[i]))
            i += 1
    return out


def _latin(word: str) -> str:
    """A word's letters without their accents, casefolded: 'Émile' -> 'emile', 'Øyvind' -> 'oyvind'."""
    decomposed = unicodedata.normalize("NFD", word.casefold())
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return bare.translate(_LATIN_BASE)


@lru_cache(maxsize=4096)
def name_key(name: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """(letters of each syllable or word, their tones or accented spellings, the name casefolded): a sort key
    for one name."""
    text = unicodedata.normalize("NFKC", name or "").strip()
    letters: list[str] = []
    tones: list[str] = []
    pos = 0

    def words(chunk: str) -> None:
        for word in _WORD.findall(chunk):
            letters.append(_latin(word))
            tones.append(word.casefold())

    for m in _HAN.finditer(text):
        words(text[pos:m.start()])
        for syllable in _syllables(m.group(), surname=not letters):
            letters.append(syllable.rstrip("012345"))
            tones.append(syllable[len(syllable.rstrip("012345")):])
        pos = m.end()
    words(text[pos:])
    return tuple(letters), tuple(tones), text.casefold()


def phrase_lines() -> list[str]:
    """name_phrases.txt's lines from the installed pypinyin: each two-character phrase of its phrase table
    whose reading differs from the one its characters give in a given name (3,411 of 47,111 phrases with
    0.55.0)."""
    raw = json.loads(_pypinyin_file("phrases_dict.json").read_text(encoding="utf-8"))
    lines = ["# Two-character readings that differ from their characters' own, from pypinyin's phrase table "
             "(python -m app.names writes this file)"]
    for pair, readings in sorted(raw.items()):
        if len(pair) != 2 or len(readings) != 2 or not _HAN.fullmatch(pair):
            continue
        # A character the table reads several ways in the phrase keeps its own reading when that is one of
        # them: the table then says nothing against it (朝阳 is "zhāo,cháo" there; round 47 sorted every 朝阳
        # as zhāo, its first, while 朝阳区 and 张朝阳 are cháo). Only a phrase whose readings leave out the
        # character's own one changes the name's reading.
        own = [_char(ch) for ch in pair]
        reading = [o if o in (alts := [_tone3(x) for x in r]) else alts[0] for o, r in zip(own, readings, strict=True)]
        if reading != own:
            lines.append(f"{pair} {reading[0]} {reading[1]}")
    return lines


def person_key(name: str | None, email: str) -> tuple:
    """The class-list key of a person: the name (the email for one without a name), then the email."""
    return (*name_key(name or email), (email or "").casefold())


def by_name(items: Iterable[T], person: Callable[[T], tuple[str | None, str]]) -> list[T]:
    """`items` in class-list order; `person(item)` gives the item's (name, email)."""
    return sorted(items, key=lambda item: person_key(*person(item)))


if __name__ == "__main__":
    _PHRASES_FILE.write_text("\n".join(phrase_lines()) + "\n", encoding="utf-8")
    sys.stdout.write(f"wrote {_PHRASES_FILE}\n")
