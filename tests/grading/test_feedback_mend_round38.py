"""Round 38, review RB's findings on round 38's feedback notes (probe files f01..f27), each mended for its kind:

- the unpack note named a top-level function when a def nested in forward (or a parameter, an assignment) hid it;
- "does not pass return_weights=True" was said of ``self.attn(q, k, v, mask, True)``;
- "when what it returns is one tensor" was said of ``return res`` with ``res = (out, weights, scores)``;
- the randomness note blamed a layer built in a method only __init__ calls, or an unused Linear while the noise was
  ``torch.randn_like``, and called a top-level function "a method";
- a hint quoted a grader path after the exception's text was cut; a path equal to a grader folder, a file:// URL and
  the interpreter's own prefix were kept;
- a name read bare in forward that __init__ stores as ``self.x`` was told "pass it in as an argument";
- the Size-operand note named the ``*`` of ``(n * k.shape[-1:]) ** 0.5``;
- a comprehension's loop variable counted as a name of the function around it;
- zh put a Latin name right after 和."""

from __future__ import annotations

import sys

# imported here, not in a test: grading.proxy imports torch, paid once at collection
from grading.proxy import _PROJECT, hide_grader_paths
from tests.web.test_broken_uploads_round34 import sub

NOISE = ("        weights = F.softmax(scores, dim=-1)",
         "        weights = F.softmax(scores + 1e-3 * torch.randn_like(scores), dim=-1)")


class _Student:
    def __init__(self, source: str):
        self.source = source


# ------------------------------------------------------------------ a layer built per call
def test_no_layer_per_call_note_for_a_builder_only_init_calls_or_an_unused_layer_beside_randn():
    from grader_tests.attention.diagnose import randomness

    init_only = sub("        self.out_proj = nn.Linear(inner, d_model)\n", "        self._build_out(inner, d_model)\n",
                    base=sub("    def _split(self, x):", "    def _build_out(self, inner, d_model):\n"
                             "        self.out_proj = nn.Linear(inner, d_model)\n\n    def _split(self, x):"))
    spare = sub("        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))",
                "        spare = nn.Linear(H * D, H * D)\n        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))")
    noisy = sub("        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))",
                "        self.out_proj = nn.Linear(H * D, H * D)\n        out = self.out_proj(out.transpose(1, 2)"
                ".reshape(B, N, H * D))", base=sub(*NOISE))
    for src in (init_only, spare, noisy):
        assert "builds" not in randomness(_Student(src), "MultiHeadAttention")["en"]


def test_a_layer_built_in_a_top_level_function_is_told_a_function_not_a_method():
    from grader_tests.attention.diagnose import randomness

    src = sub("        out = self.out_proj(out.transpose(1, 2).reshape(B, N, H * D))",
              "        out = project(out.transpose(1, 2).reshape(B, N, H * D))") + \
        "\n\ndef project(x):\n    return nn.Linear(x.size(-1), x.size(-1))(x)\n"
    said = randomness(_Student(src), "MultiHeadAttention")
    assert "in a function that runs at every call" in said["en"] and "在每次调用都会执行的函数中" in said["zh"]


# ------------------------------------------------------------------ the grader's paths
def test_a_grader_folder_itself_a_file_url_and_the_interpreters_prefix_are_hidden_and_the_students_kept():
    base = sys.base_prefix
    for text in (f"cwd is {_PROJECT}", f"see {_PROJECT}.", f"file://{sys.prefix}/lib/x.py",
                 f"{base}/bin/python3", f"{base}/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip/abc.py"):
        hidden = hide_grader_paths(text)
        assert _PROJECT not in hidden and base not in hidden and sys.prefix not in hidden, hidden
    assert hide_grader_paths("np.load('/content/drive/data.npy')") == "np.load('/content/drive/data.npy')"
    assert hide_grader_paths(f"file://{sys.prefix}/lib/x.py") == "file://…/lib/x.py"


def test_every_student_facing_text_of_a_result_passes_the_path_filter_but_the_instructors_log(monkeypatch):
    from grading import runner

    leak = f"so {sys.prefix}/lib/python3.11/site-packages/torch/prior.pt is not there"
    fake = {"status": "graded", "message": {"en": leak, "zh": leak}, "log": leak, "review": [leak],
            "tests": [{"name": "t", "feedback": {"en": leak, "zh": leak}}]}
    monkeypatch.setattr(runner, "_grade", lambda *a: fake)
    result = runner.grade(runner.GradeInput(code=b""), "attention", object())
    assert sys.prefix not in result["message"]["en"] + result["tests"][0]["feedback"]["zh"]
    assert "…/torch/prior.pt" in result["tests"][0]["feedback"]["en"]
    assert result["log"] == leak and result["review"] == [leak]
