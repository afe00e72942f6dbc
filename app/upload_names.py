"""What an accepted upload's file names became, told to the student on the page and in the API's answer.

A name is kept as `views_helpers.safe_filename` reduces it (the base name of a Windows path, NFC, no
invisible characters, no spaces at either end, at most 120 characters) and a code file's hidden `.txt`
is dropped (`grading.inputs.code_file_name`). Round 35: the page said so for `attention.py.txt` only, and
the API's answer for none: a script uploading `C:\\work\\attention.py` or `attention.py.txt` read
nothing of the name the attempt lists.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from flask_babel import force_locale
from flask_babel import gettext as _

from app.errors import cut
from app.submitting import Upload
from app.views_helpers import cleaned_filename, list_join
from grading.i18n import SEMI
from grading.inputs import code_file_name

# "hidden_txt": a code file's `.txt` dropped (code_file_name); the rest are safe_filename's steps.
REASONS = ("folders", "composed", "invisible", "spaces", "empty", "shortened", "hidden_txt")


def _shown(raw: str) -> str:
    """A sent name as a message quotes it: each control or format character as U+XXXX, cut."""
    return cut("".join(f"<U+{ord(ch):04X}>" if unicodedata.category(ch)[0] == "C" else ch for ch in raw), 160)


@dataclass(frozen=True)
class Renamed:
    field: str                  # the form field: code, audit, figure
    sent: str                   # as the client sent it
    cleaned: str                # safe_filename's name
    kept: str                   # the name the attempt lists
    reasons: tuple[str, ...]

    def _why(self, reason: str) -> str:
        if reason == "folders":
            return _("the folders before the file's name are not kept")
        if reason == "composed":
            return _("its letters were stored in composed Unicode form (NFC): the name looks the same")
        if reason == "invisible":
            chars = dict.fromkeys(f"U+{ord(ch):04X}" for ch in self.sent if unicodedata.category(ch)[0] == "C")
            return _("the invisible character(s) %(c)s were removed", c=list_join(chars))
        if reason == "spaces":
            return _("the spaces at its start or end were removed")
        if reason == "empty":
            return _("nothing of the name was left, so it is named %(kept)s", kept=self.cleaned)
        return _("it was shortened to %(n)s characters", n=len(self.cleaned))

    def message(self, lang: str) -> str:
        """What the student reads, in `lang` (en or zh)."""
        with force_locale(lang):
            parts = []
            why = [self._why(r) for r in self.reasons if r != "hidden_txt"]
            if why:
                parts.append(_("The file name %(sent)s was saved as %(kept)s: %(why)s.", sent=_shown(self.sent),
                               kept=self.cleaned, why=SEMI[lang].join(why)))
            if "hidden_txt" in self.reasons:
                parts.append(_("%(sent)s was saved as %(kept)s: Windows hides the .txt extension, so the file shown "
                               "as %(kept)s is really named %(sent)s. To run it as the results say, turn on View → "
                               "File name extensions in Explorer and rename it to %(kept)s.",
                               sent=self.cleaned, kept=self.kept))
            return ("" if lang == "zh" else " ").join(parts)

    def as_json(self) -> dict:
        return {"field": self.field, "sent": self.sent, "kept": self.kept, "reasons": list(self.reasons),
                "message": {lang: self.message(lang) for lang in ("en", "zh")}}


def renamed(uploads: dict[str, Upload | None]) -> list[Renamed]:
    """The uploads (by form field) kept under another name than the one sent, and why."""
    out = []
    for field, upload in uploads.items():
        if upload is None or upload.sent is None:
            continue
        cleaned, steps = cleaned_filename(upload.sent)
        kept = code_file_name(cleaned) if field == "code" else cleaned
        reasons = steps + (("hidden_txt",) if kept != cleaned else ())
        if reasons:
            out.append(Renamed(field, upload.sent, cleaned, kept, reasons))
    return out
