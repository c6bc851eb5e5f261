/*
 * tui_entry.h — the one entry point of the ncurses front end, for the command line (tui/cli/main.c).
 * Everything else of the front end is private to tui/ (tui.h).
 */
#ifndef POLYAPM_TUI_ENTRY_H
#define POLYAPM_TUI_ENTRY_H

/* Opens the TUI on a workspace directory, or on FILE.apm (its workspace FILE.pdg next to it is
 * created or reopened), or (target NULL) on the workspace found from the current directory.
 * argv: options after the target (-D name=value, --machine M, --model M).  Returns an exit
 * status: 0 on q, 1 on failure, 2 on a usage error. */
int tui_main(const char *target, int argc, char **argv);

#endif
