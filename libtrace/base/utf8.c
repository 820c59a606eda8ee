#include "base/utf8.h"

#include <math.h>
#include <stdio.h>

size_t tl_utf8_encode(char buf[4], uint32_t cp)
{
	if (cp < 0x80) {
		buf[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		buf[0] = (char)(0xc0 | (cp >> 6));
		buf[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		buf[0] = (char)(0xe0 | (cp >> 12));
		buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		buf[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	buf[0] = (char)(0xf0 | (cp >> 18));
	buf[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	buf[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	buf[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

bool tl_utf8_is_text(const char *s, size_t n, uint32_t controls, bool cut)
{
	const char *end = s + n;
	for (const char *p = s; p < end;) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x80) {
			if ((c < 0x20 && !(controls >> c & 1u)) || c == 0x7f)
				return false;
			p++;
			continue;
		}
		int32_t cp;
		p = tl_utf8_next(p, end, &cp);
		if (cp == TL_UTF8_TRUNCATED)
			return cut;
		if (cp < 0)
			return false;
	}
	return true;
}
