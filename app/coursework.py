"""What the assignment page shows: the student contract, the rubric and the late policy.

Read from the files other parts own (grader_tests/<suite>/ASSIGNMENT.md, rubric/<suite>/rubric.yaml)
with graceful fall-backs, so the page renders while those files are still being written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The lab's grading split (handout: 公式和 shape 25%，实现 30%，mask/parity tests 30%，审计解释 15%).
DEFAULT_CATEGORIES: dict[str, dict] = {
    "formula_shape": {"max": 25, "label": {"en": "Formula and shapes", "zh": "公式与 shape"}},
    "implementation": {"max": 30, "label": {"en": "Implementation", "zh": "实现"}},
    "mask_parity": {"max": 30, "label": {"en": "Mask and reference parity", "zh": "mask 与 parity 测试"}},
    "audit": {"max": 15, "label": {"en": "Audit explanation", "zh": "审计解释"}},
}
CATEGORY_ORDER = list(DEFAULT_CATEGORIES)
AUDIT_MAX = 15.0

FALLBACK_CONTRACT = {
    "zh": """\
提交一个 `attention.py`，手写 **scaled dot-product attention**（`ScaledDotProductAttention`）与
**多头包装**（`MultiHeadAttention`），不得调用 PyTorch 现成的 attention。

* `forward(q, k, v, additive_mask=None, *, return_weights=False)`，权重沿 key 轴 softmax，每行和为 1；
* 支持 self-attention 与 cross-attention（`Nq ≠ Nk`，输出长度跟随 query）；
* additive mask：允许处加 `0.0`，禁止处加 `-inf`；key padding mask 的位置权重为 0；
* 与 `torch.nn.functional.scaled_dot_product_attention` 的最大绝对误差 < 1e-5（float32）。

可选：一份审计说明（.md/.txt/.pdf）与一张图：把实验手算例子（B=H=1、Nq=2、Nk=3、dk=2）的
`weights[0, 0]` 画成 2×3 heatmap，说明这张图能证明什么、不能证明什么（权重不是因果重要性）。
""",
    "en": """\
Submit one `attention.py` with a hand-written **scaled dot-product attention**
(`ScaledDotProductAttention`) and a **multi-head wrapper** (`MultiHeadAttention`); PyTorch's fused
attention must not be used.

* `forward(q, k, v, additive_mask=None, *, return_weights=False)`, softmax over the key axis, rows sum to 1;
* self- and cross-attention (`Nq != Nk`; the output length follows the queries);
* additive masks: `0.0` where reading is allowed, `-inf` where it is blocked; padded keys get weight 0;
* max abs error against `torch.nn.functional.scaled_dot_product_attention` < 1e-5 (float32).

Optional: a written audit (.md/.txt/.pdf) and one figure: the lab's hand example (B=H=1, Nq=2, Nk=3,
dk=2) `weights[0, 0]` drawn as a 2×3 heatmap, explaining what the figure proves and what it does not
(weights are not causal importance).
""",
}


@dataclass
class RubricView:
    categories: dict[str, dict]
    tests: dict[str, dict] = field(default_factory=dict)
    max_total: float = 100
    source: str = "default"

    def label(self, name: str, locale: str) -> str:
        cat = self.categories.get(name)
        if not cat:
            return name
        return cat["label"].get("zh" if locale.startswith("zh") else "en", name)

    def describe(self, test_id: str, locale: str) -> str:
        spec = self.tests.get(test_id)
        if not spec:
            return ""
        return spec["description"].get("zh" if locale.startswith("zh") else "en", "")


@lru_cache(maxsize=16)
def rubric_for(suite: str) -> RubricView:
    try:
        from rubric.loader import load_rubric

        r = load_rubric(suite, check_suite=False)
    except Exception:  # noqa: BLE001 - the rubric may be absent or being edited: fall back
        return RubricView(categories={k: dict(v) for k, v in DEFAULT_CATEGORIES.items()})
    cats = {c.name: {"max": c.max, "label": c.label, "source": c.source} for c in r.categories.values()}
    tests = {
        t.id: {"category": t.category, "points": t.points, "hidden": t.hidden, "description": t.description}
        for t in r.tests.values()
    }
    return RubricView(categories=cats, tests=tests, max_total=r.max_total, source="rubric.yaml")


def contract_markdown(suite: str, locale: str, description: str = "") -> tuple[str, str]:
    """(markdown, source): ASSIGNMENT.md of the suite if present, else the assignment description,
    else a built-in summary of the lab."""
    base = ROOT / "grader_tests" / suite
    lang = "zh" if locale.startswith("zh") else "en"
    for name in (f"ASSIGNMENT.{lang}.md", "ASSIGNMENT.md"):
        path = base / name
        try:
            if suite.isidentifier() and path.is_file():
                return path.read_text(encoding="utf-8"), name
        except OSError:
            continue
    if description.strip():
        return description, "description"
    return FALLBACK_CONTRACT[lang], "builtin"
