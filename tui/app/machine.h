/*
 * machine.h — the machine profile a command prices with when none is named: one default, the
 * same in every command (sim, explore, sweep, compare, transforms, export and run's simulations),
 * resolved here and nowhere else.
 *
 * The default is this machine's profile, `local` (what `polyapm calibrate` measures), unless the
 * environment variable POLYAPM_MACHINE names another (tests and the thesis's figures set it to
 * `scali2004`, the thesis's cluster, so that they never calibrate).  When the profile wanted is
 * `local` and none exists yet (in the workspace or the user-level file), this machine is
 * calibrated once, quickly (`polyapm calibrate --quick`, progress on stderr): the profile is
 * stored in the user-level file, and in the workspace when there is one, so that the next command
 * finds it.
 */
#ifndef POLYAPM_MACHINE_H
#define POLYAPM_MACHINE_H

#include "cost.h"
#include "store.h"

/* The environment variable naming the default profile. */
#define MACHINE_ENV "POLYAPM_MACHINE"

/* The default profile's name: $POLYAPM_MACHINE when set and not empty, else "local". */
const char *machine_default_name(void);

/* The profile `name` (NULL: the default), as ops_resolve_machine finds it; `local` calibrated
 * first when it is missing.  `s` (may be NULL) is the workspace the command works in.  0, or -1
 * with a message. */
int machine_resolve(store *s, const char *name, cost_profile *out, diag_list *d);

#endif
