// SPDX-License-Identifier: MIT
// Output files that never harm a path that existed before the run, nor a
// file another user pointed a link at (include/throng/file.h has the rules).
//
// Every file throng writes goes through here, so the rules live in one
// place. The order matters:
// - standard streams first, by name, before anything is looked up: a
//   /dev/stdout that something replaced with a regular file is never
//   touched, and "-" means the same here as everywhere;
// - then the links of the last component, followed by hand so that the
//   protected_symlinks rule is applied whatever the kernel's setting (it
//   is often off in containers, where throng runs as root);
// - then what the name is: written in place (a device, a FIFO), or through
//   an exclusive temporary beside it that the commit renames onto it;
// - and never a new name in /dev.
#define _GNU_SOURCE // O_NOFOLLOW, F_DUPFD_CLOEXEC, flock, getrandom, unlinkat, strdup, strndup

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "throng/file.h"

/// Links followed in a chain before giving up (the kernel's limit too).
#define OUTPUT_MAX_LINKS 40
/// Longest part of the destination's name kept in the temporary's name,
/// so that ".NAME.XXXXXX.part" stays under NAME_MAX.
#define OUTPUT_TEMP_BASE_MAX 200
/// Leftover temporaries named in a notice (the rest are counted).
#define OUTPUT_NOTICE_NAMES 3

struct throng_output_file {
	char* path;     ///< as given, for messages
	char* dest;     ///< the name the temporary replaces (a link's target); NULL in place
	char* temp;     ///< the temporary; NULL in place
	char* notice;   ///< throng_output_file_notice(), or NULL
	int fd;         ///< -1 once committed
	bool stream;    ///< rule 1: a standard stream or an inherited descriptor
	bool committed; ///< throng_output_file_commit() was called: nothing left to remove
};

static void output_free(throng_output_file* f)
{
	free(f->path);
	free(f->dest);
	free(f->temp);
	free(f->notice);
	free(f);
}

/// Appends a formatted sentence to f->notice ("; " between sentences).
static void add_notice(throng_output_file* f, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void add_notice(throng_output_file* f, const char* fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	size_t old = f->notice != NULL ? strlen(f->notice) : 0u;
	char* n = realloc(f->notice, old + strlen(text) + 3u);
	if (n == NULL) {
		return; // a notice is advice: losing it under memory pressure harms nothing
	}
	snprintf(n + old, strlen(text) + 3u, "%s%s", old != 0u ? "; " : "", text);
	f->notice = n;
}

/// The directory part of `path` ("." for a bare name), malloc'd.
static char* dir_of(const char* path)
{
	const char* slash = strrchr(path, '/');
	if (slash == NULL) {
		return strdup(".");
	}
	return strndup(path, slash == path ? 1u : (size_t)(slash - path));
}

/// Parses a whole decimal descriptor number (no sign, no leading space).
static int parse_fd(const char* s)
{
	if (*s < '0' || *s > '9') {
		return -1;
	}
	long v = 0;
	for (; *s != '\0'; ++s) {
		if (*s < '0' || *s > '9' || v > INT_MAX / 10) {
			return -1;
		}
		v = v * 10 + (*s - '0');
	}
	return v <= INT_MAX ? (int)v : -1;
}

/// Rule 1: the descriptor a path names by itself, or -1.
static int stream_fd(const char* path)
{
	if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) {
		return STDOUT_FILENO;
	}
	if (strcmp(path, "/dev/stderr") == 0) {
		return STDERR_FILENO;
	}
	if (strncmp(path, "/dev/fd/", 8) == 0) {
		return parse_fd(path + 8);
	}
	if (strncmp(path, "/proc/self/fd/", 14) == 0) {
		return parse_fd(path + 14);
	}
	return -1;
}

bool throng_output_path_is_stdout(const char* path)
{
	return path != NULL && stream_fd(path) == STDOUT_FILENO;
}

/// Whether a canonical directory is /dev or under it, /dev/shm excepted.
static bool in_dev(const char* dir)
{
	if (strcmp(dir, "/dev") != 0 && strncmp(dir, "/dev/", 5) != 0) {
		return false;
	}
	return strcmp(dir, "/dev/shm") != 0 && strncmp(dir, "/dev/shm/", 9) != 0;
}

