/*
 * cli: what the five tools share on the command line, so each tool's file
 * is its options and one call into the library:
 *   - the error line "tool: cannot read 'FILE': what, where" and exit 1;
 *   - usage errors to stderr with exit 2; --help, written from the tool's
 *     option table and the shared one (tl_cli_help_text), to stdout with
 *     exit 0;
 *   - --version;
 *   - the input list (none means stdin) and --input-format;
 *   - the options every tool takes (-o, -z, -q, -h, -V, --input-format,
 *     --strict);
 *   - warnings flushed once at exit.
 *
 * --strict makes damage (base/warn.h) an error where it is met, the same error
 * path as any bad input: one line, exit 1, and the tool goes no further.
 * With -o FILE no file is left; on stdout what was written before stays:
 * nothing for the tools that read all their input before writing
 * (trace-summarize, trace-report, graph-render), the runs before it for
 * those that write run by run (tl_cli_tool's run: trace-dataflow,
 * trace-memory) or as they read (trace-merge).
 */
#ifndef TL_CLI_CLI_H
#define TL_CLI_CLI_H

#include "base/warn.h"
#include "base/progress.h"
#include "base/output.h"
#include "io/format.h"
#include "io/source.h"
#include "model/run.h"

#include <glib.h>

#include <stdbool.h>
#include <stdint.h>

#define TL_VERSION "0.1.0"

enum { TL_EXIT_OK = 0, TL_EXIT_INPUT = 1, TL_EXIT_USAGE = 2 };

/* What a tool shows, which an input must record for the tool to read it
 * (tl_cli_holds). */
typedef enum tl_cli_needs {
	TL_NEEDS_RUN = 0,  /* a timeline or a graph: trace-summarize, trace-report */
	TL_NEEDS_TIMELINE, /* a timeline (step_stats): trace-dataflow, trace-merge */
	TL_NEEDS_MEMORY,   /* the same, whose memory records trace-memory reads */
	TL_NEEDS_GRAPH,	   /* a graph (partition_graphs, a GraphDef): graph-render */
} tl_cli_needs;

typedef struct tl_cli_help tl_cli_help;

typedef struct tl_cli {
	const char *prog;
	const tl_cli_help *help; /* --help's words besides the options */
	bool quiet;		 /* -q, --quiet */
	const char *out_path;	 /* -o, --output (NULL: stdout) */
	bool gzip;		 /* -z, --gzip */
	tl_format format;	 /* --input-format (default: sniffed) */
	bool strict;		 /* --strict: damage is an error */
	/* What a tool that reads runs (tl_cli_run) takes besides RunMetadata
	 * and XSpace: */
	bool chrome_runs;   /* Chrome trace JSON as runs (io/chrome_run.h); else refused */
	bool want_allocs;   /* the runs carry their input's allocator events (tl_run.allocs) */
	tl_cli_needs needs; /* what an input must record */
	const struct tl_cli_opt *opts; /* the tool's table, while tl_cli_parse runs (-h) */
} tl_cli;

/* "prog: cannot read 'path': msg", the one line said about that input: its
 * damage warnings are dropped. */
