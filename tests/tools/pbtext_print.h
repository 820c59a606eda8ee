/*
 * pbtext_print: the inverse of the library's text format reader
 * (io/pbtext.h), for the tests and the test tools only (trace-gen's text
 * dumps, the round trips of test_pbtext and fuzz_text); no tool prints text
 * format. Built from tests/tools/pbtext_print.c into what uses it (see the
 * Makefile).
 */
#ifndef TL_TESTS_PBTEXT_PRINT_H
#define TL_TESTS_PBTEXT_PRINT_H

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

/* Appends `msg` as text the way Python's str(message) writes it: fields in
 * number order, 2-space indent, `name: value` and `name {` ... `}`, enums by
 * name, strings C-escaped with octal for bytes outside printable ASCII,
 * floats as Python's repr, proto3 zero scalars left out, map entries sorted
 * by key. What it writes reads back (tl_pbtext_to_wire) to the same
 * message. The caller owns `out`. */
void tl_pbtext_print(const ProtobufCMessage *msg, GString *out);

#endif
