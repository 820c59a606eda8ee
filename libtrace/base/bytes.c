#include "base/bytes.h"

#include <math.h>
#include <stdio.h>

/* tfprof's FormatMemory (tfprof_utils.cc), with GB above MB and the sign
 * kept: the unit is chosen by the magnitude. */
size_t tl_bytes_format(char *buf, size_t size, double bytes)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = {{1e9, "GB"}, {1e6, "MB"}, {1e3, "KB"}};
	double mag = fabs(bytes);
	int n = -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0] && n < 0; i++)
		if (mag >= units[i].scale)
			n = snprintf(buf, size, "%.2f%s", bytes / units[i].scale, units[i].unit);
	if (n < 0)
		n = snprintf(buf, size, "%.0fB", bytes);
	if (n < 0 || size == 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}
