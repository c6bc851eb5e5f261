#!/usr/bin/env bash
# Every command's options, from its option table (tui/cli/optable.h): `polyapm COMMAND --help`
# lists exactly the options the command accepted before the tables (below, by hand), each one is
# in the command's synopsis (its usage lines, `polyapm --help`, the manual's SYNOPSIS), the parser
# knows each of them (a value option without its value: "needs"; a flag: the next, unknown option
# is the one reported), and an unknown option is a usage error (exit 2) naming it.
source "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
MAN=$ROOT/man/polyapm.1

declare -A OPTS=(
    [check]="-q"
    [fmt]="-w --check"
    [sim]="-D --machine --model --against --set --trace --force -w --workspace --json --all-planes"
    [deps]="-D --fixed --json"
    [transforms]="--machine --json"
    [apply]="-D -o --why -q"
    [export]="-o -D --exchange"
    [run]="-np --smpi --host-speed --repeat -D --exchange --json"
    [import]="-I -D --function --region --param --init --assume --output -o"
    [init]="-o -I -D --function --region --param --init --assume --output --label --why --json"
    [add]="--label --why -w --workspace --json"
    [tree]="-w --workspace --json"
    [show]="--program -w --workspace --json"
    [log]="-w --workspace --json"
    [diff]="-U -w --workspace"
    [mark]="-w --workspace"
    [note]="-w --workspace"
    [label]="-w --workspace"
    [rm]="--yes -y --dry-run -n -w --workspace --json"
    [fsck]="--repair -w --workspace --json"
    [replay]="--onto -I -D --function --output --json -w --workspace"
    [script]="-o -w --workspace"
    [platform]="-n --latency --bandwidth --speed --backbone --overhead --factors -o --profile --tick"
    [calibrate]="-np --name --quick --raw --no-store -w --json"
    [measure]="-np --runner --platform --host -D -w --workspace --json"
    [sweep]="--machine --model -D --plot -w --workspace --json"
    [compare]="--machine --model -D --plot -w --workspace --json"
    [explore]="--depth --budget --jobs -j --machine --model -D --top --at --rank-at --rank-top --progress -q --quiet -w --workspace --json"
)

"$POLYAPM" --help >"$TMP/help" 2>&1
expect_eq "polyapm --help exits 0" "$?" 0
# the commands, from the help's list
cmds=$(sed -n '/^commands:/,/^$/p' "$TMP/help" | awk 'NF > 1 {print $1}')
expect_eq "polyapm --help lists every command of this test" "$(echo $cmds | tr ' ' '\n' | sort | tr '\n' ' ')" \
    "$(printf '%s\n' "${!OPTS[@]}" | sort | tr '\n' ' ')"

# The synopsis lines of one command in a text: from "polyapm CMD " to the next line that does not
# continue it (continuation lines start with more spaces).
synopsis_of() { # TEXT-FILE CMD
    awk -v cmd="$2" '
        $0 ~ "polyapm " cmd "( |$)" { on = 1; print; next }
        on && /^        / && $1 !~ /^polyapm$/ { print; next }
        { on = 0 }' "$1"
}
# The manual's SYNOPSIS blocks (separated by .br) of one command, as plain words.
man_synopsis_of() { # CMD
    sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$MAN" |
        awk -v cmd="$1" '
            /^\.br/ { if (hit) print block; block = ""; hit = 0; next }
            { line = $0; sub(/^\.[A-Z]+ ?/, "", line); block = block " " line
              if ($0 ~ "^\\.B (polyapm )?" cmd "$") hit = 1 }
            END { if (hit) print block }' | tr -d '"'
}
has_word() { # TEXT WORD: WORD as an option word of a synopsis ("[-D", " -o ", "[--json]")
    printf '%s\n' "$1" | grep -Eq -- "(^|[[ (|])$2([] =|.)]|$)"
}

