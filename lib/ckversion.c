// SPDX-License-Identifier: GPL-2.0
/*
 * --version of every C command: argp calls this hook (each command sets
 * argp_program_version_hook to it), which prints "NAME (cookiekit) VERSION".
 * CK_VERSION comes from mk/version, the kit's one place for it, through the
 * compiler's command line (mk/version.mk); this object is rebuilt when it
 * changes.
 */
#include <argp.h>
#include <stdio.h>

#include "ckutil.h"

#ifndef CK_VERSION
#define CK_VERSION "unknown"
#endif

void ck_argp_version(FILE *f, struct argp_state *state)
{
	fprintf(f, "%s (cookiekit) %s\n", state && state->name ? state->name : "?", CK_VERSION);
}