/// Follows the links of the last component of `path` as protected_symlinks
/// allows, checking each link of the chain. Returns the malloc'd name the
/// chain ends on (it may not exist) and sets *linked when there was at
/// least one link; NULL after thr_fail.
static char* follow_links(const char* path, bool* linked)
{
	char* cur = strdup(path);
	*linked = false;
	for (int hops = 0; cur != NULL; ++hops) {
		struct stat lst;
		if (lstat(cur, &lst) != 0 || !S_ISLNK(lst.st_mode)) {
			return cur; // not a link (or nothing yet): the caller looks at it
		}
		if (hops == OUTPUT_MAX_LINKS) {
			free(cur);
			thr_fail(THRONG_ERR_IO, "%s: cannot open for writing: %s", path, strerror(ELOOP));
			return NULL;
		}
		*linked = true;
		char* dir = dir_of(cur);
		struct stat dst;
		if (dir == NULL || stat(dir, &dst) != 0) {
			int e = dir == NULL ? ENOMEM : errno;
			free(dir);
			free(cur);
			thr_fail(THRONG_ERR_IO, "%s: cannot open for writing: %s", path, strerror(e));
			return NULL;
		}
		bool sticky_shared = (dst.st_mode & S_ISVTX) != 0 && (dst.st_mode & S_IWOTH) != 0;
		if (sticky_shared && lst.st_uid != geteuid() && lst.st_uid != dst.st_uid) {
			thr_fail(THRONG_ERR_IO,
			         "%s: cannot open for writing: %s is another user's symbolic link (uid %u) in the sticky, "
			         "world-writable directory %s; it is not followed (as the kernel's protected_symlinks "
			         "rule says); write to the file it names directly",
			         path, cur, (unsigned)lst.st_uid, dir);
			free(dir);
			free(cur);
			return NULL;
		}
		char target[PATH_MAX];
		ssize_t n = readlink(cur, target, sizeof target - 1u);
		if (n < 0) {
			int e = errno;
			free(dir);
			free(cur);
			thr_fail(THRONG_ERR_IO, "%s: cannot open for writing: %s", path, strerror(e));
			return NULL;
		}
		target[n] = '\0';
		char* next = NULL;
		if (target[0] == '/') {
			next = strdup(target);
		} else {
			size_t len = strlen(dir) + 1u + (size_t)n + 1u;
			next = malloc(len);
			if (next != NULL) {
				snprintf(next, len, "%s/%s", dir, target);
			}
		}
		free(dir);
		free(cur);
		cur = next;
	}
	thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
	return NULL;
}

