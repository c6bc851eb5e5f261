/*
 * t.h — the tiny unit-test harness: each check prints "ok NAME" or "FAIL NAME: why", and
 * t_done() returns the exit status (non-zero if anything failed).  tests/run.sh counts the lines.
 */
#ifndef POLYAPM_T_H
#define POLYAPM_T_H
#include <stdio.h>
#include <string.h>
#include <math.h>

static int t_failed;

#define T_CHECK(name, cond, ...) do {                                        \
        if (cond) printf("ok %s\n", (name));                                 \
        else { printf("FAIL %s: ", (name)); printf(__VA_ARGS__);             \
               printf(" (%s:%d)\n", __FILE__, __LINE__); t_failed = 1; }     \
    } while (0)

#define T_EQ_INT(name, got, want) do { long long g_ = (long long)(got), w_ = (long long)(want); \
        T_CHECK(name, g_ == w_, "got %lld, want %lld", g_, w_); } while (0)

#define T_NEAR(name, got, want, tol) do { double g_ = (got), w_ = (want);                 \
        T_CHECK(name, fabs(g_ - w_) <= (tol), "got %.10g, want %.10g (tol %g)", g_, w_,    \
                (double)(tol)); } while (0)

#define T_EQ_STR(name, got, want) do { const char *g_ = (got), *w_ = (want);              \
        T_CHECK(name, g_ && w_ && strcmp(g_, w_) == 0, "got \"%s\", want \"%s\"",          \
                g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } while (0)

static inline int t_done(void) { return t_failed ? 1 : 0; }
#endif
