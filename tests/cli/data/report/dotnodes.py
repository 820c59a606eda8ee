"""graph-render's DOT (--max-nodes 0: every node in its device's cluster)
read apart from the page's code, for the scripts beside this one."""
import re


def dot_nodes(path):
    """name -> device (the first-level cluster's label) of every node, its
    name as the DOT writes it less the escaping of '"' (Graphviz also reads
    HTML entities there: html.unescape gives what it shows)."""
    out, depth, dev = {}, 0, None
    for line in open(path, encoding="utf-8"):
        m = re.match(r'\s*subgraph "cluster \S+ (.*)" \{$', line)
        if m:
            depth += 1
            if depth == 1:
                dev = m.group(1)
            continue
        if re.match(r"\s*\}$", line):
            depth -= 1
            continue
        m = re.match(r'\s*"((?:[^"\\]|\\.)*)"\s*\[', line)
        if m and depth >= 1:
            out[m.group(1).replace('\\"', '"')] = dev
    return out