void tl_cli_input_error(const tl_cli *cli, const char *path, const tl_error *err);
/* "prog: msg" */
void tl_cli_error(const tl_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "prog: MSG\nTry 'prog --help' for more information." and exits 2. */
_Noreturn void tl_cli_usage_error(const tl_cli *cli, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void tl_cli_version(const tl_cli *cli);

/* Whether the output is a terminal: no -o, or -o -, and standard output is
 * one. */
bool tl_cli_to_terminal(const tl_cli *cli);
/* Binary output (`what`: "png", "binary RunMetadata") bound for a
 * terminal: says "prog: refusing to write WHAT to a terminal (redirect it,
 * or use -o FILE)" and returns true, and the tool exits 1 (TL_EXIT_INPUT),
 * as for compressed output (tl_output_open); else returns false. */
bool tl_cli_refuse_terminal(const tl_cli *cli, const char *what);

/* One parser per kind of option value, one message shape for them all:
 * "option 'OPT' wants WHAT, not 'VALUE'" and exit 2 (tl_cli_usage_error). */
/* The index of `value` in the NULL-terminated `names` (WHAT: "a, b or c"). */
int tl_cli_choice(const tl_cli *cli, const char *opt, const char *value, const char *const *names);
tl_format tl_cli_format(const tl_cli *cli, const char *value);
/* Microseconds (a finite number, at least min_us) as nanoseconds. */
int64_t tl_cli_micros(const tl_cli *cli, const char *opt, const char *value, double min_us);
/* A whole number in [min, 100,000,000] ("a count", "a count of at least MIN"). */
long tl_cli_count(const tl_cli *cli, const char *opt, const char *value, long min);
/* A finite number. */
double tl_cli_number(const tl_cli *cli, const char *opt, const char *value);
/* A regular expression (GLib's syntax), compiled; the caller unrefs it. */
GRegex *tl_cli_regex(const tl_cli *cli, const char *opt, const char *value);

/* A tool's options as data, one table row each: parsed and checked in
 * one place (tl_cli_parse), each value stored at `offset` in the tool's
 * job struct in the type its kind names, and --help written from the same
 * rows (tl_cli_help_text), so the two cannot drift. The options every tool
 * takes (-o, -z, -q, --input-format, --strict, -h, -V) are one table in
 * cli.c, parsed and written after the tool's. */
typedef enum tl_cli_opt_kind {
	TL_ARG_END = 0, /* ends the table (TL_OPT_END; a zeroed row) */
	TL_ARG_FLAG,	/* bool, set to true */
	TL_ARG_CLEAR,	/* bool, set to false (--no-...) */
	TL_ARG_COUNT,	/* int, at least min */
	TL_ARG_SIZE,	/* size_t, at least min */
	TL_ARG_NUMBER,	/* double */
	TL_ARG_MICROS,	/* int64_t nanoseconds, at least min microseconds */
	TL_ARG_REGEX,	/* GRegex * (a repeated option replaces the last) */
	TL_ARG_CHOICE,	/* int: the index in choices */
	TL_ARG_STRING,	/* const char * */
	TL_ARG_CALL,	/* call(cli, job, value): the tool's own rule; takes a
			 * value where the row names one (arg), else value is NULL */
	/* Rows for --help alone, not options: */
	TL_HELP_HEAD, /* a group's heading ("Filters:"), in help; a blank line before */
	TL_HELP_TEXT, /* lines written as they stand (help); a blank line before */
	TL_HELP_LINE, /* an option line for options the table holds under other
		       * names (trace-summarize's --min-COL, for --min-total_micros...) */
} tl_cli_opt_kind;

typedef struct tl_cli_opt {
	const char *name; /* long name, without "--" */
	int short_name;	  /* or 0 */
	tl_cli_opt_kind kind;
	size_t offset;
	long min;
	const char *const *choices;
	void (*call)(tl_cli *cli, void *job, const char *value);
	/* --help: the value's name ("FILE"; NULL: the option takes none) and
	 * what the option does (NULL: not listed). A '\n' in help breaks the
	 * line there; the rest is wrapped (tl_cli_help_wrap). */
	const char *arg;
	const char *help;
} tl_cli_opt;

/* Table rows: TL_OPT(name, short, kind, offset, arg, help), and for the
 * kinds that need more, their min, choices or call; TL_OPT_HEAD and
 * TL_OPT_TEXT for --help's groups. */
#define TL_OPT(name, s, kind, off, arg, help)                                                      \
	{                                                                                          \
		(name), (s), (kind), (off), 0, NULL, NULL, (arg), (help)                           \
	}
#define TL_OPT_MIN(name, s, kind, off, min, arg, help)                                             \
	{                                                                                          \
		(name), (s), (kind), (off), (min), NULL, NULL, (arg), (help)                       \
	}
#define TL_OPT_CHOICE(name, s, off, names, arg, help)                                              \
	{                                                                                          \
		(name), (s), TL_ARG_CHOICE, (off), 0, (names), NULL, (arg), (help)                 \
	}
#define TL_OPT_CALL(name, s, fn, arg, help)                                                        \
	{                                                                                          \
		(name), (s), TL_ARG_CALL, 0, 0, NULL, (fn), (arg), (help)                          \
	}
#define TL_OPT_HEAD(text)                                                                          \
	{                                                                                          \
		NULL, 0, TL_HELP_HEAD, 0, 0, NULL, NULL, NULL, (text)                              \
	}
#define TL_OPT_TEXT(text)                                                                          \
	{                                                                                          \
		NULL, 0, TL_HELP_TEXT, 0, 0, NULL, NULL, NULL, (text)                              \
	}
#define TL_OPT_END                                                                                 \
	{                                                                                          \
		NULL, 0, TL_ARG_END, 0, 0, NULL, NULL, NULL, NULL                                  \
	}

/* Parses argv: the tool's options (`opts`, ended by TL_OPT_END) and the
 * shared ones; leaves optind at the first input. -h writes --help
 * (tl_cli_help_text) and -V the version, each to stdout with exit 0; an
 * unknown option or a missing value is getopt's message, "Try 'prog
 * --help'" and exit 2. */
void tl_cli_parse(tl_cli *cli, int argc, char **argv, const tl_cli_opt *opts, void *job);

/* What --help says besides the options. The whole, in this order:
 *   Usage: PROG SYNOPSIS
 *   ABOUT, then the inputs' rule (none, or '-', is stdin; a folder its
 *     events files);
 *   the tool's table, group by group; "Common options:", the shared table
 *     (--input-format lists the kinds that can hold what the tool shows,
 *     cli->needs); the rule for damaged and bad input;
 *   NOTES;
 *   Exit status: 0 ok, 1 EXIT_1, 2 usage.
 * Prose is wrapped before column TL_CLI_HELP_WIDTH, option help from
 * column TL_CLI_HELP_COLUMN (tl_cli_help_wrap). */
struct tl_cli_help {
	const char *synopsis; /* "[OPTIONS] [INPUT...]" */
	const char *about;    /* what the tool does */
	const char *notes;    /* or NULL */
	const char *exit_1;   /* what exit status 1 means (NULL: bad input or write error) */
};

#define TL_CLI_HELP_WIDTH 79
#define TL_CLI_HELP_COLUMN 27

/* The whole of `PROG --help` for the tool `cli` (prog, help, needs) with
 * the table `opts`; g_free it. */
char *tl_cli_help_text(const tl_cli *cli, const tl_cli_opt *opts);
/* `text` wrapped onto `out`: the first line goes on from column `col`
 * (what out's last line holds already), each later one starts with
 * `indent` spaces; a line ends where a space lets it keep within `width`
 * columns (a word longer than that stands alone on its line); a '\n' in
 * text breaks the line there ("\n\n": a blank line), and spaces that open
 * a line of text indent it, and its continuations, that much more. Ends
 * with a newline. */
void tl_cli_help_wrap(GString *out, const char *text, size_t col, size_t indent, size_t width);

/* The inputs of a command line: argv[first..argc), or stdin alone. */
typedef struct tl_cli_inputs {
	const char *const *paths;
	size_t n;
} tl_cli_inputs;

tl_cli_inputs tl_cli_inputs_of(int argc, char **argv, int first);

/* Reads every run of every input into `runs` (tl_run *), refusing Chrome
 * trace JSON with a pointer to `chrome_hint` tools. On the first bad input
 * prints its error line and returns TL_EXIT_INPUT (runs read so far stay in
 * `runs`); TL_EXIT_OK otherwise. */
int tl_cli_read_runs(const tl_cli *cli, const tl_cli_inputs *in, tl_format format, GPtrArray *runs);
/* Frees every run of `runs` (tl_run *) and the array. */
void tl_cli_free_runs(GPtrArray *runs);
/* The reading loop itself: each input opened, given to `read` (which
 * returns -1 with err on what makes the input unusable), closed; the first
 * bad input's error line printed (unless `read` left err's message empty:
 * it has said what went wrong itself) and TL_EXIT_INPUT returned. */
typedef int (*tl_cli_source_fn)(tl_source *src, tl_progress *prog, void *ctx, tl_error *err);
int tl_cli_read_inputs(const tl_cli *cli, const tl_cli_inputs *in, tl_format format,
		       tl_cli_source_fn read, void *ctx);
/* Whether an input read as `src`, whose runs record a timeline (`steps`:
 * some run has step_stats) and graphs (`graphs`) as said, records what the
 * tool shows (cli->needs): 0, or -1 with err naming the input's kind and
 * what it lacks ("this is a GraphDef, which records no timeline ...").
 * Inputs with no run at all have said why already. */
int tl_cli_holds(const tl_cli *cli, const tl_source *src, bool steps, bool graphs, tl_error *err);

/* A source about to be read as runs: a Chrome trace refused (-1 with err
 * saying what it is and who reads it) unless cli->chrome_runs; its
 * allocator events asked for where cli->want_allocs. */
int tl_cli_source_as_runs(const tl_cli *cli, tl_source *src, tl_error *err);
/* The one loop over the runs of one source: each run (`first`, where the
 * caller has read one already, then every run tl_run_next gives) to
 * `each`, in order, counted in `prog` (or NULL). Where `cli` is given, the
 * runs before the first that records what the tool shows (cli->needs:
 * step_stats, partition graphs, either) are held back until one does, and
 * an input none of whose runs does is refused (tl_cli_holds) before any of
 * them is given. `each` may keep the run (setting *run to NULL; it frees
 * it with tl_run_free), else the run is freed when it returns; it returns
 * 0, or -1 with err, which ends the loop. Returns 0 at the source's end,
 * -1 on error (a run that does not read, the refusal, `each`'s). */
typedef int (*tl_cli_run_fn)(tl_run **run, void *ctx, tl_error *err);
int tl_cli_source_runs(const tl_cli *cli, tl_source *src, tl_run *first, tl_progress *prog,
		       tl_cli_run_fn each, void *ctx, tl_error *err);

/* What a tool does between its options and its exit status;
 * tl_cli_run owns the steps every tool shares, in this order:
 *   1. binary output bound for a terminal is refused (exit 1);
 *   2. every run of every input is read (tl_cli_read_runs), unless the tool
 *      reads its inputs itself (`stream`) or takes them run by run (`run`);
 *   3. prepare (optional): work that may fail before anything is written;
 *   4. the output is opened (-o FILE atomically, -z);
 *   5. write; a failure abandons the output (no partial file);
 *   6. the output is closed (a write error is an error), runs freed,
 *      warnings flushed.
 * prepare and write return 0, or -1 with err filled; an empty message
 * means the tool has said what went wrong itself (an input's error line).
 *
 * Run by run (`run` set; `write` unused): after prepare, the inputs are read
 * one at a time (input, then tl_cli_source_runs), and each run is given to
 * `run` as soon as it is read, then freed (unless `run` kept it), so memory
 * holds one run, not the stream. The first run is held until a second is
 * read (or the inputs end), so that `run` knows from the first whether
 * there are several (tl_cli_step.several); the output is opened, and
 * `begin` called, just before that first run is given (at the end where
 * there is none), and flushed after each run, so output flows while the
 * inputs are read. `end` follows the last run, then the output is closed.
 * The rule for bad input met on the way (every tool's --help says it): an
 * input that does not read (or a run the tool refuses) is its one error
 * line and exit 1; with -o FILE no file is left; on standard output what
 * was flushed before stays (whole runs; nothing where the bad input is met
 * before the first run is given, as when every input was read first);
 * damage costs its record and a warning (--strict: the error). */
typedef struct tl_cli_step {
	size_t index; /* among every run given, from 0 */
	size_t input; /* its input: in->paths[input] */
	bool several; /* more than one run in all the inputs */
} tl_cli_step;

typedef struct tl_cli_tool {
	const char *binary; /* the output's kind when it is binary ("png"), or NULL */
	bool stream;	    /* the tool reads its inputs in prepare or write */
	int (*prepare)(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_error *err);
	int (*write)(void *ctx, const tl_cli_inputs *in, GPtrArray *runs, tl_output *out,
		     tl_error *err);
	/* Run by run: */
	/* Optional, each input once opened, before its runs: returns 1 where
	 * the tool has read the input itself (no run of it is given), 0 where
	 * its runs are to be given (beginning with *first where the tool had
	 * to read one to decide, e.g. whether it is an XSpace), -1 with err. */
	int (*input)(void *ctx, tl_source *src, tl_run **first, tl_error *err);
	int (*begin)(void *ctx, const tl_cli_inputs *in, tl_output *out,
		     tl_error *err); /* optional */
	int (*run)(void *ctx, tl_run **run, const tl_cli_step *step, tl_output *out, tl_error *err);
	int (*end)(void *ctx, const tl_cli_inputs *in, tl_output *out,
		   tl_error *err); /* optional */
} tl_cli_tool;

/* Runs a tool on the inputs argv[optind..] and returns its exit status. */
int tl_cli_run(tl_cli *cli, int argc, char **argv, const tl_cli_tool *tool, void *ctx);

/* Flushes warnings (unless quiet) before exit. */
void tl_cli_finish(const tl_cli *cli);

#endif
