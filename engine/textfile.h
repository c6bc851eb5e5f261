/*
 * textfile.h — reading a whole file into memory: the one reader behind program files, machine
 * profiles and the command line's file arguments.
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

#endif
