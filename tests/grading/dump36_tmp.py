import json

from tests.grading.feedback_corpus_round36 import CASES


def test_dump(executor):
    from grading.inputs import InputError, validate_code
    from grading.runner import GradeInput, grade
    out = {}
    for name, code in CASES.items():
        try:
            validate_code("attention.py", code)
        except InputError as e:
            out[name] = {"refused": [str(e), getattr(e, "zh", None)]}
            continue
        r = grade(GradeInput(code=code), "attention", executor)
        out[name] = {"status": r["status"], "total": r.get("total"), "load_error": r.get("load_error"),
                     "message": r.get("message"),
                     "failed": [t["feedback"] for t in r["tests"] if t["outcome"] != "passed" and not t.get("hidden")][:2]}
    json.dump(out, open("/tmp/h_D/dump.json", "w"), ensure_ascii=False, indent=1)
