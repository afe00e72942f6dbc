"""People's names in the order a class list is read: Chinese names by pinyin, other names by letter.

Code point order put 张 (U+5F20) before 李 (U+674E) and 王 (U+738B) after both, nothing like a Chinese class
list (李 li, 王 wang, 张 zhang). A name's key reads each Han character as its pinyin syllable (pypinyin, which
picks a character's reading from the words around it) and each run of other letters casefolded, so 阿强 (a qiang)
and Alice sort among each other by letters; ties go by tone, then by the name's characters, then by the email,
so two students never swap places between two page loads.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import TypeVar

T = TypeVar("T")

# A surname's reading where it differs from the character's everyday one (曾 zeng, not ceng "once"):
# pypinyin reads characters as words and has no surname mode; these are the common surnames of this kind.
_SURNAMES = {"曾": "zeng1", "单": "shan4", "区": "ou1", "仇": "qiu2", "解": "xie4", "查": "zha1", "朴": "piao2",
             "盖": "ge3", "乐": "yue4", "缪": "miao4", "种": "chong2", "覃": "qin2", "翟": "zhai2", "召": "shao4",
             "秘": "bi4", "尉": "yu4", "重": "chong2"}

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+")
_WORD = re.compile(r"\w+")


def _syllables(han: str, surname: bool) -> list[str]:
    """The pinyin of a run of Han characters, one 'syllable+tone' item each (TONE3, neutral tone 5)."""
    from pypinyin import Style, lazy_pinyin

    out = lazy_pinyin(han, style=Style.TONE3, neutral_tone_with_five=True, errors=lambda chars: list(chars))
    if surname and han[0] in _SURNAMES:
        out[0] = _SURNAMES[han[0]]
    return out


@lru_cache(maxsize=4096)
def name_key(name: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """(letters of each syllable or word, their tones, the name casefolded): a sort key for one name."""
    text = unicodedata.normalize("NFKC", name or "").strip()
    letters: list[str] = []
    tones: list[str] = []
    pos = 0
    for m in _HAN.finditer(text):
        for word in _WORD.findall(text[pos:m.start()]):
            letters.append(word.casefold())
            tones.append("")
        for syllable in _syllables(m.group(), surname=not letters):
            letters.append(syllable.rstrip("012345"))
            tones.append(syllable[len(syllable.rstrip("012345")):])
        pos = m.end()
    for word in _WORD.findall(text[pos:]):
        letters.append(word.casefold())
        tones.append("")
    return tuple(letters), tuple(tones), text.casefold()


def person_key(name: str | None, email: str) -> tuple:
    """The class-list key of a person: the name (the email for one without a name), then the email."""
    return (*name_key(name or email), (email or "").casefold())


def by_name(items: Iterable[T], person: Callable[[T], tuple[str | None, str]]) -> list[T]:
    """`items` in class-list order; `person(item)` gives the item's (name, email)."""
    return sorted(items, key=lambda item: person_key(*person(item)))
