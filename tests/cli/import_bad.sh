#!/usr/bin/env bash
# tests/cli/import_bad.sh — C outside the importer's subset, or malformed: each gives a located
# error (FILE:LINE:COL: error: naming the construct and what is supported), exit status 1, no
# crash, and nothing written (-o OUT.apm stays absent).  Each case is a small kernel in
# PolyBench's shape (a kernel with a #pragma scop region, called by main with its sizes) whose
# region (or declarations, or main) holds the construct.
. "$(dirname "$0")/../lib.sh"
n=0

# kernel FILE DECLS REGION [MAIN_EXTRA]: writes a kernel file (A, B: double[N][N], C: int[N],
# x: double[N]; i, j loop variables; n the size)
kernel() {
    cat >"$1" <<EOC
#include <math.h>
#define N 8
struct pt { double x, y; };
double g;
int foo(double v);
static void kernel_bad(int n, double A[N][N], double B[N][N], int C[N], double x[N])
{
  int i, j;
  $2
#pragma scop
  $3
#pragma endscop
}
int main(void)
{
  static double A[N][N], B[N][N], x[N];
  static int C[N];
  $4
  kernel_bad(N, A, B, C, x);
  return 0;
}
EOC
}

# bad NAME REGEX -- IMPORT_ARGS...: the import fails as it should, its message matching REGEX
bad() {
    local name=$1 re=$2 out err rc
    shift 3
    n=$((n + 1))
    out=$TMP/out$n.apm
    "$POLYAPM" import "$@" -o "$out" >"$TMP/stdout" 2>"$TMP/err"
    rc=$?
    err=$(cat "$TMP/err")
    if [ "$rc" -ne 1 ]; then fail "$name" "exit $rc (want 1): $err"; return; fi
    if [ -e "$out" ] || [ -s "$TMP/stdout" ]; then fail "$name" "something was written"; return; fi
    expect_match "$name" "$err" "$re"
}
# region NAME REGEX REGION [DECLS] [MAIN]: a kernel whose region is REGION
region() {
    local f=$TMP/k$((n + 1)).c
    kernel "$f" "${4:-}" "$3" "${5:-}"
    bad "$1" "k$((n + 1))\\.c:[0-9]+:[0-9]+: error: .*$2" -- "$f"
}

region "a while loop" "a while loop; supported: for loops" 'while (x[0] < n) x[0] += 1;'
region "a do loop" "a do loop" 'do { x[0] += 1; } while (x[0] < n);'
region "goto" "goto" 'for (i = 0; i < n; i++) { if (x[i] > 0) goto out; x[i] = 1; } out: ;'
region "return in the region" "return" 'for (i = 0; i < n; i++) x[i] = 1; return;'
region "break" "break" 'for (i = 0; i < n; i++) { if (x[i] > 2) break; x[i] = 1; }'
region "switch" "switch" 'for (i = 0; i < n; i++) switch (C[i]) { case 1: x[i] = 0; }'
region "a call of a function that is not math" "a call of 'foo'; supported calls: sqrt, fabs" \
    'for (i = 0; i < n; i++) x[i] = foo(x[i]);'
region "atan (not in the language)" "a call of 'atan'; supported calls: sqrt, fabs, sin, cos, tan, exp, log, pow" \
    'for (i = 0; i < n; i++) x[i] = atan(x[i]);'
