#!/usr/bin/env python3
"""The folded entries of the page's graph view (report-check html's
document): the titles of its g.node elements that say "(N folded)", with
the view's PATH/ in front taken off, sorted; then "folded=F entries=E" (E:
every node drawn).

  page-folds.py DOM.html PATH
"""
import html
import re
import sys

dom, path = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
titles = [html.unescape(t) for t in re.findall(r'<g class="node[^"]*" data-item="\d+"[^>]*><title>(.*?)</title>', dom)]
pre = path + "/" if path else ""
folded = sorted(t[len(pre):] for t in titles if re.search(r" \.\.\. .*/ \(\d+ folded\)$", t) and t.startswith(pre))
for t in folded:
    print(t)
print("folded=%d entries=%d" % (len(folded), len(titles)))
