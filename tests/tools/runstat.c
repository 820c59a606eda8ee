/*
 * runstat: runs a command and writes what it cost, for scripts/bench.sh:
 * "WALL CPU RSS" to FILE, wall and CPU (user + system) seconds to the
 * microsecond, peak resident memory in KB. GNU time prints CPU to the
 * hundredth of a second, too coarse for a run of 20 ms that a growth
 * compares with one of 200.
 *
 * Usage: runstat FILE COMMAND [ARG]...
 * Exit status: the command's, 128 + N when signal N ended it, 127 when it
 * could not be run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: runstat FILE COMMAND [ARG]...\n");
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "runstat: cannot fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "runstat: cannot run '%s': %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	int status = 0;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "runstat: wait: %s\n", strerror(errno));
			return 127;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	FILE *out = fopen(argv[1], "w");
	if (out == NULL) {
		fprintf(stderr, "runstat: cannot write '%s': %s\n", argv[1], strerror(errno));
		return 127;
	}
	fprintf(out, "%.6f %.6f %ld\n", wall, seconds(ru.ru_utime) + seconds(ru.ru_stime),
		ru.ru_maxrss);
	if (fclose(out) != 0) {
		fprintf(stderr, "runstat: cannot write '%s': %s\n", argv[1], strerror(errno));
		return 127;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
