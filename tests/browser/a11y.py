"""Accessibility and layout checks shared by the browser tests: axe-core (vendored, see
vendor/README.md) injected into the page, and "nothing is cut off" at phone width."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

VENDOR = Path(__file__).resolve().parent / "vendor"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
# What the issue asks for: no serious or critical violation. Moderate/minor ones are reported by
# axe too but do not fail the build.
BLOCKING = ("serious", "critical")


@lru_cache(maxsize=1)
def axe_source() -> str:
    data = (VENDOR / "axe.min.js").read_bytes()
    assert hashlib.sha256(data).hexdigest() == AXE_SHA256, "vendor/axe.min.js is not the recorded axe-core"
    return data.decode("utf-8")


def axe_violations(page) -> list[dict]:
    """Serious and critical axe-core violations on the page as it is now (WCAG 2.x A/AA rules and
    best practices). The browser context must bypass the app's CSP, which forbids inline scripts."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(content=axe_source())
    violations = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ' :: ' + (n.failureSummary || ''))}))"""
    )
    return [v for v in violations if v["impact"] in BLOCKING]


def overflow(page) -> list[str]:
    """Elements that stick out of the viewport horizontally (nothing may be cut off on a phone).
    Content inside a scrolling container (a wide table in its card) is fine: it can be reached."""
    return page.evaluate(
        """() => {
            const width = document.documentElement.clientWidth;
            const out = [];
            if (document.documentElement.scrollWidth > width + 1)
                out.push('page scrolls sideways: ' + document.documentElement.scrollWidth + 'px > ' + width + 'px');
            for (const el of document.querySelectorAll('body *')) {
                const r = el.getBoundingClientRect();
                if (!r.width || r.right <= width + 1) continue;
                let p = el.parentElement, scrolled = false;
                while (p && p !== document.body) {
                    const s = getComputedStyle(p);
                    if (['auto', 'scroll', 'hidden'].includes(s.overflowX)) { scrolled = true; break; }
                    p = p.parentElement;
                }
                if (!scrolled && getComputedStyle(el).position !== 'absolute')
                    out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + '.' + el.className + ' right=' + Math.round(r.right));
            }
            return out.slice(0, 10);
        }"""
    )
