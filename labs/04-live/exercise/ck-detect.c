// SPDX-License-Identifier: GPL-2.0
/*
 * ck-detect OBJ DIR — lab 04 exercise's loader (the kit's, not the
 * student's): load the student's BPF object OBJ (detector.bpf.c, built by the
 * grader), attach its programs, read DIR to the end once with readdir(3),
 * and print what the object's map "dirs" holds for DIR's inode:
 *
 *   detect dir=DIR ino=INO names=N dups=D readdir=R
 *
 * R is the entries readdir returned.  Runs in the guest only.  Exit status:
 * 0 printed; 1 OBJ did not load or attach, or DIR could not be read (the
 * libbpf or system message on stderr); 64 bad usage.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

struct dirstat { unsigned long long names, dups; };

static int usage(FILE *f, int st)
{
	fputs("Usage: ck-detect OBJ DIR\n"
	      "Load the BPF object OBJ (a map 'dirs': key u64 inode, value {u64 names, u64 dups}),\n"
	      "attach its programs, read DIR once and print the map's entry for DIR:\n"
	      "  detect dir=DIR ino=INO names=N dups=D readdir=R\n", f);
	return st;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *p;
	struct bpf_map *map;
	struct dirstat v = { 0, 0 };
	struct dirent *e;
	struct stat sb;
	unsigned long long ino;
	long n = 0;
	DIR *d;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return usage(stdout, 0);
	if (argc != 3)
		return usage(stderr, 64);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "ck-detect: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "ck-detect: %s did not load (the verifier's log is above)\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(p, obj) {
		if (!bpf_program__attach(p)) {
			fprintf(stderr, "ck-detect: cannot attach %s: %s\n", bpf_program__name(p), strerror(errno));
			return 1;
		}
	}
	map = bpf_object__find_map_by_name(obj, "dirs");
	if (!map) {
		fprintf(stderr, "ck-detect: %s has no map 'dirs'\n", argv[1]);
		return 1;
	}
	if (stat(argv[2], &sb) || !(d = opendir(argv[2]))) {
		fprintf(stderr, "ck-detect: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	errno = 0;
	while ((e = readdir(d)))
		n++;
	if (errno) {
		fprintf(stderr, "ck-detect: reading %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	closedir(d);
	ino = sb.st_ino;
	if (bpf_map_lookup_elem(bpf_map__fd(map), &ino, &v) && errno != ENOENT) {
		fprintf(stderr, "ck-detect: reading map 'dirs': %s\n", strerror(errno));
		return 1;
	}
	if (printf("detect dir=%s ino=%llu names=%llu dups=%llu readdir=%ld\n", argv[2], ino, v.names, v.dups, n) < 0 ||
	    fflush(stdout)) {
		perror("ck-detect: stdout");
		return 1;
	}
	bpf_object__close(obj);
	return 0;
}