for c in $cmds; do
    "$POLYAPM" "$c" --help >"$TMP/h.$c" 2>"$TMP/e.$c"; rc=$?
    expect_eq "$c --help: exit 0, nothing on stderr" "$rc:$(cat "$TMP/e.$c")" "0:"
    "$POLYAPM" help "$c" >"$TMP/h2.$c" 2>&1
    if cmp -s "$TMP/h.$c" "$TMP/h2.$c"; then ok "polyapm help $c is $c --help"
    else fail "polyapm help $c is $c --help" "$(diff "$TMP/h.$c" "$TMP/h2.$c" | head -3)"; fi
    # the option lines: "  -j, --jobs J   help..."; their spellings, and whether they take a value
    sed -n '/^options:/,$p' "$TMP/h.$c" | grep -E '^  -' | sed -E 's/^  //; s/  .*//' >"$TMP/labels.$c"
    listed=$(sed -E 's/, / /; s/ [^-].*//; s/ ([^-][^ ]*)$//' "$TMP/labels.$c" | tr ' ' '\n' | grep -v '^--help$' |
        grep . | sort | tr '\n' ' ')
    want=$(printf '%s\n' ${OPTS[$c]} | sort | tr '\n' ' ')
    expect_eq "$c --help lists exactly its options" "$listed" "$want"
    usage=$(sed -n '1,/^$/p' "$TMP/h.$c")
    main=$(synopsis_of "$TMP/help" "$c")
    mansyn=$(man_synopsis_of "$c")
    [ -n "$main" ] || fail "$c in polyapm --help's synopsis" "no line 'polyapm $c'"
    [ -n "$mansyn" ] || fail "$c in the manual's SYNOPSIS" "no block for $c"
    while IFS= read -r label; do
        spellings=$(printf '%s\n' "$label" | sed -E 's/, / /' | tr ' ' '\n' | grep -- '^-')
        value=$(printf '%s\n' "$label" | sed -E 's/^(-[^ ,]*)(, -[^ ]*)?//; s/^ //')
        [ "$label" = "--help" ] && continue
        found=""; found_main=""; found_man=""
        for s in $spellings; do
            has_word "$usage" "$s" && found=$s
            has_word "$main" "$s" && found_main=$s
            has_word "$mansyn" "$s" && found_man=$s
        done
        [ -n "$found" ] && ok "$c: $label in its usage" || fail "$c: $label in its usage" "$usage"
        [ -n "$found_main" ] && ok "$c: $label in polyapm --help" || fail "$c: $label in polyapm --help" "$main"
        [ -n "$found_man" ] && ok "$c: $label in the manual's SYNOPSIS" ||
            fail "$c: $label in the manual's SYNOPSIS" "$mansyn"
        # the parser knows it: without its value it says so; a flag lets the next word be the
        # unknown option (sim: an option of the other form "applies to ... only")
        for s in $spellings; do
            if [ -n "$value" ]; then
                "$POLYAPM" "$c" "$s" >/dev/null 2>"$TMP/err"; rc=$?
                expect_match "$c $s without its value: exit 2, says so" "$rc:$(head -1 "$TMP/err")" \
                    "^2:polyapm $c: ($s needs |$s applies to )"
            else
                "$POLYAPM" "$c" "$s" --no-such-option >/dev/null 2>"$TMP/err"; rc=$?
                expect_match "$c $s is known" "$rc:$(head -1 "$TMP/err")" \
                    "^2:polyapm $c: (unknown option '--no-such-option'|$s applies to )"
            fi
        done
    done <"$TMP/labels.$c"
    # an unknown option: usage, named, and the synopsis follows
    "$POLYAPM" "$c" --no-such-option >/dev/null 2>"$TMP/err"; rc=$?
    expect_eq "$c --no-such-option: exit 2" "$rc" 2
    expect_match "$c --no-such-option: named" "$(head -1 "$TMP/err")" "^polyapm $c: unknown option '--no-such-option'$"
    expect_match "$c --no-such-option: the synopsis follows" "$(sed -n 2p "$TMP/err")" "^usage: polyapm $c"
done

# --help is an option like the others: not when it is another option's value, nor after --
export POLYAPM_WORKSPACE=$TMP/none.pdg
"$POLYAPM" apply x.apm stm --why --help >/dev/null 2>"$TMP/err"; rc=$?
expect_match "apply --why --help: --help is the reason, not a request for help" "$rc:$(cat "$TMP/err")" "^1:"
"$POLYAPM" note 1 -- --help >"$TMP/out" 2>&1; rc=$?
expect_match "note 1 -- --help: the note's text" "$rc:$(cat "$TMP/out")" "^1:.*none.pdg"
unset POLYAPM_WORKSPACE
# attached values: --name=value, -Dname=value
"$POLYAPM" sim "$ROOT/examples/findiff.apm" -Dn=8 --machine=scali2004 --json >"$TMP/out" 2>&1
expect_eq "sim -Dn=8 --machine=scali2004" "$(json "j['params']['n'], j['machine']" <"$TMP/out")" "8 scali2004"
finish
