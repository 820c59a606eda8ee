"""Reads an SVG made by Graphviz and prints, from its drawing alone: the
nodes, the edges, the connected components (edges joined by their <title>
"tail->head"), and how many components lie wholly below another one (dot
alone lays components out side by side on the same ranks: none; packed in
an array, rows of them: some), and how many pairs of components' boxes
overlap (packed: none)."""
import sys
import xml.etree.ElementTree as E

NS = '{http://www.w3.org/2000/svg}'


def points(g):
    out = []
    for el in g.iter():
        tag = el.tag[len(NS):]
        if tag in ('polygon', 'polyline'):
            for pair in el.get('points').split():
                x, y = pair.split(',')
                out.append((float(x), float(y)))
        elif tag == 'ellipse':
            cx, cy = float(el.get('cx')), float(el.get('cy'))
            rx, ry = float(el.get('rx')), float(el.get('ry'))
            out += [(cx - rx, cy - ry), (cx + rx, cy + ry)]
        elif tag == 'text':
            out.append((float(el.get('x')), float(el.get('y'))))
    return out


def main(path):
    root = E.parse(path).getroot()
    nodes, edges = {}, []
    for g in root.iter(NS + 'g'):
        title = g.find(NS + 'title')
        if g.get('class') == 'node':
            nodes[title.text] = points(g)
        elif g.get('class') == 'edge':
            edges.append(title.text.split('->'))
    up = {n: n for n in nodes}

    def find(n):
        while up[n] != n:
            up[n] = up[up[n]]
            n = up[n]
        return n

    for t, h in edges:
        a, b = find(t), find(h)
        if a != b:
            up[max(a, b)] = min(a, b)
    boxes = {}
    for n, pts in nodes.items():
        r = find(n)
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        b = boxes.get(r, [min(xs), min(ys), max(xs), max(ys)])
        boxes[r] = [min(b[0], min(xs)), min(b[1], min(ys)), max(b[2], max(xs)), max(b[3], max(ys))]
    bs = list(boxes.values())
    overlap = 0
    below = 0
    for i, a in enumerate(bs):
        if any(b[3] < a[1] for b in bs):
            below += 1
        for b in bs[i + 1:]:
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                overlap += 1
    print('%d nodes, %d edges, %d components, %d below another, %d overlapping'
          % (len(nodes), len(edges), len(bs), below, overlap))


main(sys.argv[1])
