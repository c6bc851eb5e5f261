# tests/tui/tmux-lib.bash — what every TUI suite needs to drive the real binary in tmux: source
# it (after nothing else) from a tests/tui/*.sh file.  It skips the suite when tmux is missing,
# runs tmux on a private socket killed at exit, and gives screen/keys/wait_for/wait_gone/check.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
command -v tmux >/dev/null || { echo "skip $(basename "$0" .sh): no tmux"; exit 0; }
SOCK=polyapm-test-$$
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; t_cleanup' EXIT
# relaunch WIDTH HEIGHT COMMAND: replaces session t with a new one running COMMAND.  The new
# session starts before the old one is killed: killing the server's last session makes it exit,
# and a new-session racing that exit finds "no server running".
relaunch() {
    tm rename-session -t t old 2>/dev/null
    tm new-session -d -x "$1" -y "$2" -s t "$3"
    tm kill-session -t old 2>/dev/null
}
screen() { tm capture-pane -p -t t; }
keys() { tm send-keys -t t "$@"; }
# wait_for REGEX [SECONDS]: polls the screen until REGEX matches
wait_for() {
    local end=$((SECONDS + ${2:-15}))
    while [ $SECONDS -lt $end ]; do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.1
    done
    return 1
}
# wait_gone REGEX [SECONDS]: polls until REGEX no longer matches
wait_gone() {
    local end=$((SECONDS + ${2:-15}))
    while [ $SECONDS -lt $end ]; do
        screen | grep -Eq -- "$1" || return 0
        sleep 0.1
    done
    return 1
}
# check NAME REGEX [SECONDS]: ok when REGEX shows up in time, else FAIL with the screen
check() { if wait_for "$2" "${3:-15}"; then ok "$1"; else fail "$1" "no /$2/ on screen: $(screen | head -c 3000)"; fi; }
