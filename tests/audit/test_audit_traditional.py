"""Traditional Chinese (Taiwan, Hong Kong) audits are graded as the same audit in simplified characters.

The checklist's Chinese phrases are simplified; ``rubric.audit.text.normalise`` reads traditional text as
simplified (OpenCC), so a student writing 繁體 is neither penalised nor able to slip past a rule."""

from __future__ import annotations

import copy
import functools
import re
from pathlib import Path

import opencc
import pytest

from rubric.audit import DEFAULT_CHECKLIST_PATH, grade_audit
from rubric.audit.text import _converters, normalise, swap_axes, to_simplified
from tests.audit.helpers import AUDITS, MEASURED_OK, items, kinds, make_heatmap
from tests.helpers import cpu_in_yardsticks

HERE = Path(__file__).resolve().parent
_CHINESE = re.compile(r"[\u4e00-\u9fff]")


def _chinese_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir()
                  if p.suffix in (".md", ".txt") and _CHINESE.search(p.read_text(encoding="utf-8")))


# Every fixture audit with Chinese in it; the gaming corpus too, so that 繁體 opens no loophole.
CHINESE_AUDITS = _chinese_files(AUDITS) + _chinese_files(HERE / "validation") + _chinese_files(HERE / "gaming")
# s2t: OpenCC's standard traditional; s2tw: Taiwan's character forms (著 for the particle 着, 裡, 為);
# s2hk: Hong Kong's (衞, 綫, 説); s2twp: s2tw plus Taiwan vocabulary (数据 -> 資料, 程序 -> 程式).
SCRIPTS = ["s2t", "s2tw", "s2hk", "s2twp"]


@functools.cache
def _to_traditional(config: str) -> opencc.OpenCC:
    return opencc.OpenCC(config)


@functools.cache
def _figure() -> bytes:
    return make_heatmap()


def _grade(text: str, checklist) -> dict:
    return grade_audit(text, _figure(), MEASURED_OK, checklist)


# The simplified side of a fixture's comparison (its grade, or the Taiwan-usage reading's if that scores
# higher), by path: the same for each of the four SCRIPTS, and grade_audit is deterministic (no clock, no
# randomness), so it is graded once and not four times. Only the traditional side changes with the script.
_SIMPLIFIED_GRADES: dict[Path, dict] = {}


def _simplified_grade(path: Path, simplified: str, checklist) -> dict:
    if path not in _SIMPLIFIED_GRADES:
        want, taiwan = _grade(simplified, checklist), _grade(swap_axes(simplified), checklist)
        _SIMPLIFIED_GRADES[path] = taiwan if taiwan["score"] > want["score"] else want
    return copy.deepcopy(_SIMPLIFIED_GRADES[path])      # a test's own copy: nothing it does reaches the next


# ------------------------------------------------------------------------------- fixture audits


def test_the_fixture_corpus_has_chinese_audits_to_convert():
    assert len(CHINESE_AUDITS) >= 25
    assert {p.parent.name for p in CHINESE_AUDITS} == {"audits", "validation", "gaming"}


