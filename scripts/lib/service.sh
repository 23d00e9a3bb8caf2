# Helpers shared by the scripts that run Sluice's test services on the JVM (scripts/spark-connect.sh,
# scripts/schema-registry.sh): timing, process and port checks, stopping, logs. Sourced, not run.
#
# The sourcing script defines: log and die (its messages, prefixed with its name), missing_tool (what to install),
# ROOT (the checkout), HOST (the address its service listens on), JAVA (the java to run) and LOG_FILE.

# Milliseconds since the epoch (whole seconds where bash has no EPOCHREALTIME).
now_ms() {
  if [ -n "${EPOCHREALTIME:-}" ]; then
    local t=${EPOCHREALTIME/[.,]/}
    echo $((10#${t:0:${#t}-3}))
  else
    echo $(($(date +%s) * 1000))
  fi
}
since() { local ms=$(($(now_ms) - $1)); printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100)); }

need_java() {
  command -v "$JAVA" >/dev/null 2>&1 || missing_tool "java"
  local major
  major=$("$JAVA" -version 2>&1 | sed -n -E '1s/.*version "([0-9]+).*/\1/p')
  if [ -z "$major" ] || [ "$major" -lt 17 ]; then
    missing_tool "Java 17 or newer (found: $("$JAVA" -version 2>&1 | head -n 1))"
  fi
}

# True while pid exists and is not a zombie, whatever it runs.
is_alive() {
  kill -0 "$1" 2>/dev/null || return 1
  if [ -r "/proc/$1/stat" ]; then
    [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != Z ]
  else
    ps -p "$1" -o stat= | grep -qv '^ *Z'
  fi
}

# True when pid is alive and its command line holds the argument $2 (a -Dsluice.<service>.checkout=<root> marker).
is_marked() {
  is_alive "$1" || return 1
  if [ -r "/proc/$1/cmdline" ]; then
    tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "$2 "
  else
    ps -p "$1" -o args= | grep -qF -- "$2 "
  fi
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# The process listening on port $1, as "pid N: its command line", or nothing (ss or /proc/net/tcp). A service
# these scripts started is named by its marker: "pid N: the spark-connect service of the checkout /path".
port_owner() {
  local pid=""
  if command -v ss >/dev/null 2>&1; then
    pid=$(ss -Hltnp "sport = :$1" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -n 1)
  fi
  if [ -z "$pid" ] && [ -r /proc/net/tcp ]; then
    # A listening socket (state 0A) on the port, then the process holding its inode.
    local inode
    inode=$(awk -v port="$(printf '%04X' "$1")" '$4 == "0A" && substr($2, index($2, ":") + 1) == port { print $10; exit }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
    [ -n "$inode" ] && pid=$(find /proc/[0-9]*/fd -lname "socket:\[$inode\]" 2>/dev/null | head -n 1 | cut -d/ -f3)
  fi
  [ -n "$pid" ] || return 0
  local args marker
  args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)
  marker=$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | sed -n 's/^-Dsluice\.\([a-z-]*\)\.checkout=\(.*\)$/\1 \2/p' | head -n 1)
  if [ -n "$marker" ]; then
    echo "pid $pid: the ${marker%% *} service of the checkout ${marker#* }"
  elif [ "${#args}" -gt 300 ]; then
    # A JVM's flags fill the first lines: its program and its main class (or jar and arguments) say more.
    local tail=${args% }
    tail=${tail: -200}
    echo "pid $pid: ${args%% *} ... ${tail#* }"
  else
    echo "pid $pid: ${args:-?}"
  fi
}

# Wait until pid is gone (or a zombie), at most 10 s: a process dying of SIGKILL loses its command line first.
wait_gone() {
  local pid=$1 waited=0
  while is_alive "$pid"; do
    [ "$waited" -lt 200 ] || die "pid $pid still runs 10 s after SIGKILL"
    sleep 0.05
    waited=$((waited + 1))
  done
}

# Stop pid: SIGTERM, then SIGKILL when it still runs $2 seconds later (the setting's name is $3, for the message).
stop_process() {
  local pid=$1 timeout=$2 setting=$3 start deadline
  start=$(now_ms)
  kill -TERM "$pid" 2>/dev/null || true
  # A stopped (frozen) process keeps SIGTERM pending until it runs again.
  kill -CONT "$pid" 2>/dev/null || true
  deadline=$((start + timeout * 1000))
  while is_alive "$pid" && [ "$(now_ms)" -lt "$deadline" ]; do sleep 0.1; done
  if is_alive "$pid"; then
    kill -KILL "$pid" 2>/dev/null || true
    wait_gone "$pid"
    log "killed pid $pid: it had not stopped $timeout s after SIGTERM ($setting)"
  else
    log "stopped pid $pid in $(since "$start")"
  fi
}

# `logs [-f] [N]`: the last N lines of LOG_FILE (default 100), -f to follow.
show_logs() {
  local follow=false lines=100 arg
  for arg in "$@"; do
    case $arg in
      -f) follow=true ;;
      *[!0-9]* | '') die "logs: expected -f or a line count, got '$arg'" ;;
      *) lines=$arg ;;
    esac
  done
  [ -f "$LOG_FILE" ] || die "no log yet (${LOG_FILE#"$ROOT"/})"
  if $follow; then exec tail -n "$lines" -f "$LOG_FILE"; else tail -n "$lines" "$LOG_FILE"; fi
}