region "fmod (not in the language)" "a call of 'fmod'" 'for (i = 0; i < n; i++) x[i] = fmod(x[i], 2.0);'
region "a call as a statement" "a call as a statement" 'for (i = 0; i < n; i++) foo(x[i]);'
region "a non-affine subscript" "non-affine" 'for (i = 0; i < n; i++) for (j = 0; j < n; j++) A[i][j * j % n] = B[i][j];'
region "a non-affine loop bound" "non-affine loop bound" 'for (i = 0; i < n; i++) for (j = 0; j < i * i; j++) A[i][j % n] = 1;'
region "a loop increment i = i + 1" "a loop increment of another form" 'for (i = 0; i < n; i = i + 1) x[i] = 1;'
region "a loop condition with &&" "a loop condition that does not compare" 'for (i = 0; i < n && x[i] > 0; i++) x[i] = 1;'
region "a for without a condition" "without its first part, condition or increment" 'for (i = 0; ; i++) x[i] = 1;'
region "a loop that goes the wrong way" "opposite ways" 'for (i = 0; i < n; i--) x[i] = 1;'
region "a non-constant step" "not an integer constant" 'for (i = 0; i < n; i += C[0]) x[i] = 1;'
region "++ inside an expression" "the operator '\\+\\+' in an expression" 'for (i = 0; i < n; i++) x[i] = C[i]++;'
region "a shift" "the operator '<<'" 'for (i = 0; i < n; i++) C[i] = C[i] << 1;'
region "a compound assignment <<=" "the assignment operator '<<='" 'for (i = 0; i < n; i++) C[i] <<= 1;'
region "a double stored into an int" "a floating value stored into the integer 'C'" 'for (i = 0; i < n; i++) C[i] = x[i];'
region "a cast of a double to int" "a cast from a floating to an integer type" 'for (i = 0; i < n; i++) C[i] = (int)x[i];'
region "an undeclared name" "undeclared identifier 'gg'" 'for (i = 0; i < n; i++) x[i] = gg;'
region "a struct the region reads" "struct pt; supported: int and double" 'for (i = 0; i < n; i++) x[i] = p.x;' 'struct pt p;' ''
region "a pointer in the region" "'p' is a pointer; supported" 'for (i = 0; i < n; i++) { double *p = x; x[i] = 1; }'
region "an array initialiser in the region" "an initialiser of the array 'z' in the region" \
    'for (i = 0; i < n; i++) { double z[3] = {1, 2, 3}; x[i] = z[i % 3]; }'
region "a table with an element that is not a constant" "an element of the table of 'z' that is not a constant" \
    'for (i = 0; i < n; i++) x[i] = z[i % 3];' 'double z[3] = {1, x[0], 3};'
region "too few subscripts" "'A' has 2 dimensions, used with 1 subscript" 'for (i = 0; i < n; i++) x[i] = A[i] == B[i];'
f=$TMP/nested.c
printf 'static void k(int n, double x[8]) {\n  for (int j = 0; j < 1; j++) {\n#pragma scop\n    x[j] = 1;\n#pragma endscop\n  }\n}\nint main(void) { static double x[8]; k(8, x); return 0; }\n' >"$f"
bad "a #pragma scop inside a loop" "nested\\.c:2:[0-9]+: error: a #pragma scop inside a statement" -- "$f"
region "an init subscript that is an expression of its loop" "a subscript that is an expression of the loop variable 'i'" \
    'for (i = 0; i < n; i++) x[i] = 1;' '' 'for (int i = 0; i < N - 1; i++) x[i + 1] = i;'
region "a recurrence in the init code" "'x' is read at \\[i - 1\\] in a loop nest of the code before the kernel that assigns it at \\[i\\]" \
    'for (i = 0; i < n; i++) x[i] = 1;' '' 'x[0] = 1; for (int i = 1; i < N; i++) x[i] = x[i - 1] * 2;'
region "an init update in a loop that does not index it" "'x' is assigned from itself in a loop whose variable is not a subscript" \
    'for (i = 0; i < n; i++) x[i] = 1;' '' 'for (int i = 0; i < N; i++) x[i] = i; for (int t = 0; t < 3; t++) for (int i = 0; i < N; i++) x[i] = x[i] * 2;'
region "/= on an integer" "/= on an integer" 'for (i = 0; i < n; i++) C[i] /= 2;'

