"""Reads an SVG made by Graphviz from a GraphDef whose node names begin
with their component ("c17/s1/n12": component c17, by construction) and
prints, from the drawing alone: the node groups (<g class="node">), the
edge and cluster groups, the components, how many pairs of components'
boxes overlap, and how many group ids are used more than once.

A component's box holds every point drawn by its nodes, its edges (their
<title> "tail->head" names the tail) and its clusters (their <title>
"cluster R/P scope" names the scope): polygon and polyline points, path
coordinate pairs, ellipses, text anchors. Coordinates are read as the
SVG holds them; every group sits under the one graph transform."""
import re
import sys
import xml.etree.ElementTree as E

NS = '{http://www.w3.org/2000/svg}'
PAIR = re.compile(r'(-?[0-9.]+),(-?[0-9.]+)')


def points(g):
    out = []
    for el in g.iter():
        tag = el.tag[len(NS):]
        if tag in ('polygon', 'polyline'):
            out += [(float(x), float(y)) for x, y in PAIR.findall(el.get('points'))]
        elif tag == 'path':
            out += [(float(x), float(y)) for x, y in PAIR.findall(el.get('d'))]
        elif tag == 'ellipse':
            cx, cy = float(el.get('cx')), float(el.get('cy'))
            rx, ry = float(el.get('rx')), float(el.get('ry'))
            out += [(cx - rx, cy - ry), (cx + rx, cy + ry)]
        elif tag == 'text':
            out.append((float(el.get('x')), float(el.get('y'))))
    return out


def main(path):
    root = E.parse(path).getroot()
    counts = {'node': 0, 'edge': 0, 'cluster': 0}
    boxes = {}
    ids = {}
    for g in root.iter(NS + 'g'):
        if g.get('id') is not None:
            ids[g.get('id')] = ids.get(g.get('id'), 0) + 1
        kind = g.get('class')
        if kind not in counts:
            continue
        counts[kind] += 1
        title = g.find(NS + 'title').text
        if kind == 'cluster':
            title = title.split(' ', 2)[2]
        comp = title.split('/')[0]
        pts = points(g)
        if not pts:
            continue
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        b = boxes.get(comp, [min(xs), min(ys), max(xs), max(ys)])
        boxes[comp] = [min(b[0], min(xs)), min(b[1], min(ys)),
                       max(b[2], max(xs)), max(b[3], max(ys))]
    bs = list(boxes.values())
    graph = root.find(NS + 'g')
    top = min(b[1] for b in bs)
    title = [t for t in graph.findall(NS + 'text')]
    above = bool(title) and all(float(t.get('y')) < top for t in title)
    bg = points(graph.find(NS + 'polygon'))
    holds = all(min(p[0] for p in bg) <= b[0] and b[2] <= max(p[0] for p in bg) and
                min(p[1] for p in bg) <= b[1] and b[3] <= max(p[1] for p in bg) for b in bs)
    overlap = 0
    for i, a in enumerate(bs):
        for b in bs[i + 1:]:
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                overlap += 1
    print('%d node groups, %d edges, %d clusters, %d components, %d overlapping, '
          '%d duplicate ids; title %s; background %s'
          % (counts['node'], counts['edge'], counts['cluster'], len(bs), overlap,
             sum(1 for n in ids.values() if n > 1), 'above' if above else 'not above',
             'holds all' if holds else 'does not hold all'))


main(sys.argv[1])
