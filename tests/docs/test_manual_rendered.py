"""The manual as a reader sees it (issue 62): the built site opened in Chromium, every
page, failing on an image that does not load, a link inside the site that leads
nowhere, and markdown left as text (a line of a paragraph or item that starts with
``- `` or ``**``, or ``](``), which ``mkdocs build --strict`` lets through."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: each page's article: its images, its links, and the text of its paragraphs and list
#: items without their code (where `](` and `**` are what is meant)
READ_PAGE = """() => {
  const article = document.querySelector('article') || document.body;
  const images = [...article.querySelectorAll('img')].map((i) => ({
    src: i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0 }));
  const links = [...article.querySelectorAll('a[href]')].map((a) => a.href);
  const texts = [...article.querySelectorAll('p, li')].map((n) => {
    const copy = n.cloneNode(true);
    copy.querySelectorAll('code, pre, ul, ol').forEach((c) => c.remove());
    return copy.textContent.trim();
  });
  return { images, links, texts };
}"""


def _left_as_markdown(text: str) -> bool:
    """A list, bold or a link the page shows as typed: ``- **``, ``**`` or ``- `` at
    the start of a line of one paragraph (a list swallowed by it), or ``](``."""
    lines = [line.strip() for line in text.splitlines()]
    return "](" in text or any(line.startswith(("**", "- ", "* ")) for line in lines)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    mkdocs = shutil.which("mkdocs") or str(Path(sys.executable).with_name("mkdocs"))
    if not Path(mkdocs).exists():
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]'; make test installs it)")
    out = tmp_path_factory.mktemp("manual") / "site"
    res = subprocess.run([mkdocs, "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert res.returncode == 0, res.stdout + res.stderr
    handler = functools.partial(_Quiet, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield out, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_every_page_of_the_built_manual_as_chromium_shows_it(site, browser):
    out, base = site
    pages = sorted(p.relative_to(out).parent.as_posix() for p in out.rglob("index.html"))
    assert "dashboard" in pages and len(pages) >= 20
    broken_images, as_text, links = {}, {}, set()
    ctx = browser.new_context()
    page = ctx.new_page()
    for path in pages:
        url = base if path == "." else f"{base}{path}/"
        page.goto(url)
        page.wait_for_load_state("load")
        seen = page.evaluate(READ_PAGE)
        bad = [i["src"] for i in seen["images"] if not i["ok"]]
        if bad:
            broken_images[path] = bad
        left = [t[:80] for t in seen["texts"] if _left_as_markdown(t)]
        if left:
            as_text[path] = left
        links.update((path, urldefrag(a)[0]) for a in seen["links"]
                     if urlparse(a).netloc == urlparse(base).netloc)
    ctx.close()
    broken_links = sorted({(path, link) for path, link in links
                           if _status(urljoin(base, link)) != 200})
    assert broken_images == {}
    assert as_text == {}
    assert broken_links == []
