/*
 * textfile.h — reading a whole file into memory: the one reader behind program files, machine
 * profiles and the command line's file arguments; and the one writer of a command's output file.
 */
#ifndef POLYAPM_TEXTFILE_H
#define POLYAPM_TEXTFILE_H

#include <stddef.h>

#include "diag.h"

/* Reads all of `path`, at most `max` bytes, into a NUL-terminated buffer (malloc'd: the caller
 * frees it); its length, without the NUL, in *len.  On failure NULL and one diagnostic on `path`:
 * "cannot open WHAT: REASON", "is a directory, not WHAT", "larger than N bytes (or MiB): not WHAT",
 * "read error: REASON" or "out of memory" — WHAT names what the file was to be ("a program file",
 * "a machine profile"). */
char *textfile_read(const char *path, const char *what, size_t max, size_t *len, diag_list *d);

/* Writes `text` to `path`: a regular file (or a new one) atomically, through PATH.SUFFIX renamed
 * over it, so that a reader never sees half of it; anything else (/dev/null, a pipe, a terminal)
 * is written as it is, never replaced.  0, or -1 with errno set (nothing written to a regular
 * file then). */
int textfile_write(const char *path, const char *suffix, const char *text);

#endif
