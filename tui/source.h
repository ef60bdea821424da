/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where cookie-top's bytes come from, behind one small table of function
 * pointers (htop/nvtop keep their data sources the same way): the VM's
 * unix socket (waits and reconnects), stdin or a pipe, a recorded file.
 * A source yields raw bytes; lib/record's parser makes records of them, and
 * replay pacing happens per record in cookie-top.c.
 */
#ifndef CK_TUI_SOURCE_H
#define CK_TUI_SOURCE_H

#include <sys/types.h>

struct source;

struct source_ops {
	const char *kind;
	/* 0: open, fd readable with poll; -1: not yet (state says why; try again later) */
	int (*open)(struct source *s);
	/* > 0 bytes, 0 end of stream, -1 error (errno; EAGAIN: nothing now) */
	ssize_t (*read)(struct source *s, void *buf, size_t len);
	void (*close)(struct source *s);
};

struct source {
	const struct source_ops *ops;
	char path[4096];
	int fd;
	int retry;           /* end of stream means: wait and open again (the socket) */
	unsigned connects;   /* successful opens */
	char state[96];      /* for the status line */
};

extern const struct source_ops source_socket_ops, source_stdin_ops, source_file_ops;

/* Choose by argument: "-" stdin, a socket, else a file; NULL arg: the VM socket `def`. */
int source_setup(struct source *s, const char *arg, const char *def, char *err, size_t errsize);

#endif
