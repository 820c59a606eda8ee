#!/bin/bash
# named.sh FILE...: for each file, the kind each tool's error or warning
# names, on one line: "NAME: graph-render | trace-memory | trace-dataflow |
# trace-summarize --graph". A tool that names no kind (it reads the file
# without a word on what it is) shows "-".
run=$(dirname "$0")/../../../data/real/gradckpt_simple_stepstats.pbtxt
for f in "$@"; do
	g=$(graph-render -o /dev/null "$f" 2>&1 | sed -n -E "s/^graph-render: cannot read '.*': this is (.*), which holds no partition graph .*$/\1/p; s/^graph-render: cannot read '.*': this is (.*)$/\1/p; s/^graph-render: cannot read '.*': (not .*|a TFRecord file of .*)$/\1/p")
	m=$(trace-memory -o /dev/null "$f" 2>&1 | sed -n -E "s/^trace-memory: cannot read '.*': this is (.*), which records no memory .*$/\1/p; s/^trace-memory: cannot read '.*': this is (.*) with no memory events .*$/\1/p; s/^trace-memory: cannot read '.*': this is (.*)$/\1/p; s/^trace-memory: cannot read '.*': (not .*|a TFRecord file of .*)$/\1/p")
	d=$(trace-dataflow -o /dev/null "$f" 2>&1 | sed -n -E "s/^trace-dataflow: warning: '.*' is (.*), which records no dataflow.*$/\1/p; s/^trace-dataflow: cannot read '.*': this is (.*)$/\1/p; s/^trace-dataflow: cannot read '.*': (not .*|a TFRecord file of .*)$/\1/p")
	s=$(trace-summarize -q --graph "$f" "$run" 2>&1 > /dev/null | sed -n -E "s/^trace-summarize: cannot read '.*': not a GraphDef \(it is (.*)\)$/\1/p; s/^trace-summarize: cannot read '.*': (not .*|a TFRecord file of .*)$/\1/p")
	echo "$(basename "$f"): ${g:--} | ${m:--} | ${d:--} | ${s:--}"
done
