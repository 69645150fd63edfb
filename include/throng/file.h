// SPDX-License-Identifier: MIT
// Output files: the one way throng writes a file.
//
// Every writer goes through throng_output_file_open(): the exporters
// (throng_exporter_create, `throng run --out`), scenario files
// (throng_scene_save_file, `throng save`), the viewer's screenshots and
// recorded frames and the benchmark's results. The rules, in the order they
// are applied to the path (docs/FORMAT.md, "Output files", says the same
// for users):
//
// 1. Standard streams. "-", "/dev/stdout", "/proc/self/fd/1" and
//    "/dev/fd/1" are standard output; "/dev/stderr" and "/dev/fd/2" (or
//    /proc/self/fd/2) standard error; "/dev/fd/N" and "/proc/self/fd/N" the
//    inherited descriptor N. They are written in place through a duplicate
//    of the descriptor, whatever the name in /dev has become: nothing is
//    looked up, created or renamed.
// 2. Symbolic links are followed only where the kernel's
//    protected_symlinks would let a shell redirection follow them, checked
//    by the library whatever the kernel's own setting: a link that sits in
//    a sticky, world-writable directory (/tmp) is followed only when it
//    belongs to the caller (the effective user) or to the directory's
//    owner; otherwise THRONG_ERR_IO ("... another user's symbolic link in
//    a sticky directory"). Each link of a chain is checked. A link to a
//    name that does not exist is refused: nothing is created through a
//    link.
// 3. What the path names after the links:
//    - a directory: refused;
//    - a device, a FIFO or a socket: written in place, opened without
//      truncating, never created, renamed or removed;
//    - a regular file, or nothing yet: written to a new temporary file
//      ".NAME.XXXXXX.part" beside it, created with O_CREAT | O_EXCL |
//      O_NOFOLLOW (a name planted in advance, or a link, makes the open
//      fail, and another random name is tried), and renamed onto the
//      name by throng_output_file_commit(); until then the old file is
//      untouched, and a failure removes only the temporary. When the path
//      was a link, the file it names is the one replaced (the link stays).
// 4. Nothing is ever created in, or renamed into, /dev or a directory
//    under it (/dev/shm, a tmpfs for shared memory, excepted): a regular
//    file there, such as a /dev/stdout that something replaced, is
//    refused rather than replaced.
//
// A replacement is a new file: it takes the old file's permission bits,
// and its owner and group where the caller may set them (root, or the
// same owner); hard links to the old file keep the old contents.
// throng_output_file_notice() says so when either happens.
//
// The temporary holds an advisory lock (flock) while it is written. A run
// killed by a signal it cannot catch (SIGKILL, a power cut) leaves its
// temporary behind; the next open of the same path removes such leftovers
// that belong to the caller and nobody holds, and reports the others.
#ifndef THRONG_FILE_H
#define THRONG_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "throng/api.h"
#include "throng/throng.h"

THRONG_API_BEGIN

/// A file being written so that no path that existed before is harmed.
typedef struct throng_output_file throng_output_file;

/// Opens `path` for writing under the rules above. Fails with
/// THRONG_ERR_IO and a message that names the path and the rule
/// ("PATH: cannot open for writing: ...") before anything is written; on
/// success *out owns the open file.
throng_status throng_output_file_open(const char* path, throng_output_file** out);

/// The open descriptor to write to (owned by the output file).
int throng_output_file_fd(const throng_output_file* f);

/// The name to open when a library writes the file by name (SQLite): the
/// temporary, or the path itself when written in place. NULL for a
/// standard stream, which has no name to open.
const char* throng_output_file_write_path(const throng_output_file* f);

/// True when the path is written in place (a device, a FIFO, a standard
/// stream): nothing is renamed at commit, and what was written stays.
bool throng_output_file_in_place(const throng_output_file* f);

/// True when the path named a standard stream or an inherited descriptor
/// (rule 1).
bool throng_output_file_is_stream(const throng_output_file* f);

/// Writes `size` bytes at the descriptor's position, all of them
/// (retrying short writes and EINTR). THRONG_ERR_IO names the path and says
/// what happens to it: a replaced file is left as it was once the output
/// file is destroyed without a commit; one written in place keeps what it
/// received.
throng_status throng_output_file_write(throng_output_file* f, const void* data, size_t size);

/// What the caller should tell the user about this file, or NULL: hard
/// links that keep the old contents, an owner that could not be kept,
/// leftover temporaries of a killed run removed or found. Owned by `f`.
const char* throng_output_file_notice(const throng_output_file* f);

/// Closes the file and renames the temporary onto the path. On failure
/// removes the temporary (never the path) and returns THRONG_ERR_IO naming
/// the path. Does not free `f`: after it, success or not, only
/// throng_output_file_destroy() may be called (a second commit fails).
throng_status throng_output_file_commit(throng_output_file* f);

/// Frees `f`. One not committed is discarded first: the file is closed and
/// the temporary removed, leaving the path as it was (a file written in
/// place keeps what it received). NULL is ignored.
void throng_output_file_destroy(throng_output_file* f);

/// Whether `path` names standard output under rule 1 ("-", /dev/stdout,
/// /dev/fd/1, /proc/self/fd/1), for callers that treat it differently
/// (the summary of `throng run` moves to standard error).
bool throng_output_path_is_stdout(const char* path);

THRONG_API_END

#endif
