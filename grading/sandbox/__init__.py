"""Sandbox for student code: see docs/contracts.md section 1.

Importing this package does not import the zygote (which is only ever run as its own process).
"""

from grading.sandbox.client import (
    Executor,
    Limits,
    SandboxDied,
    SandboxError,
    SandboxUnavailable,
    Session,
    StudentError,
    StudentIdle,
    StudentTimeout,
)

__all__ = ["Executor", "Limits", "Session", "SandboxError", "StudentError", "StudentTimeout", "StudentIdle",
           "SandboxDied", "SandboxUnavailable"]
