// SPDX-License-Identifier: MIT
// Output files that never harm a path that existed before the run.
//
// Every file throng writes (the exporters' --out, the viewer's screenshots
// and recorded frames) goes through here, so the rule lives in one place:
// a regular file, or a name that does not exist yet, is written to a new
// temporary file in the same directory and renamed onto the name when the
// writer is done, so the old file stays whole until then and a failure
// removes only the temporary; anything else that exists (a device such as
// /dev/null or /dev/full, a FIFO, a terminal) is written in place and is
// never created, truncated, renamed or removed. A symbolic link is
// followed: the file it names is the one replaced, and the link stays.
#define _XOPEN_SOURCE 700 // realpath

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "throng/export.h"

struct throng_output_file {
	char* path;      ///< as given, for messages
	char* dest;      ///< the name the temporary replaces (the link's target for a symlink)
	char* temp;      ///< the temporary, or NULL when written in place
	int fd;          ///< -1 once committed
	bool committed;  ///< throng_output_file_commit() was called: nothing left to remove
};

static void output_free(throng_output_file* f)
{
	free(f->path);
	free(f->dest);
	free(f->temp);
	free(f);
}

static char* dup_string(const char* s)
{
	size_t n = strlen(s) + 1;
	char* p = malloc(n);
	if (p != NULL) {
		memcpy(p, s, n);
	}
	return p;
}

/// Creates DIR/.NAME.XXXXXX.part exclusively (mode 0666 less the umask, as
/// a plain create would give). Returns the fd, or -1 with errno set.
static int create_temp(const char* dest, char** temp_out)
{
	const char* slash = strrchr(dest, '/');
	size_t dir_len = slash != NULL ? (size_t)(slash - dest) + 1u : 0u;
	const char* base = dest + dir_len;
	size_t base_len = strlen(base);
	if (base_len > 200) {
		base_len = 200; // keep the temporary's name under NAME_MAX
	}
	size_t cap = dir_len + base_len + 32u;
	char* temp = malloc(cap);
	if (temp == NULL) {
		errno = ENOMEM;
		return -1;
	}
	static unsigned counter;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned long long seed = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 20);
	for (int attempt = 0; attempt < 100; ++attempt) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull + (unsigned long long)(counter++);
		snprintf(temp, cap, "%.*s.%.*s.%06llx.part", (int)dir_len, dest, (int)base_len, base, (seed >> 40) & 0xffffffull);
		int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			*temp_out = temp;
			return fd;
		}
		if (errno != EEXIST && errno != EINTR) {
			break;
		}
	}
	int e = errno;
	free(temp);
	errno = e;
	return -1;
}

throng_status throng_output_file_open(const char* path, throng_output_file** out)
{
	if (path == NULL || path[0] == '\0' || out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_output_file_open: path and out must not be NULL or empty");
	}
	*out = NULL;
	throng_output_file* f = calloc(1, sizeof *f);
	if (f == NULL || (f->path = dup_string(path)) == NULL) {
		free(f);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
	}
	f->fd = -1;

	struct stat st;
	bool exists = stat(path, &st) == 0; // follows a symlink to what it names
	if (!exists && errno != ENOENT) {
		int e = errno;
		output_free(f);
		return thr_fail(THRONG_ERR_IO, "%s: cannot open for writing: %s", path, strerror(e));
	}
	struct stat lst;
	bool dangling = !exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
	if (exists && S_ISDIR(st.st_mode)) {
		output_free(f);
		return thr_fail(THRONG_ERR_IO, "%s: cannot open for writing: %s", path, strerror(EISDIR));
	}
	if ((exists && !S_ISREG(st.st_mode)) || dangling) {
		// A device, a FIFO, a terminal, or a link to a name that does not
		// exist yet: written in place, never truncated, renamed or removed.
		int fd;
		do {
			fd = open(path, O_WRONLY | O_CLOEXEC | (dangling ? O_CREAT : 0), 0666);
		} while (fd < 0 && errno == EINTR);
		if (fd < 0) {
			int e = errno;
			output_free(f);
			return thr_fail(THRONG_ERR_IO, "%s: cannot open for writing: %s", path, strerror(e));
		}
		f->fd = fd;
		*out = f;
		return THRONG_OK;
	}

	// A regular file, or nothing yet: a temporary beside the real name.
	if (exists) {
		char* real = realpath(path, NULL);
		if (real == NULL || faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0) {
			int e = errno;
			free(real);
			output_free(f);
			return thr_fail(THRONG_ERR_IO, "%s: cannot open for writing: %s", path, strerror(e));
		}
		f->dest = real;
	} else {
		f->dest = dup_string(path);
		if (f->dest == NULL) {
			output_free(f);
			return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
		}
	}
	f->fd = create_temp(f->dest, &f->temp);
	if (f->fd < 0) {
		int e = errno;
		output_free(f);
		return thr_fail(THRONG_ERR_IO, "%s: cannot open for writing: %s (a temporary file in its directory)", path,
		                strerror(e));
	}
	if (exists) {
		(void)fchmod(f->fd, st.st_mode & 07777); // the replacement keeps the old file's permissions
	}
	*out = f;
	return THRONG_OK;
}

int throng_output_file_fd(const throng_output_file* f)
{
	return f != NULL ? f->fd : -1;
}

const char* throng_output_file_write_path(const throng_output_file* f)
{
	return f == NULL ? NULL : f->temp != NULL ? f->temp : f->path;
}

bool throng_output_file_in_place(const throng_output_file* f)
{
	return f != NULL && f->temp == NULL;
}

throng_status throng_output_file_commit(throng_output_file* f)
{
	if (f == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_output_file_commit: f must not be NULL");
	}
	if (f->committed) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: throng_output_file_commit: already committed", f->path);
	}
	f->committed = true;
	throng_status st = THRONG_OK;
	if (f->fd >= 0 && close(f->fd) != 0 && errno != EINTR) {
		st = thr_fail(THRONG_ERR_IO, "%s: close failed: %s", f->path, strerror(errno));
	}
	f->fd = -1;
	if (f->temp != NULL) {
		if (st == THRONG_OK && rename(f->temp, f->dest) != 0) {
			st = thr_fail(THRONG_ERR_IO, "%s: cannot rename the finished temporary file %s onto it: %s", f->path,
			              f->temp, strerror(errno));
		}
		if (st != THRONG_OK) {
			unlink(f->temp);
		}
	}
	return st;
}

void throng_output_file_destroy(throng_output_file* f)
{
	if (f == NULL) {
		return;
	}
	if (!f->committed) {
		if (f->fd >= 0) {
			close(f->fd);
		}
		if (f->temp != NULL) {
			unlink(f->temp);
		}
	}
	output_free(f);
}
