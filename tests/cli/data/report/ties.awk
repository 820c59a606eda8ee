# ties.awk: a StepStats (text format) whose kernel table is mostly ties,
# and that table as it must come out, computed here from the rules below
# (not by reading the dump back).
#
#   awk -v n=3000 -v kinds=2400 -v want=FILE -f ties.awk > ties.pbtxt
#
# Node i (0 <= i < n) runs on the CPU executor for 1 + i % 3 us, under
# the scopes s<i%3>/b<i%5>/, and launches one kernel on GPU:0's stream 7,
# named k<(i * 7) % kinds>_<op> (op: Add, Mul or Sub by i % 3), for 2 + i % 2
# us. A kernel name is launched by one or two nodes, so its total (and
# accelerator) time is one of 2..6 us: thousands of rows tie on every
# column and only the names order them.
#
# FILE gets trace-summarize's kernel view as CSV rows (name,total_micros,
# accelerator_micros,cpu_micros,occurrence), unsorted.
BEGIN {
	split("Add Mul Sub", ops, " ")
	t0 = 1500000000000000
	print "dev_stats {"
	print "  device: \"/job:localhost/replica:0/task:0/device:CPU:0\""
	for (i = 0; i < n; i++) {
		name = sprintf("s%d/b%d/n%d", i % 3, i % 5, i)
		d = 1 + i % 3
		print "  node_stats {"
		printf "    node_name: \"%s\"\n", name
		printf "    all_start_micros: %d\n", t0 + 10 * i
		print "    op_start_rel_micros: 0"
		printf "    op_end_rel_micros: %d\n", d
		printf "    all_end_rel_micros: %d\n", d
		printf "    timeline_label: \"%s = %s()\"\n", name, ops[i % 3 + 1]
		print "  }"
	}
	print "}"
	print "dev_stats {"
	print "  device: \"/job:localhost/replica:0/task:0/device:GPU:0/stream:7\""
	for (i = 0; i < n; i++) {
		name = sprintf("s%d/b%d/n%d", i % 3, i % 5, i)
		k = sprintf("k%d_%s", (i * 7) % kinds, ops[i % 3 + 1])
		d = 2 + i % 2
		print "  node_stats {"
		printf "    node_name: \"%s\"\n", name
		printf "    all_start_micros: %d\n", t0 + 10 * i + 5
		print "    op_start_rel_micros: 0"
		printf "    op_end_rel_micros: %d\n", d
		printf "    all_end_rel_micros: %d\n", d
		printf "    timeline_label: \"%s@@%s\"\n", k, name
		print "  }"
		total[k] += d
		count[k]++
	}
	print "}"
	for (k in total)
		printf "%s,%d,%d,0,%d\n", k, total[k], total[k], count[k] > want
}
