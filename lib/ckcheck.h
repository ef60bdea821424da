/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CHECK of the unit checks of lib/ (tests/unit/NAME-check.c): counts
 * every check, prints the first 20 failures with file and line, and leaves
 * the verdict to main ("N checks, M failed", exit status).  A header of
 * lib/ so that the checks share one copy.
 */
#ifndef CK_CKCHECK_H
#define CK_CKCHECK_H

#include <stdio.h>

static unsigned long checks, failures;

#define CHECK(cond, ...)                                              \
	do {                                                          \
		checks++;                                             \
		if (!(cond)) {                                        \
			failures++;                                   \
			if (failures <= 20) {                         \
				printf("FAIL %s:%d: ", __FILE__, __LINE__); \
				printf(__VA_ARGS__);                  \
				printf("\n");                         \
			}                                             \
		}                                                     \
	} while (0)

#endif