/// Creates DIR/.NAME.XXXXXX.part with O_EXCL | O_NOFOLLOW (mode 0666 less
/// the umask, as a plain create would give) and locks it. Returns the fd,
/// or -1 with errno set.
static int create_temp(const char* dest, char** temp_out)
{
	const char* slash = strrchr(dest, '/');
	size_t dir_len = slash != NULL ? (size_t)(slash - dest) + 1u : 0u;
	const char* base = dest + dir_len;
	size_t base_len = strlen(base);
	if (base_len > OUTPUT_TEMP_BASE_MAX) {
		base_len = OUTPUT_TEMP_BASE_MAX;
	}
	size_t cap = dir_len + base_len + 32u;
	char* temp = malloc(cap);
	if (temp == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (int attempt = 0; attempt < 100; ++attempt) {
		unsigned int r = 0;
		if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
			r = (unsigned int)getpid() * 2654435761u + (unsigned int)attempt * 40503u; // no entropy yet: still unique
		}
		snprintf(temp, cap, "%.*s.%.*s.%06x.part", (int)dir_len, dest, (int)base_len, base, r & 0xffffffu);
		int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0) {
			(void)flock(fd, LOCK_EX | LOCK_NB); // marks it as being written (see sweep_leftovers)
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

/// Whether `name` is a temporary of `base`: ".BASE.XXXXXX.part", X hex.
static bool is_temp_of(const char* name, const char* base, size_t base_len)
{
	if (name[0] != '.' || strncmp(name + 1, base, base_len) != 0 || name[1 + base_len] != '.') {
		return false;
	}
	const char* hex = name + 2 + base_len;
	for (int k = 0; k < 6; ++k) {
		char c = hex[k];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
			return false;
		}
	}
	return strcmp(hex + 6, ".part") == 0;
}

/// Removes SQLite's journals NAME-journal and NAME-wal of a removed
/// temporary NAME when they are ours and regular files.
static void remove_journals(int dir_fd, const char* name)
{
	static const char* const suffixes[] = {"-journal", "-wal"};
	for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; ++k) {
		char journal[NAME_MAX + 1];
		struct stat st;
		if (snprintf(journal, sizeof journal, "%s%s", name, suffixes[k]) < (int)sizeof journal &&
		    fstatat(dir_fd, journal, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()) {
			(void)unlinkat(dir_fd, journal, 0);
		}
	}
}

/// Removes the temporaries of `dest` that a killed run left behind (ours,
/// regular, locked by nobody) and notes them; notes those it leaves (another
/// user's). A temporary being written holds its lock and is skipped.
static void sweep_leftovers(throng_output_file* f, const char* dest)
{
	char* dir = dir_of(dest);
	DIR* d = dir != NULL ? opendir(dir) : NULL;
	if (d == NULL) {
		free(dir);
		return;
	}
	const char* slash = strrchr(dest, '/');
	const char* base = slash != NULL ? slash + 1 : dest;
	size_t base_len = strlen(base);
	base_len = base_len > OUTPUT_TEMP_BASE_MAX ? OUTPUT_TEMP_BASE_MAX : base_len;
	const char* own = f->temp != NULL ? strrchr(f->temp, '/') : NULL;
	own = own != NULL ? own + 1 : f->temp;
	char removed[OUTPUT_NOTICE_NAMES * 224] = "", kept[OUTPUT_NOTICE_NAMES * 224] = "";
	unsigned n_removed = 0, n_kept = 0;
	for (struct dirent* e = readdir(d); e != NULL; e = readdir(d)) {
		if (!is_temp_of(e->d_name, base, base_len) || (own != NULL && strcmp(e->d_name, own) == 0)) {
			continue;
		}
		int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			if (fd >= 0) {
				close(fd);
			}
			continue;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			close(fd); // being written by a run that is alive
			continue;
		}
		bool mine = st.st_uid == geteuid();
		bool gone = mine && unlinkat(dirfd(d), e->d_name, 0) == 0;
		close(fd);
		if (gone) {
			remove_journals(dirfd(d), e->d_name); // SQLite's, beside a temporary it wrote
		}
		char* list = gone ? removed : kept;
		unsigned* count = gone ? &n_removed : &n_kept;
		if (*count < OUTPUT_NOTICE_NAMES) {
			size_t used = strlen(list);
			snprintf(list + used, sizeof removed - used, "%s%s", *count != 0 ? ", " : "", e->d_name);
		}
		*count += 1;
	}
	closedir(d);
	if (n_removed != 0) {
		add_notice(f, "removed %u temporary file%s left in %s by an earlier run that was killed (%s%s)", n_removed,
		           n_removed == 1 ? "" : "s", dir, removed, n_removed > OUTPUT_NOTICE_NAMES ? ", ..." : "");
	}
	if (n_kept != 0) {
		add_notice(f, "%u temporary file%s in %s left by another user's run that was killed (%s%s); remove %s by hand",
		           n_kept, n_kept == 1 ? "" : "s", dir, kept, n_kept > OUTPUT_NOTICE_NAMES ? ", ..." : "",
		           n_kept == 1 ? "it" : "them");
	}
	free(dir);
}

/// Fails an open: frees f and records "PATH: cannot open for writing: why".
static throng_status open_fail(throng_output_file* f, const char* why)
{
	throng_status st = thr_fail(THRONG_ERR_IO, "%s: cannot open for writing: %s", f->path, why);
	output_free(f);
	return st;
}

/// Rule 1: a duplicate of descriptor n.
static throng_status open_stream(throng_output_file* f, int n, throng_output_file** out)
{
	int flags = fcntl(n, F_GETFL);
	if (flags < 0) {
		char why[64];
		snprintf(why, sizeof why, "descriptor %d is not open", n);
		return open_fail(f, why);
	}
	if ((flags & O_ACCMODE) == O_RDONLY) {
		char why[64];
		snprintf(why, sizeof why, "descriptor %d is open for reading only", n);
		return open_fail(f, why);
	}
	f->fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	if (f->fd < 0) {
		return open_fail(f, strerror(errno));
	}
	f->stream = true;
	*out = f;
	return THRONG_OK;
}

/// A new file replaces an old one: keep what can be kept of it, say what not.
static void keep_old_file(throng_output_file* f, const struct stat* old)
{
	if ((old->st_uid != geteuid() || old->st_gid != getegid()) && fchown(f->fd, old->st_uid, old->st_gid) != 0) {
		add_notice(f, "%s now belongs to uid %u (it belonged to uid %u, and only root may give a file away)",
		           f->path, (unsigned)geteuid(), (unsigned)old->st_uid);
	}
	(void)fchmod(f->fd, old->st_mode & 07777); // after fchown, which clears set-id bits
	if (old->st_nlink > 1) {
		add_notice(f, "%s is replaced by a new file; its %lu other hard link%s keep%s the old contents", f->path,
		           (unsigned long)old->st_nlink - 1ul, old->st_nlink > 2 ? "s" : "", old->st_nlink > 2 ? "" : "s");
	}
}