# the file's own errors
f=$TMP/syntax.c
printf 'static void k(int n, double x[8]) {\n#pragma scop\n  for (int i = 0; i < n; i++) x[i] = 1\n#pragma endscop\n}\nint main(void) { static double x[8]; k(8, x); return 0; }\n' >"$f"
bad "a C syntax error" "syntax\\.c:3:[0-9]+: error: C: expected ';'" -- "$f"
f=$TMP/noscop.c
printf 'static void k(int n, double x[8]) { for (int i = 0; i < n; i++) x[i] = 1; }\nint main(void) { static double x[8]; k(8, x); return 0; }\n' >"$f"
printf 'static void k(double x[8]) { x[0] = 1; }\nint main(void) { static double x[8]; k(x); return 0; }\n' >"$TMP/noloop.c"
bad "no #pragma scop, no loop" "noloop\\.c:1:1: error: no #pragma scop \\.\\. #pragma endscop region, and no loop nest" -- "$TMP/noloop.c"
printf 'void k(int n, double (*a)[n]) {\n#pragma scop\n  for (int i = 0; i < n; i++) a[i][0] = 1;\n#pragma endscop\n}\n' >"$TMP/rows.c"
bad "a pointer to rows no call passes an array" "rows\\.c:1:24: error: the number of rows of 'a' \\(a pointer to rows\\) is not known: no call of the kernel passes it an array" -- "$TMP/rows.c" --param n=8
bad "--function of no function" "noscop\\.c:1:1: error: no function 'nothere'" -- "$f" --function nothere
bad "--output of no array" "noscop\\.c: error: --output y: not an array" -- "$f" --function k --output y
f=$TMP/uncalled.c
printf 'static void k(int n, double x[8]) {\n#pragma scop\n  for (int i = 0; i < n; i++) x[i] = 1;\n#pragma endscop\n}\n' >"$f"
bad "a kernel nobody calls" "uncalled\\.c:1:[0-9]+: error: no call of the kernel gives parameter 'n' a value" -- "$f"
f=$TMP/ptr.c
printf 'static void k(int n, double *x) {\n#pragma scop\n  for (int i = 0; i < n; i++) x[i * n + 1] = x[i];\n#pragma endscop\n}\nint main(void) { static double x[64]; k(8, x); return 0; }\n' >"$f"
bad "a pointer indexed with two strides" "ptr\\.c:3:[0-9]+: error: the access of the linearised array 'x' is not written with the strides of its other accesses" -- "$f"
bad "a missing file" "nofile\\.c: error: cannot read the file" -- "$TMP/nofile.c"
printf '#include "nothere.h"\n' >"$TMP/inc.c"

printf '' >"$TMP/empty.c"
bad "an empty file" "empty\\.c:1:1: error: no #pragma scop" -- "$TMP/empty.c"
f=$TMP/rec.c
printf 'static void init(int n, double x[4]) { init(n, x); }\nstatic void k(int n, double x[4]) {\n#pragma scop\nfor (int i = 0; i < n; i++) x[i] = x[i] + 1;\n#pragma endscop\n}\nint main(void) { static double x[4]; init(4, x); k(4, x); return 0; }\n' >"$f"
bad "an init function that recurses" "rec\\.c:1:[0-9]+: error: calls nested more than 16 deep" -- "$f"
f=$TMP/emptyscop.c
printf 'static void k(int n, double x[4]) {\n#pragma scop\n#pragma endscop\n}\nint main(void) { static double x[4]; k(4, x); return 0; }\n' >"$f"
bad "an empty region" "emptyscop\\.c:1:[0-9]+: error: an empty region" -- "$f"
head -c 400 /dev/urandom >"$TMP/garbage.c"
"$POLYAPM" import "$TMP/garbage.c" -o "$TMP/garbage.apm" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 1 ] && [ ! -e "$TMP/garbage.apm" ] && ok "random bytes: exit 1, nothing written" ||
    fail "random bytes" "exit $rc"

