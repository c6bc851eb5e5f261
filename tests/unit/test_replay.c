/*
 * test_replay.c — an edge's stored parameter text split back into the arguments that made it
 * (replay_split_params): values with spaces stay one argument, a comparison (==) inside a value
 * starts none, an empty text has none.
 */
#include <stdlib.h>

#include "replay.h"
#include "t.h"

static void check(const char *params, int want_n, const char *const *want)
{
    char **argv = NULL;
    int n = replay_split_params(params, &argv);
    char name[160];
    snprintf(name, sizeof name, "split '%s': %d arguments", params ? params : "(null)", want_n);
    T_EQ_INT(name, n, want_n);
    for (int i = 0; i < n && i < want_n; i++) {
        snprintf(name, sizeof name, "split '%s': argument %d", params ? params : "(null)", i);
        T_EQ_STR(name, argv[i], want[i]);
    }
    if (n >= 0) T_CHECK("the argument vector ends with NULL", argv[n] == NULL, "argv[%d] is not NULL", n);
    free(argv);
}

int main(void)
{
    check(NULL, 0, NULL);
    check("", 0, NULL);
    check("kind=blocked procs=2", 2, (const char *const[]){"kind=blocked", "procs=2"});
    check("theta=t + 1 sigma=i", 2, (const char *const[]){"theta=t + 1", "sigma=i"});
    check("theta.S1=2 * t sigma.S1=i - j", 2, (const char *const[]){"theta.S1=2 * t", "sigma.S1=i - j"});
    check("when=i == 0 k=1", 2, (const char *const[]){"when=i == 0", "k=1"});
    check("auto=1", 1, (const char *const[]){"auto=1"});
    check("a=1  b=2", 2, (const char *const[]){"a=1", "b=2"});
    check("x=3 2=y", 1, (const char *const[]){"x=3 2=y"});
    return t_done();
}
