// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for tests: a fake hash-ordered directory with chosen
 * cookies, so dirprobe's loop, duplicate and ELOOP handling can be tested
 * on any host, without the kernel bug.
 *
 *   FAKEDIR_PATH  the path that is fake (need not exist)
 *   FAKEDIR_SPEC  file of "COOKIE NAME" lines (hex cookie), in hash order
 *   FAKEDIR_ELOOP if set to N: reading fails with ELOOP once N entries
 *                 have been returned (the 2012 NFS client's symptom)
 *   FAKEDIR_EOF   the end-of-directory cookie (default 0x7fffffff)
 *
 * The model is ext4's htree readdir: entry i is returned with
 * d_off = cookie of entry i+1 (EOF after the last); the open file keeps an
 * internal place, but after lseek()/seekdir() to a cookie C the walk
 * restarts at the first entry whose cookie is >= C ("reset the world").
 * Equal cookies therefore send a reader back to the first of them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct fake_ent {
	uint64_t cookie;
	char name[256];
};

static struct fake_ent *ents;
static size_t nents;
static uint64_t eof_cookie = 0x7fffffff;
static long eloop_after = -1;
static const char *fake_path;

/* One open handle: an fd (getdents path) or a DIR (readdir path). */
struct fake_handle {
	int fd;
	size_t next;           /* index of the next entry to return */
	uint64_t last_doff;    /* telldir() value */
	unsigned long returned;
	struct dirent64 de;
};
static struct fake_handle handles[16];
static int nhandles_used[16];

static void load_spec(void)
{
	static int loaded;
	const char *spec;
	FILE *f;
	char line[512];

	if (loaded)
		return;
	loaded = 1;
	fake_path = getenv("FAKEDIR_PATH");
	spec = getenv("FAKEDIR_SPEC");
	if (getenv("FAKEDIR_ELOOP"))
		eloop_after = strtol(getenv("FAKEDIR_ELOOP"), NULL, 0);
	if (getenv("FAKEDIR_EOF"))
		eof_cookie = strtoull(getenv("FAKEDIR_EOF"), NULL, 0);
	if (!fake_path || !spec)
		return;
	f = fopen(spec, "r");
	if (!f) {
		fprintf(stderr, "fakedir: cannot open FAKEDIR_SPEC %s\n", spec);
		exit(99);
	}
	while (fgets(line, sizeof(line), f)) {
		struct fake_ent e;

		if (sscanf(line, "%" SCNx64 " %255s", &e.cookie, e.name) != 2)
			continue;
		ents = realloc(ents, (nents + 1) * sizeof(*ents));
		ents[nents++] = e;
	}
	fclose(f);
}

static int is_fake(const char *path)
{
	load_spec();
	return fake_path && path && strcmp(path, fake_path) == 0;
}

static struct fake_handle *handle_new(int fd)
{
	for (int i = 0; i < 16; i++)
		if (!nhandles_used[i]) {
			nhandles_used[i] = 1;
			memset(&handles[i], 0, sizeof(handles[i]));
			handles[i].fd = fd;
			return &handles[i];
		}
	fprintf(stderr, "fakedir: too many open fake directories\n");
	exit(99);
}

static struct fake_handle *handle_by_fd(int fd)
{
	for (int i = 0; i < 16; i++)
		if (nhandles_used[i] && handles[i].fd == fd && fd >= 0)
			return &handles[i];
	return NULL;
}

static struct fake_handle *handle_by_dir(DIR *d)
{
	for (int i = 0; i < 16; i++)
		if (nhandles_used[i] && (DIR *)&handles[i] == d)
			return &handles[i];
	return NULL;
}

/* Take entry h->next, or NULL at the end; errno ELOOP when told to fail. */
static struct fake_ent *take(struct fake_handle *h, uint64_t *doff)
{
	if (h->next >= nents)
		return NULL;
	if (eloop_after >= 0 && (long)h->returned >= eloop_after) {
		errno = ELOOP;
		return NULL;
	}
	h->returned++;
	*doff = h->next + 1 < nents ? ents[h->next + 1].cookie : eof_cookie;
	return &ents[h->next++];
}

static void restart_at(struct fake_handle *h, uint64_t cookie)
{
	h->next = 0;
	while (h->next < nents && ents[h->next].cookie < cookie)
		h->next++;
	h->last_doff = cookie;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static int open_common(const char *path, int flags, mode_t mode, int at, int dirfd)
{
	if (is_fake(path)) {
		int fd = REAL(open)("/dev/null", O_RDONLY);

		if (fd >= 0)
			handle_new(fd);
		return fd;
	}
	if (at)
		return REAL(openat)(dirfd, path, flags, mode);
	return REAL(open)(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & O_CREAT) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return open_common(path, flags, mode, 0, 0);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & O_CREAT) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return open_common(path, flags, mode, 1, dirfd);
}

int close(int fd)
{
	struct fake_handle *h = handle_by_fd(fd);

	if (h)
		nhandles_used[h - handles] = 0;
	return REAL(close)(fd);
}

ssize_t getdents64(int fd, void *buf, size_t len)
{
	struct fake_handle *h = handle_by_fd(fd);
	size_t used = 0;

	if (!h)
		return REAL(getdents64)(fd, buf, len);
	for (;;) {
		size_t save = h->next;
		uint64_t doff;
		struct fake_ent *e;
		struct dirent64 *d = (struct dirent64 *)((char *)buf + used);
		size_t reclen;

		if (h->next >= nents)
			break;
		reclen = (offsetof(struct dirent64, d_name) + strlen(ents[h->next].name) + 1 + 7) & ~(size_t)7;
		if (used + reclen > len)
			break;
		e = take(h, &doff);
		if (!e) {
			if (used)
				break;
			h->next = save;
			return -1;
		}
		d->d_ino = 1000 + (e - ents);
		d->d_off = (off64_t)doff;
		d->d_reclen = (unsigned short)reclen;
		d->d_type = DT_REG;
		strcpy(d->d_name, e->name);
		used += reclen;
	}
	return (ssize_t)used;
}

off_t lseek(int fd, off_t off, int whence)
{
	struct fake_handle *h = handle_by_fd(fd);

	if (!h)
		return REAL(lseek)(fd, off, whence);
	if (whence != SEEK_SET) {
		errno = EINVAL;
		return -1;
	}
	restart_at(h, (uint64_t)off);
	return off;
}

off64_t lseek64(int fd, off64_t off, int whence) __attribute__((alias("lseek")));

DIR *opendir(const char *path)
{
	if (is_fake(path))
		return (DIR *)handle_new(-1);
	return REAL(opendir)(path);
}

struct dirent64 *readdir64(DIR *d)
{
	struct fake_handle *h = handle_by_dir(d);
	struct fake_ent *e;
	uint64_t doff;

	if (!h)
		return REAL(readdir64)(d);
	e = take(h, &doff);
	if (!e)
		return NULL;
	h->de.d_ino = 1000 + (e - ents);
	h->de.d_off = (off64_t)doff;
	h->de.d_type = DT_REG;
	h->de.d_reclen = sizeof(h->de);
	strcpy(h->de.d_name, e->name);
	h->last_doff = doff;
	return &h->de;
}

/* On x86_64 struct dirent and struct dirent64 are the same. */
struct dirent *readdir(DIR *d) __attribute__((alias("readdir64")));

long telldir(DIR *d)
{
	struct fake_handle *h = handle_by_dir(d);

	if (!h)
		return REAL(telldir)(d);
	return (long)h->last_doff;
}

void seekdir(DIR *d, long pos)
{
	struct fake_handle *h = handle_by_dir(d);

	if (!h) {
		REAL(seekdir)(d, pos);
		return;
	}
	restart_at(h, (uint64_t)pos);
}

int closedir(DIR *d)
{
	struct fake_handle *h = handle_by_dir(d);

	if (!h)
		return REAL(closedir)(d);
	nhandles_used[h - handles] = 0;
	return 0;
}