# cfile NAME: a file of that name from standard input; its path
cfile() { cat >"$TMP/$1.c"; echo "$TMP/$1.c"; }
f=$(cfile argv <<'EOC'
#include <stdlib.h>
static void k(int n, double x[n]) {
#pragma scop
  for (int i = 0; i < n; i++) x[i] = 1;
#pragma endscop
}
int main(int argc, char **argv) { int n = atoi(argv[1]); double x[n]; k(n, x); return 0; }
EOC
)
bad "a size read when the program runs, without --param" "argv\\.c:7:[0-9]+: error: 'n' is read when the program runs \\(atoi\\); give its value: --param n=VALUE" -- "$f"
f=$(cfile two <<'EOC'
double a[4], b[4];
void f(void) {
#pragma scop
  for (int i = 0; i < 4; i++) a[i] = i;
#pragma endscop
}
void g(void) {
#pragma scop
  for (int i = 0; i < 4; i++) b[i] = a[i];
#pragma endscop
}
int main(void) { f(); g(); return 0; }
EOC
)
bad "several regions, none chosen" "two\\.c:8:1: error: 2 #pragma scop regions \\(lines 3, 8\\); choose one with --region K" -- "$f"
bad "--region past the last" "two\\.c: error: --region 3: no such region \\(the file has 2 regions\\)" -- "$f" --region 3
bad "--region of another form" "two\\.c: error: --region x2: expected K \\(a number from 1\\) or line:L" -- "$f" --region x2
bad "--region line: outside every region" "two\\.c:6:1: error: --region line:6: no #pragma scop region holds that line" -- "$f" --region line:6
bad "--function F and --region of no region in F" "two\\.c: error: --region 2: no such region \\(the file has 1 region in that function\\)" -- "$f" --function g --region 2
f=$(cfile flt <<'EOC'
float a[4];
int main(void) {
#pragma scop
  for (int i = 0; i < 4; i++) a[i] = i;
#pragma endscop
  return 0;
}
EOC
)
bad "float data" "flt\\.c:1:7: error: 'a' is float: the \\.apm language computes in double only.*-D float=double" -- "$f"
region "a float operation" "an operation whose C type is float" 'for (i = 0; i < n; i++) x[i] = i / 3.0f;'
printf 'static double a[4];\n#error stop here\n' >"$TMP/cpperr.c"
bad "the preprocessor's #error, located" "cpperr\\.c:2:2: error: the C preprocessor: stop here" -- "$TMP/cpperr.c"
bad "a missing header, with the preprocessor's message" "inc\\.c:1:10: error: the C preprocessor: 'nothere\\.h' file not found" -- "$TMP/inc.c"
f=$(cfile lin3 <<'EOC'
#include <stdlib.h>
static void k(int n, double *A) {
#pragma scop
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) A[i * n + j] = 1;
#pragma endscop
}
int main(void) { int n = 4; double *A = malloc(n * 3 * sizeof(double)); k(n, A); return 0; }
EOC
)
bad "a linearised array whose allocation has a factor that is no parameter" "lin3\\.c:7:[0-9]+: error: a factor of the allocation of 'A' that is not a parameter" -- "$f"
f=$(cfile lin4 <<'EOC'
double *get(int n);
static void k(int n, double *A) {
#pragma scop
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) A[i * n + j] = 1;
#pragma endscop
}
int main(void) { int n = 4; double *A = get(n); k(n, A); return 0; }
EOC
)
bad "a linearised array allocated elsewhere" "lin4\\.c:4:[0-9]+: error: the allocation of the linearised array 'A' is not in the file" -- "$f"
f=$(cfile formula <<'EOC'
static double f(int i) { double s = 0; for (int k = 0; k < i; k++) s += k; return s; }
static void k(int n, double x[8]) {
#pragma scop
  for (int i = 0; i < n; i++) x[i] = f(i);
#pragma endscop
}
int main(void) { static double x[8]; k(8, x); return 0; }
EOC
)
bad "a function with a loop called in an expression" "formula\\.c:1:[0-9]+: error: a statement of another kind in 'f', called at line 4" -- "$f"
f=$(cfile trunc <<'EOC'
static int f(int i) { return i * 0.5; }
static void k(int n, int x[8]) {
#pragma scop
  for (int i = 0; i < n; i++) x[i] = f(i);
#pragma endscop
}
int main(void) { static int x[8]; k(8, x); return 0; }
EOC
)
bad "a formula function truncating a double" "trunc\\.c:1:[0-9]+: error: 'f' returns a floating value as an integer" -- "$f"
f=$(cfile recur <<'EOC'
static int f(int i) { return f(i - 1) + 1; }
static void k(int n, int x[8]) {
#pragma scop
  for (int i = 0; i < n; i++) x[i] = f(i);
#pragma endscop
}
int main(void) { static int x[8]; k(8, x); return 0; }
EOC
)
bad "a recursive formula function" "recur\\.c:1:[0-9]+: error: calls of 'f' nested more than 16 deep" -- "$f"
region "erand48 (not reproduced)" "a call of 'erand48': of the C library's random numbers the importer reproduces rand\(\), random\(\), drand48\(\) and lrand48\(\)" \
    'for (i = 0; i < n; i++) x[i] = x[i] + 1;' '' 'unsigned short st[3] = {1, 2, 3}; for (int i = 0; i < N; i++) x[i] = erand48(st);'
