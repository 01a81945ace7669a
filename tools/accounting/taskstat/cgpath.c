// SPDX-License-Identifier: GPL-2.0
/*
 * taskstat - the path of a cgroup v2 id. A record names its cgroup by id
 * (the kernfs node id: what name_to_handle_at() returns for the cgroup's
 * directory, its inode number on 64-bit); the kernel has no way back to a
 * path. So the cgroup2 mount is walked once and every directory's id kept,
 * and walked again when an id is not there (a cgroup made since). An id
 * still missing then is a removed cgroup's, and ids are never reused: it is
 * remembered, so that its other records cost no walk.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "taskstat.h"

struct cg_entry {
	uint64_t id;
	char *path;	/* below the mount: "/" is its root, as /proc/PID/cgroup says */
};

static struct {
	bool looked;			/* for the mount */
	char mount[PATH_MAX];		/* "" if there is no cgroup2 mount */
	struct cg_entry *v;
	size_t n, cap;
	uint64_t gone[64];		/* removed cgroups' ids, the latest */
	unsigned int ngone;
} cache;

/* mountinfo's octal escapes (\040 for a space), undone in place. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
			s += 3;
		} else {
			*d = *s;
		}
	}
	*d = '\0';
}

/*
 * The cgroup2 mount in /proc/self/mountinfo: one of the hierarchy's root
 * if there is one (a bind mount of a subdirectory would give paths below
 * that subdirectory), else the first.
 */
static void find_mount(void)
{
	char line[4096], root[PATH_MAX], point[PATH_MAX], type[64];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	bool whole = false;

	cache.looked = true;
	if (!f)
		return;
	while (!whole && fgets(line, sizeof(line), f)) {
		const char *tail = strstr(line, " - ");

		/* ID PARENT MAJ:MIN ROOT POINT ... - TYPE SOURCE OPTIONS */
		if (!tail || sscanf(tail, " - %63s", type) != 1 || strcmp(type, "cgroup2") ||
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2)
			continue;
		whole = !strcmp(root, "/");
		if (whole || !cache.mount[0]) {
			unescape(point);
			snprintf(cache.mount, sizeof(cache.mount), "%s", point);
		}
	}
	fclose(f);
	if (opt_verbose)
		fprintf(stderr, "taskstat: cgroup paths are below %s\n",
			cache.mount[0] ? cache.mount : "(no cgroup2 mount)");
}

/*
 * The cgroup id of the directory @name of @dirfd ("" for @dirfd itself):
 * its file handle, as the kernel's records carry it, or where there is
 * none its inode number, which is the same on 64-bit.
 */
static bool cgroup_id_at(int dirfd, const char *name, uint64_t *id)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + sizeof(uint64_t)];
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	int flags = name[0] ? 0 : AT_EMPTY_PATH, mnt;
	struct stat st;

	if (!name_to_handle_at(dirfd, name, &h.fh, &mnt, flags) &&
	    h.fh.handle_bytes == sizeof(*id)) {
		memcpy(id, h.fh.f_handle, sizeof(*id));
		return true;
	}
	if (fstatat(dirfd, name, &st, flags | AT_SYMLINK_NOFOLLOW))
		return false;
	*id = st.st_ino;
	return true;
}

static void cache_add(uint64_t id, const char *path)
{
	cache.v = grow_array(cache.v, cache.n, &cache.cap, sizeof(*cache.v), 64);
	cache.v[cache.n].id = id;
	cache.v[cache.n].path = strdup(path[0] ? path : "/");
	if (!cache.v[cache.n].path) {
		perror("taskstat");
		exit(1);
	}
	cache.n++;
}

/*
 * Adds every cgroup below the directory @fd (which it closes), whose
 * path is the @len bytes of @path. A cgroup removed meanwhile is skipped.
 */
static void walk(int fd, char *path, size_t len)
{
	DIR *dir = fdopendir(fd);
	struct dirent *d;

	if (!dir) {
		close(fd);
		return;
	}
	while ((d = readdir(dir))) {
		size_t n = strlen(d->d_name) + 1;
		uint64_t id;
		int child;

		if (d->d_type != DT_DIR || !strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    len + n >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, d->d_name, n);
		if (!cgroup_id_at(dirfd(dir), d->d_name, &id))
			continue;
		cache_add(id, path);
		child = openat(dirfd(dir), d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (child >= 0)
			walk(child, path, len + n);
	}
	path[len] = '\0';
	closedir(dir);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct cg_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Forgets every path and walks the whole cgroup2 mount anew. */
static void rewalk(void)
{
	static char path[PATH_MAX];
	uint64_t id;
	int fd;

	if (!cache.looked)
		find_mount();
	for (size_t i = 0; i < cache.n; i++)
		free(cache.v[i].path);
	cache.n = 0;
	if (!cache.mount[0])
		return;
	fd = open(cache.mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (cgroup_id_at(fd, "", &id))
		cache_add(id, "/");
	path[0] = '\0';
	walk(fd, path, 0);
	qsort(cache.v, cache.n, sizeof(*cache.v), cmp_entry);
}

static const char *lookup(uint64_t id)
{
	struct cg_entry key = { .id = id }, *e;

	e = cache.n ? bsearch(&key, cache.v, cache.n, sizeof(key), cmp_entry) : NULL;
	return e ? e->path : NULL;
}

static bool known_gone(uint64_t id)
{
	for (unsigned int i = 0; i < cache.ngone && i < ARRAY_SIZE(cache.gone); i++)
		if (cache.gone[i] == id)
			return true;
	return false;
}

/*
 * The path of the cgroup with the id @id below the cgroup2 mount, such as
 * "/system.slice/foo.service" ("/" for the root); NULL if there is none
 * (removed, or no cgroup2 mount).
 */
const char *cgroup_path(uint64_t id)
{
	const char *path = lookup(id);

	if (path || known_gone(id))
		return path;
	rewalk();
	path = lookup(id);
	if (!path)
		cache.gone[cache.ngone++ % ARRAY_SIZE(cache.gone)] = id;
	return path;
}
