/*
 * optable.h — the one option-table type of the `polyapm` commands, its parser, and the synopsis
 * and `polyapm COMMAND --help` text generated from it.
 *
 * A command is a cli_spec: its name, its positional arguments (as the synopsis shows them), a
 * one-line summary and a table of cli_opt rows.  Commands of one family share one table (and one
 * argument struct); a row's `cmds` bits say which of them accept it.  A command with two forms
 * (`sim FILE.apm`, `sim NODE`) is two specs of one name that name each other as `other`.
 *
 * The parser: a word that starts with '-' and a non-digit is an option ("-3" is a positional);
 * "--" ends the options.  A value follows its option as the next word, or attached:
 * `--machine=M`, `-Dn=4` (a one-letter option).  Positional words are moved to argv[1..npos] in
 * their order.  Every bad usage is reported as "polyapm NAME: message" plus the synopsis
 * (cli_usage) and returns CLI_USAGE.
 */
#ifndef POLYAPM_OPTABLE_H
#define POLYAPM_OPTABLE_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    OPT_FLAG,       /* int at `off` set to 1 */
    OPT_STR,        /* const char * at `off` */
    OPT_LONG,       /* long at `off`, an integer in lo..hi */
    OPT_BINDING,    /* name=integer appended to the ir_binding array at `off`, its int count at
                       `count`; at most hi of them */
    OPT_FN,         /* set(args, value); -1 rejects the value */
} opt_kind;

enum {
    OPT_REQUIRED = 1 << 0,   /* the command needs it: the synopsis shows it without [] */
    OPT_REPEAT = 1 << 1,     /* may be given again: "[-D name=value]..." */
};

typedef struct cli_opt {
    const char *name;        /* the spelling in the synopsis: "--jobs", "-D"; NULL ends a table */
    const char *alias;       /* another spelling ("-j"), or NULL */
    opt_kind kind;
    const char *value;       /* the value's name ("J", "name=value"); NULL for OPT_FLAG */
    const char *help;        /* one line for `polyapm NAME --help` */
    size_t off;              /* where the value goes in the command's argument struct */
    size_t count;            /* OPT_BINDING: where the int count goes */
    long lo, hi;             /* OPT_LONG: the range; OPT_BINDING: hi is the most */
    unsigned cmds;           /* the specs (their `bit`) that accept it; 0: all */
    unsigned flags;          /* OPT_REQUIRED, OPT_REPEAT */
    int (*set)(void *args, char *value);   /* OPT_FN */
} cli_opt;

typedef struct cli_spec {
    const char *name;        /* the command: `polyapm NAME` */
    const char *args;        /* its positional arguments for the synopsis ("NODE [B]"), or "" */
    const char *summary;     /* one line; NULL for the second form of a command */
    const cli_opt *opts;     /* the table, ended by a row with a NULL name */
    unsigned bit;            /* its bit in the rows' `cmds` */
    const char *form;        /* what this form applies to ("program files"), or NULL */
    const struct cli_spec *other;   /* the command's other form, or NULL */
    int (*run)(int argc, char **argv);
} cli_spec;

/* Parses argv[1..argc-1] of `spec` into `args` (the caller set its defaults); the positional
 * words end up in argv[1..*npos].  Returns 0, or CLI_USAGE after reporting. */
int optable_parse(const cli_spec *spec, int argc, char **argv, void *args, int *npos);

/* The first positional word (not an option, not an option's value), without parsing; NULL if
 * none.  The options of both forms are known. */
const char *optable_first_positional(const cli_spec *spec, int argc, char **argv);

/* 1 when `--help` is among the options of argv[1..] (not an option's value, not after "--"). */
int optable_wants_help(const cli_spec *spec, int argc, char **argv);

/* "polyapm NAME ARGS [options]", wrapped at about 100 columns (continuation lines indented);
 * `lead` is printed before the first line, spaces of its width before the others. */
void optable_synopsis(FILE *out, const cli_spec *spec, const char *lead);

/* `polyapm NAME --help`: the synopsis of each form, the summary, the options with their help. */
void optable_help(FILE *out, const cli_spec *spec);

#endif