region "rand() in the region" "a call of 'rand' in the region \(the kernel's values must be the same in every run\)" \
    'for (i = 0; i < n; i++) x[i] = rand() % 10;'

# rnd NAME LINE:COL REGEX INIT: main's init code INIT (lines 5-8) before a region reading x and y
rnd() {
    local f
    f=$(cfile "$1" <<EOC
#include <stdlib.h>
#include <time.h>
#define N 10
static double x[N], y[N], A[N][N];
int main(void) {
$5
#pragma scop
  for (int i = 0; i < N; i++) y[i] = y[i] + x[i] + A[i][i];
#pragma endscop
  return 0;
}
EOC
)
    bad "$3" "$1\\.c:$2: error: $4" -- "$f"
}
rnd seedtime 6:9 "srand(time(NULL)): located, cannot be reproduced, --init suggested" \
    "srand's seed calls 'time': a value the program computes when it runs, so its random numbers cannot be reproduced; .*--init" \
    '  srand(time(NULL));
  for (int i = 0; i < N; i++) { y[i] = 0; x[i] = rand() % 100 / 10.0; }'
rnd seedvar 7:9 "srand of a variable the program reads" "srand's seed is a variable: .*cannot be reproduced" \
    '  unsigned s = (unsigned)clock();
  srand(s);
  for (int i = 0; i < N; i++) { y[i] = 0; x[i] = rand(); }'
rnd triangle 9:44 "rand() in a triangular loop" \
    "a call of 'rand' in a loop whose bounds depend on an enclosing loop's variable \(the loop of 'j' at line 9\)" \
    '  srand(1);
  for (int i = 0; i < N; i++) { y[i] = 0; x[i] = 0; }
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++) A[i][j] = rand() / (double)RAND_MAX;'
rnd twice 7:65 "two rand() calls in one expression" \
    "a second call of a generator in one expression \(the first, 'rand', at line 7\): C leaves the order of the two unspecified" \
    '  srand(1);
  for (int i = 0; i < N; i++) { y[i] = 0; x[i] = rand() % 10 - rand() % 10; }'
rnd datadep 9:26 "rand() under a data-dependent if" \
    "a call of 'rand' under the condition at line 9, whose branches call the generator a different number of times" \
    '  srand(1);
  for (int i = 0; i < N; i++) { y[i] = i * 0.5; x[i] = 0; }
  for (int i = 0; i < N; i++)
    if (y[i] > 2) x[i] = rand() % 10 + y[i];'
