#!/usr/bin/env python3
"""Checks the documentation: README.md is at most 350 lines (the front door;
the detail lives under docs/), and every relative link of README.md and
docs/*.md points at a file that exists and, where it names an #anchor, at a
heading of that file, by GitHub's rules for heading anchors (lowercase,
punctuation dropped, spaces to '-', a repeated heading's anchor numbered
-1, -2, ...). Links inside code (fenced blocks, `spans`) are no links.
Prints one line per problem and exits 1 if there is one, else prints
"checked". Usage: scripts/check-docs.py [ROOT] (default: this repository).
"""
import glob
import os
import re
import sys

MAX_README_LINES = 350
LINK = re.compile(r'!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


def prose_lines(path):
    """(line number, text) of each line outside fenced code, spans removed."""
    fence = None
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            m = re.match(r'^ {0,3}(```+|~~~+)', line)
            if m:
                mark = m.group(1)
                if fence is None:
                    fence = mark
                elif mark[0] == fence[0] and len(mark) >= len(fence):
                    fence = None
                continue
            if fence is None:
                yield n, re.sub(r'(`+)(?:(?!\1).)*?\1', '', line.rstrip('\n'))


def slug(text):
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)  # a link: its text
    text = text.strip().lower().replace('`', '')
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def anchors(path, cache={}):
    if path not in cache:
        seen, found = {}, set()
        fence = None
        with open(path, encoding='utf-8') as f:
            for line in f:
                m = re.match(r'^ {0,3}(```+|~~~+)', line)
                if m:
                    fence = None if fence else m.group(1)
                    continue
                h = re.match(r'^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$', line)
                if fence is None and h:
                    s = slug(h.group(1))
                    k = seen.get(s, 0)
                    seen[s] = k + 1
                    found.add(s if k == 0 else '%s-%d' % (s, k))
        cache[path] = found
    return cache[path]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    os.chdir(root)
    problems = []
    with open('README.md', encoding='utf-8') as f:
        n = sum(1 for _ in f)
    if n > MAX_README_LINES:
        problems.append('README.md: %d lines, over %d (the detail belongs under docs/)'
                        % (n, MAX_README_LINES))
    for doc in ['README.md'] + sorted(glob.glob('docs/*.md')):
        for n, line in prose_lines(doc):
            for target in LINK.findall(line):
                if SCHEME.match(target):
                    continue
                path, _, anchor = target.partition('#')
                dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
                if not os.path.exists(dest):
                    problems.append("%s:%d: link '%s': no file %s" % (doc, n, target, dest))
                elif anchor and os.path.isfile(dest) and dest.endswith('.md') \
                        and anchor not in anchors(dest):
                    problems.append("%s:%d: link '%s': no heading with anchor #%s in %s"
                                    % (doc, n, target, anchor, dest))
    for p in problems:
        print(p)
    if problems:
        return 1
    print('checked')
    return 0


if __name__ == '__main__':
    sys.exit(main())
