"""Written-audit checker ("submit one figure and a paragraph explaining what it can and cannot prove").

    from rubric.audit import grade_audit, load_checklist
    checklist = load_checklist()                    # rubric/attention/audit.yaml by default
    result = grade_audit(text, figure_bytes, {"max_abs_error": 2.4e-7, "row_sum_error": 1.2e-7}, checklist)

Modules: ``text`` (normalisation, traditional -> simplified Chinese, sentences, clauses, negation),
``checklist`` (the YAML compiled into a typed :class:`Checklist`), ``claims`` (numbers reported for a
metric) and ``grade`` (:func:`grade_audit` and the figure item).
"""

from rubric.audit.checklist import DEFAULT_CHECKLIST_PATH, Checklist, ChecklistError, load_checklist
from rubric.audit.grade import AuditResult, grade_audit

__all__ = ["DEFAULT_CHECKLIST_PATH", "AuditResult", "Checklist", "ChecklistError", "grade_audit", "load_checklist"]
