// SPDX-License-Identifier: GPL-2.0
/* cookie-top's byte sources; see source.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "ckutil.h"
#include "source.h"

static ssize_t fd_read(struct source *s, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(s->fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

static void fd_close(struct source *s)
{
	if (s->fd > 2)
		close(s->fd);
	s->fd = -1;
}

/* ---- the VM's trace socket: QEMU is the server, it exists only while QEMU runs */

static int socket_open(struct source *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(s->path) >= sizeof(sa.sun_path)) {
		snprintf(s->state, sizeof(s->state), "socket path too long for AF_UNIX");
		return -1;
	}
	strcpy(sa.sun_path, s->path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(s->state, sizeof(s->state), "socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		close(fd);
		if (e == ENOENT || e == ECONNREFUSED)
			snprintf(s->state, sizeof(s->state), "waiting: no VM (start one: make vm-run, or vm/run --trace)");
		else
			snprintf(s->state, sizeof(s->state), "waiting: connect: %s", strerror(e));
		return -1;
	}
	s->fd = fd;
	s->connects++;
	snprintf(s->state, sizeof(s->state), "connected%s", s->connects > 1 ? " again" : "");
	return 0;
}

const struct source_ops source_socket_ops = { "socket", socket_open, fd_read, fd_close };

/* ---- stdin / a pipe (in the guest: cookie-trace -f record | cookie-top -) */

static int stdin_open(struct source *s)
{
	s->fd = 0;
	snprintf(s->state, sizeof(s->state), "reading");
	return 0;
}

const struct source_ops source_stdin_ops = { "stdin", stdin_open, fd_read, fd_close };

/* ---- a recorded file (pacing is per record, in the caller) */

static int file_open(struct source *s)
{
	s->fd = ck_open_input_fd(s->path);
	if (s->fd < 0) {
		snprintf(s->state, sizeof(s->state), "%s", ck_input_strerror(errno));
		return -1;
	}
	snprintf(s->state, sizeof(s->state), "replaying");
	return 0;
}

const struct source_ops source_file_ops = { "replay", file_open, fd_read, fd_close };

int source_setup(struct source *s, const char *arg, const char *def, char *err, size_t errsize)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (!arg) {
		s->ops = &source_socket_ops;
		s->retry = 1;
		snprintf(s->path, sizeof(s->path), "%s", def);
		return 0;
	}
	if (!strcmp(arg, "-")) {
		s->ops = &source_stdin_ops;
		snprintf(s->path, sizeof(s->path), "stdin");
		return 0;
	}
	snprintf(s->path, sizeof(s->path), "%s", arg);
	if (stat(arg, &st) < 0) {
		snprintf(err, errsize, "%s: %s (give a recorded file, a socket, or - for stdin)",
			 arg, strerror(errno));
		return -1;
	}
	if (S_ISSOCK(st.st_mode)) {
		s->ops = &source_socket_ops;
		s->retry = 1;
	} else if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) {
		s->ops = &source_file_ops;
	} else {
		/* a directory read as a file is "end of file", and exit 0 */
		snprintf(err, errsize, "%s: %s", arg, ck_input_strerror(S_ISDIR(st.st_mode) ? EISDIR : EINVAL));
		return -1;
	}
	return 0;
}
