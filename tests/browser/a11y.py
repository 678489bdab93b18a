"""axe-core in the browser tests: the vendored axe.min.js (tests/browser/vendor) run on
the page as it is, through the DevTools protocol (the page's CSP allows no injected
script tag, and the dashboard never serves axe)."""

from __future__ import annotations

from pathlib import Path

AXE_JS = Path(__file__).with_name("vendor") / "axe.min.js"
#: the impacts a page may not have
BLOCKING = ("serious", "critical")


def axe_violations(page) -> list[dict]:
    """Every axe violation on the page: ``{"id", "impact", "help", "targets"}``."""
    if not page.evaluate("() => !!window.axe"):
        page.evaluate(AXE_JS.read_text(encoding="utf-8") + "\n;void 0")
    found = page.evaluate("""async () => {
        const r = await window.axe.run(document, {resultTypes: ["violations"]});
        return r.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
            targets: v.nodes.slice(0, 5).map((n) => n.target.join(" "))}));
    }""")
    return found


def blocking(violations: list[dict]) -> list[dict]:
    return [v for v in violations if v["impact"] in BLOCKING]