throng_status throng_output_file_open(const char* path, throng_output_file** out)
{
	if (path == NULL || path[0] == '\0' || out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_output_file_open: path and out must not be NULL or empty");
	}
	*out = NULL;
	throng_output_file* f = calloc(1, sizeof *f);
	if (f == NULL || (f->path = strdup(path)) == NULL) {
		free(f);
		return thr_fail(THRONG_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
	}
	f->fd = -1;

	int n = stream_fd(path);
	if (n >= 0) {
		return open_stream(f, n, out);
	}

	bool linked = false;
	char* name = follow_links(path, &linked);
	if (name == NULL) {
		output_free(f);
		return THRONG_ERR_IO; // follow_links said why
	}
	struct stat st;
	bool exists = stat(name, &st) == 0;
	int e = errno;
	if (!exists && (e != ENOENT || linked)) {
		char why[PATH_MAX + 128];
		if (e == ENOENT) {
			snprintf(why, sizeof why, "it is a symbolic link to %s, which does not exist; nothing is created through a link",
			         name);
		} else {
			snprintf(why, sizeof why, "%s", strerror(e));
		}
		free(name);
		return open_fail(f, why);
	}
	if (exists && S_ISDIR(st.st_mode)) {
		free(name);
		return open_fail(f, strerror(EISDIR));
	}
	if (exists && !S_ISREG(st.st_mode)) {
		// A device, a FIFO, a socket: written in place, never truncated,
		// renamed or removed. The links were checked; the name is not one now.
		do {
			f->fd = open(name, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
		} while (f->fd < 0 && errno == EINTR);
		e = errno;
		free(name);
		if (f->fd < 0) {
			return open_fail(f, strerror(e));
		}
		*out = f;
		return THRONG_OK;
	}

	// A regular file, or nothing yet: a temporary beside the name, never
	// in /dev.
	char* dir = dir_of(name);
	char* real_dir = dir != NULL ? realpath(dir, NULL) : NULL;
	e = errno;
	free(dir);
	if (real_dir == NULL) {
		free(name);
		return open_fail(f, strerror(e));
	}
	bool dev = in_dev(real_dir);
	free(real_dir);
	if (dev) {
		free(name);
		return open_fail(f, exists ? "it is a regular file in /dev, where throng writes only to devices (in place), "
		                             "never replaces a file; for standard output give -"
		                           : "throng creates no file in /dev (only /dev/shm); for standard output give -");
	}
	if (exists && faccessat(AT_FDCWD, name, W_OK, AT_EACCESS) != 0) {
		e = errno;
		free(name);
		return open_fail(f, strerror(e));
	}
	f->dest = name;
	f->fd = create_temp(f->dest, &f->temp);
	if (f->fd < 0) {
		char why[256];
		snprintf(why, sizeof why, "%s (a temporary file in its directory)", strerror(errno));
		return open_fail(f, why);
	}
	if (exists) {
		keep_old_file(f, &st);
	}
	sweep_leftovers(f, f->dest);
	*out = f;
	return THRONG_OK;
}

int throng_output_file_fd(const throng_output_file* f)
{
	return f != NULL ? f->fd : -1;
}

const char* throng_output_file_write_path(const throng_output_file* f)
{
	return f == NULL || f->stream ? NULL : f->temp != NULL ? f->temp : f->path;
}

bool throng_output_file_in_place(const throng_output_file* f)
{
	return f != NULL && f->temp == NULL;
}

bool throng_output_file_is_stream(const throng_output_file* f)
{
	return f != NULL && f->stream;
}

throng_status throng_output_file_write(throng_output_file* f, const void* data, size_t size)
{
	if (f == NULL || (data == NULL && size != 0u)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "throng_output_file_write: f and data must not be NULL");
	}
	if (f->fd < 0) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: throng_output_file_write: already committed", f->path);
	}
	const char* p = data;
	while (size > 0u) {
		ssize_t w = write(f->fd, p, size);
		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			return thr_fail(THRONG_ERR_IO, "%s: cannot write: %s; %s", f->path,
			                w < 0 ? strerror(errno) : "no byte written",
			                f->temp == NULL ? "what was written before stays" : "the path is left as it was");
		}
		p += w;
		size -= (size_t)w;
	}
	return THRONG_OK;
}

const char* throng_output_file_notice(const throng_output_file* f)
{
	return f != NULL ? f->notice : NULL;
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