rnd ternary 7:59 "rand() in a branch of ?:" "a call of 'rand' in a branch of \?:, which C evaluates only on a condition" \
    '  srand(1);
  for (int i = 0; i < N; i++) { y[i] = 0; x[i] = i % 2 ? rand() : 0; }'
rnd seedloop 8:5 "srand inside a loop" "srand inside a loop, under a condition or in an expression" \
    '  for (int i = 0; i < N; i++) { y[i] = 0; x[i] = 0; }
  for (int i = 0; i < N; i++) {
    srand(i);
    x[i] = rand();
  }'
rnd whileloop 8:27 "rand() in a while loop" "a call of 'rand' in a while loop: the number of its calls cannot be counted" \
    '  int k = 0;
  for (int i = 0; i < N; i++) { y[i] = 0; x[i] = 0; }
  while (k < N) x[k++] = rand();'
rnd scalarloop 8:69 "a variable set from rand() in a loop and read there" \
    "'r' is read in a loop nest of the code before the kernel that assigns it a value changing with each iteration" \
    '  double r;
  srand(1);
  for (int i = 0; i < N; i++) { y[i] = 0; r = rand() / 2.0; x[i] = r; }'
rnd subscript 8:5 "rand() chooses the element" "a subscript drawn from the C library's random numbers" \
    '  srand(1);
  for (int i = 0; i < N; i++) { y[i] = 0; x[i] = 0; }
  x[rand() % N] = 1;'
f=$(cfile rowexpr <<'EOC'
#include <stdlib.h>
#define N 10
static double x[N], A[N][N];
static void row(int r) { for (int j = 0; j < N; j++) A[r][j] = rand() % 10; }
int main(void) {
  for (int i = 0; i < N - 1; i++) row(i + 1);
  for (int i = 0; i < N; i++) x[i] = 1;
#pragma scop
  for (int i = 0; i < N; i++) x[i] = x[i] + A[i][i];
#pragma endscop
  return 0;
}
EOC
)
bad "a row function called with an expression of the loop's variable" \
    "rowexpr\\.c:4:57: error: a subscript that is an expression of a loop's variable passed to a function of the file" -- "$f"

f=$(cfile rnd <<'EOC'
#include <stdlib.h>
#define N 10
static double x[N], y[N];
int main(void) {
  srand(42);
  for (int i = 0; i < N; i++) { y[i] = i * 0.5; x[i] = rand() % 100 / 10.0; }
#pragma scop
  for (int i = 0; i < N; i++) y[i] = y[i] + x[i];
#pragma endscop
  return 0;
}
EOC
)
bad "an --init that is not an expression" "rnd\\.c: error: --init 'x\\[i\\] = i \\+': expected an expression" -- "$f" --init 'x[i] = i +'
bad "an --init naming what the program has not" "rnd\\.c: error: --init 'x\\[i\\] = zz': unknown name 'zz'" -- "$f" --init 'x[i] = zz'

# libclang is opened when C is first parsed: one that does not load, or is not LLVM's, is an error
# that says which and why, and nothing is written; a command that parses no C never opens it
POLYAPM_LIBCLANG=$TMP/nowhere/libclang.so bad "libclang missing" \
    "rnd\\.c: error: importing C needs libclang \\($TMP/nowhere/libclang\\.so\\), which does not load: .*No such file" -- "$f"
notclang=$(ldd "$POLYAPM" | awk '$1 ~ /^libm\.so/ { print $3 }')
POLYAPM_LIBCLANG=$notclang bad "a library that is not libclang" \
    "rnd\\.c: error: libclang \\(.*libm\\.so.*\\) has no clang_[A-Za-z_]+: LLVM 14's is needed" -- "$f"
expect_eq "polyapm itself links no libclang" "$(ldd "$POLYAPM" | grep -c 'libclang\|libLLVM')" 0
[ "$n" -ge 40 ] && ok "$n malformed or out-of-subset inputs checked" || fail "at least 40 inputs" "only $n"
finish
