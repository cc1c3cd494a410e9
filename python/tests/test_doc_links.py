"""The manual's links: README.md and docs/*.md link only inside the
repository, to files that exist and headings that exist (GitHub's anchor
slugs). Not the Python package's own test, but the one place where
`make test` runs Python checks."""
import glob
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
LINK = re.compile(r'!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')


def pages():
    return ['README.md'] + sorted(
        os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, 'docs', '*.md')))


def without_code(text):
    text = re.sub(r'(?ms)^```.*?^```', '', text)
    return re.sub(r'`[^`\n]*`', '', text)


def anchors(path):
    out, seen, fence = set(), {}, False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('```'):
                fence = not fence
            m = None if fence else re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
            if not m:
                continue
            slug = re.sub(r'[^\w\- ]', '', m.group(1).lower()).replace(' ', '-')
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else '%s-%d' % (slug, n))
    return out


def problems():
    found = []
    for page in pages():
        path = os.path.join(ROOT, page)
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for i, line in enumerate(text.split('\n'), 1):
            if re.search(r'https?://|www\.', line):
                found.append('%s:%d: an address outside the repository' % (page, i))
        for m in LINK.finditer(without_code(text)):
            target = m.group(1)
            if re.match(r'^[a-z]+:', target):
                found.append('%s: external link %s' % (page, target))
                continue
            rel, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), rel)) if rel else path
            if not dest.startswith(ROOT + os.sep):
                found.append('%s: %s leaves the repository' % (page, target))
            elif not os.path.exists(dest):
                found.append('%s: %s does not exist' % (page, target))
            elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
                found.append('%s: no heading for %s' % (page, target))
    return found


def test_manual_links_resolve_inside_the_repository():
    assert problems() == []


def test_a_broken_link_is_found(tmp_path, monkeypatch):
    # the check can fail: a page with a missing file and a missing heading
    page = tmp_path / 'docs' / 'x.md'
    page.parent.mkdir()
    page.write_text('# Title\n[a](nothere.md) [b](#no-such) [c](#title)\n')
    (tmp_path / 'README.md').write_text('[d](https://example.org)\n')
    monkeypatch.setattr(__import__(__name__), 'ROOT', str(tmp_path))
    found = problems()
    assert any('nothere.md does not exist' in p for p in found)
    assert any('no heading for #no-such' in p for p in found)
    assert not any('#title' in p for p in found)
    assert any('external link' in p for p in found)