@pytest.mark.parametrize("config", SCRIPTS)
@pytest.mark.parametrize("path", CHINESE_AUDITS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_fixture_audit_in_traditional_characters_gets_the_same_grade_as_in_simplified(path, config, checklist):
    """The same grade as the simplified text, read with 行/列 as mainland China writes them or as Taiwan
    does (列 = row, 行 = column), whichever is better: OpenCC keeps the characters, and a traditional
    text may follow either usage (audit round 13)."""
    simplified = path.read_text(encoding="utf-8")
    traditional = _to_traditional(config).convert(simplified)
    assert traditional != simplified            # the conversion really wrote traditional characters
    want = _simplified_grade(path, simplified, checklist)
    got = _grade(traditional, checklist)
    assert got["score"] == want["score"]
    assert [(it["id"], it["points"]) for it in got["items"]] == [(it["id"], it["points"]) for it in want["items"]]
    assert kinds(got) == kinds(want)
    assert got == want                          # feedback too, and flags quote the sentence in simplified


def test_a_traditional_audit_can_mix_in_simplified_paragraphs(checklist, audit_text):
    """Half of the audit in 繁體, half in 简体 (a student who pasted their own earlier notes)."""
    lines = audit_text("zh_thorough.md").splitlines()
    half = len(lines) // 2
    mixed = "\n".join([_to_traditional("s2tw").convert(line) for line in lines[:half]] + lines[half:])
    assert _grade(mixed, checklist) == _grade(audit_text("zh_thorough.md"), checklist)


# --------------------------------------------------------------------------- hand-written sentences

# (traditional as a Taiwan or Hong Kong student writes it, the same sentence in simplified)
CAVEATS = [
    ("這張熱力圖不能證明因果關係，只能說明讀取路由。", "这张热力图不能证明因果关系，只能说明读取路由。"),
    ("權重高並不意味著該 key 對預測更重要，也不代表它導致了輸出。",      # Taiwan: 意味著
     "权重高并不意味着该 key 对预测更重要，也不代表它导致了输出。"),
    ("注意力權重並不等於特徵重要性，它只是模型內部的讀取係數。", "注意力权重并不等于特征重要性，它只是模型内部的读取系数。"),
    ("這張圖衹能說明每個 query 如何分配讀取預算，並不能證明因果關係。",  # Hong Kong: 衹
     "这张图只能说明每个 query 如何分配读取预算，并不能证明因果关系。"),
    ("熱力圖不能證明因果、特徵重要性或真實的機制。", "热力图不能证明因果、特征重要性或真实的机制。"),
]

OVERCLAIMS = [
    ("權重高代表特徵重要，所以 k2 是最重要的特徵。", "权重高代表特征重要，所以 k2 是最重要的特征。"),
    ("熱力圖證明了 k2 是最重要的特徵。", "热力图证明了 k2 是最重要的特征。"),
    # Taiwan writes the particle 着 as 著: OpenCC's plain t2s keeps 意味著, and this overclaim went unseen
    ("這意味著 k2 對輸出最重要。", "这意味着 k2 对输出最重要。"),
    ("權重最高意味著 k2 對輸出的貢獻最大。", "权重最高意味着 k2 对输出的贡献最大。"),
]


@pytest.mark.parametrize(("traditional", "simplified"), CAVEATS)
def test_a_traditional_caveat_is_credited_like_its_simplified_form(traditional, simplified, checklist):
    r = grade_audit(traditional, None, {}, checklist)
    assert items(r)["limits"]["points"] > 0 and "overclaim" not in kinds(r)
    assert r == grade_audit(simplified, None, {}, checklist)


@pytest.mark.parametrize(("traditional", "simplified"), OVERCLAIMS)
def test_a_traditional_overclaim_is_flagged_like_its_simplified_form(traditional, simplified, checklist):
    r = grade_audit(traditional, None, {}, checklist)
    assert kinds(r) == ["overclaim"] and items(r)["limits"]["points"] == 0
    assert r == grade_audit(simplified, None, {}, checklist)


def test_a_traditional_copy_of_the_handout_is_still_a_copy(checklist):
    handout = (DEFAULT_CHECKLIST_PATH.parent / "handout" / "lesson2_attention_handout_and_lab.txt").read_text(
        encoding="utf-8")
    copied = next(line for line in handout.splitlines() if len(_CHINESE.findall(line)) >= 40)
    r = grade_audit(_to_traditional("s2tw").convert(copied), None, {}, checklist)
    assert "copied" in kinds(r)


# --------------------------------------------------------------------- simplified text is left alone


def _simplified_texts() -> list[Path]:
    handout = DEFAULT_CHECKLIST_PATH.parent / "handout"
    return CHINESE_AUDITS + sorted(handout.iterdir()) + [DEFAULT_CHECKLIST_PATH]


@pytest.mark.parametrize("path", _simplified_texts(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_simplified_text_is_unchanged_by_the_conversion(path):
    text = path.read_text(encoding="utf-8")
    assert to_simplified(text) == text
    once = normalise(text)
    assert to_simplified(once) == once


# Words that OpenCC's other configs would rewrite in simplified text: tw2s turns 著 into 着 (显著 ->
# 显着), tw2sp maps Taiwan vocabulary onto words this course uses (向量 -> 矢量, 序列 -> 串行), and a
# round trip through s2t changes 坐标 to 座标.
@pytest.mark.parametrize("word", ["显著", "显著性", "著称", "原著", "著名", "向量", "序列", "核心", "遮蔽", "坐标",
                                  "什么", "只能说明", "意味着", "随着", "才", "台阶", "里面"])
def test_simplified_words_come_out_of_normalisation_as_written(word):
    assert normalise(f"权重{word}集中") == f"权重{word}集中"


def test_a_traditional_line_does_not_rewrite_the_simplified_lines_around_it():
    text = "差异显著,著称。\n這意味著 k2 最重要,權重顯著集中。\n向量和序列。"
    assert normalise(text) == "差异显著,著称。\n这意味着 k2 最重要,权重显著集中。\n向量和序列。"


@pytest.mark.parametrize(("traditional", "simplified"), [
    ("隨著 d_k 增大", "随着 d_k 增大"),            # Taiwan 著 for the particle
    ("顯著集中、著名、著作", "显著集中、著名、著作"),  # ... but not in 顯著, 著名, 著作
    ("衞生、衹能、枱面", "卫生、只能、台面"),          # Hong Kong variants
    ("每一行對應一個 query", "每一行对应一个 query"),
    ("ＡＢＣ：權重", "abc:权重"),                    # full-width forms and case are normalised as before
])
def test_traditional_text_is_normalised_to_simplified(traditional, simplified):
    assert normalise(traditional) == simplified


def test_english_text_is_unchanged_by_the_conversion(audit_text):
    text = audit_text("en_thorough.md")
    assert to_simplified(text) == text


def test_the_converters_are_built_once_per_process():
    normalise("權重")
    normalise("權重")
    assert _converters() is _converters()
    assert _converters.cache_info().misses == 1


# ----------------------------------------------------------------------------------------------- cost


@pytest.mark.slow   # seconds each: the fast lane stays under 10 minutes (stop 40)
def test_a_20kb_traditional_audit_costs_at_most_14_yardsticks_of_cpu(audit_text, heatmap_png, checklist):
    """Like test_audit_grading's 20 KiB audit, written in Taiwan's characters: the conversion (about 1 ms)
    must not make a traditional audit noticeably dearer (8.8 measured against the simplified 8.5 at round 22;
    11.5-11.7 against 11.1-11.9 on stop 40's host: the bound is the simplified test's, see there)."""
    text = audit_text("zh_thorough.md") + "\n" + audit_text("en_thorough.md") + "\n" + audit_text("mixed.md")
    text = _to_traditional("s2tw").convert(text)
    text = (text * 5).encode()[:20 * 1024].decode("utf-8", "ignore")
    grade_audit(text, heatmap_png, MEASURED_OK, checklist)   # warm-up
    seconds, yardsticks = cpu_in_yardsticks(lambda: grade_audit(text, heatmap_png, MEASURED_OK, checklist))
    assert yardsticks < 14, f"{yardsticks:.1f} yardsticks ({seconds * 1000:.1f} ms of CPU)"


@pytest.mark.parametrize(("sentence", "concept"), [
    ("被遮罩的 key 位置權重都是 0。", "masked_zero"),            # Taiwan: 遮罩 for mask
    ("每一行的權重加起來是 1，是一個機率分佈。", "row_sum_one"),    # Taiwan: 機率 for probability
])
def test_taiwan_vocabulary_is_read_like_the_mainland_words(sentence, concept, checklist):
    reading = items(grade_audit(sentence, None, {}, checklist))["figure_reading"]
    assert reading["points"] > 0, (concept, reading["feedback"]["en"])
    simplified = items(grade_audit(sentence.replace("遮罩", "屏蔽").replace("機率", "概率"), None, {}, checklist))
    assert reading["points"] == simplified["figure_reading"]["points"]
