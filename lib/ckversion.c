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
#include <string.h>

#include "ckutil.h"

#ifndef CK_VERSION
#define CK_VERSION "unknown"
#endif

void ck_argp_version(FILE *f, struct argp_state *state)
{
	fprintf(f, "%s (cookiekit) %s\n", state && state->name ? state->name : "?", CK_VERSION);
}

/*
 * -h is --help in every command, as in the kit's scripts (argp knows only
 * --help and -?).  glibc calls ELF constructors with main's arguments, so
 * this one, linked into each command with ck_argp_version, turns a first
 * argument "-h" into "--help" before argp sees it; an -h anywhere else is
 * left to the command (an option's value may be "-h").
 */
__attribute__((constructor)) static void ck_help_h(int argc, char **argv)
{
	static char help[] = "--help";

	if (argc >= 2 && argv && argv[1] && !strcmp(argv[1], "-h"))
		argv[1] = help;
}
