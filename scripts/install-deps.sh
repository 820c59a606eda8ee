#!/bin/sh
# Installs the Debian packages tftrace needs to build and test (clang with
# libFuzzer's runtime, libclang-rt-14-dev, for make fuzz; valgrind for make
# valgrind; GNU parallel for the README's recipe of trace-summarize over
# several machines, which a test runs locally; chromium and firefox-esr,
# headless, for the trace-report cases that load the page in real browsers;
# python3-protobuf and protobuf-compiler, for pbjson.test, whose truth is
# protobuf's own JSON: /usr/bin/python3 and protoc at test time).
# Usage: scripts/install-deps.sh   (uses sudo when not root)
set -eu
PKGS="build-essential pkg-config libglib2.0-dev libjansson-dev libprotobuf-c-dev protobuf-c-compiler libgraphviz-dev graphviz libcmocka-dev zlib1g-dev time jq python3 python3-protobuf protobuf-compiler clang libclang-rt-14-dev valgrind parallel chromium firefox-esr"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "install-deps: installing$missing" >&2
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
