# The kernel table of each run of a trace-report page (its tftrace-data
# script), one JSON array per line: the columns, then the rows; "none"
# where a run has no kernel table; the columns every input has (not
# self_micros, which inputs whose slices nest add). With "sum" after the file, one line per
# run: "kernels ROWS occurrence SUM total_ns SUM" (each row's total_micros
# as whole nanoseconds).
import json
import re
import sys

page = open(sys.argv[1], encoding="utf-8").read()
data = json.loads(re.search(r'id="tftrace-data">(.*?)</script>', page, re.S).group(1))
summed = len(sys.argv) > 2 and sys.argv[2] == "sum"
for run in data["runs"]:
    table = run["tables"]["kernel"]
    if table is None:
        print("none")
        continue
    if summed:
        cols = table["columns"]
        occ = sum(r[cols.index("occurrence")] for r in table["rows"])
        ns = sum(round(r[cols.index("total_micros")] * 1000) for r in table["rows"])
        print("kernels %d occurrence %d total_ns %d" % (len(table["rows"]), occ, ns))
        continue
    keep = [i for i, c in enumerate(table["columns"]) if c != "self_micros"]
    print(json.dumps([table["columns"][i] for i in keep]))
    for row in table["rows"]:
        print(json.dumps([row[i] for i in keep]))
