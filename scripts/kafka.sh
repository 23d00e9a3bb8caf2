#!/usr/bin/env bash
# Sluice's test and benchmark broker: Apache Kafka 4.x, one node in KRaft mode (broker and controller in one
# process), listening on 127.0.0.1 only. The broker's jars come from Maven Central (scripts/kafka/pom.xml)
# into .cache/kafka/<version>/libs; its data, configuration, pid and log live in .cache/kafka/run.
#
#   scripts/kafka.sh fetch          download the broker's jars (a no-op once they are there)
#   scripts/kafka.sh start          fetch if needed, format the log dir if absent, start, wait until it answers
#   scripts/kafka.sh stop [--wipe]  stop it (SIGTERM, then SIGKILL after KAFKA_STOP_TIMEOUT s); --wipe deletes its data
#   scripts/kafka.sh status         exit 0 when the broker runs and answers a metadata request
#   scripts/kafka.sh pid            print the broker's pid (exit 1 when it does not run)
#   scripts/kafka.sh logs [-f] [N]  the last N lines of the broker's log (default 100), -f to follow
#   scripts/kafka.sh bootstrap      print the broker's address (host:port)
#
# Faults, for tests of what clients do when the broker fails (each prints the pid it signalled):
#   scripts/kafka.sh kill           SIGKILL: the broker dies at once, without any cleanup; its data stays,
#                                   so `start` brings it back with every topic (after log recovery)
#   scripts/kafka.sh freeze         SIGSTOP: the process stays, its sockets stay open, nothing answers
#   scripts/kafka.sh thaw           SIGCONT: a frozen broker carries on where it stopped
# `stop` thaws a frozen broker first, so that it can act on SIGTERM.
#
# Secure listeners, for the tests of kafka.security.protocol (all on 127.0.0.1; each start writes them,
# name and address per line, to .cache/kafka/run/listeners, and their TLS material, made by
# scripts/kafka/make-tls.sh, to .cache/kafka/run/tls):
#   SSL             KAFKA_PORT+2  TLS, certificate for 127.0.0.1 and localhost signed by tls/ca.pem
#   MTLS            KAFKA_PORT+3  the same, and the client must present a certificate signed by tls/ca.pem
#   SASL_SSL        KAFKA_PORT+4  TLS and SASL: PLAIN, SCRAM-SHA-256/512 (user alice, password alice-secret)
#                                 and OAUTHBEARER (unsecured JWS tokens, Kafka's default validator)
#   SASL_PLAINTEXT  KAFKA_PORT+5  SASL as above, without TLS
#   BADHOST         KAFKA_PORT+6  TLS with a certificate for another host name (hostname verification fails)
#   EXPIRED         KAFKA_PORT+7  TLS with a certificate that expired yesterday
#
# Environment: KAFKA_PORT (default 19092; the controller listens on KAFKA_PORT+1 unless
# KAFKA_CONTROLLER_PORT is set), KAFKA_VERSION (overrides the pom's kafka.version), KAFKA_HEAP_OPTS
# (default "-Xms256m -Xmx1g"), KAFKA_START_TIMEOUT (s, default 60), KAFKA_STOP_TIMEOUT (s, default 30).
# Maven uses its usual local repository (~/.m2 unless its settings say otherwise).
# To run the tests against another broker instead, set KAFKA_BOOTSTRAP_SERVERS=host:port.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
POM="$ROOT/scripts/kafka/pom.xml"
PROBE="$ROOT/scripts/kafka/probe.mjs"
CACHE="$ROOT/.cache/kafka"
RUN="$CACHE/run"
DATA="$RUN/data"
PID_FILE="$RUN/kafka.pid"
LOG_FILE="$RUN/kafka.log"
PROPS="$RUN/server.properties"
LOG4J="$RUN/log4j2.properties"
ADDRESS_FILE="$RUN/bootstrap"
VERSION_FILE="$RUN/version"
TLS="$RUN/tls"
LISTENERS_FILE="$RUN/listeners"

VERSION=${KAFKA_VERSION:-$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$POM")}
LIBS="$CACHE/$VERSION/libs"
STAMP="$CACHE/$VERSION/fetched"
PORT=${KAFKA_PORT:-19092}
CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-$((PORT + 1))}
HOST=127.0.0.1
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

log() { printf 'kafka: %s\n' "$*"; }
die() { printf 'kafka: %s\n' "$*" >&2; exit 1; }

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

missing_tool() {
  cat >&2 <<EOF
kafka: $1 not found. Sluice's test broker is Apache Kafka $VERSION, fetched with Maven and run on Java 17+.
  Debian/Ubuntu:  apt-get install openjdk-17-jre-headless maven
  Or use another broker:  KAFKA_BOOTSTRAP_SERVERS=host:port npm test
EOF
  exit 1
}

need_java() {
  command -v "$JAVA" >/dev/null 2>&1 || missing_tool "java"
  local major
  major=$("$JAVA" -version 2>&1 | sed -n -E '1s/.*version "([0-9]+).*/\1/p')
  if [ -z "$major" ] || [ "$major" -lt 17 ]; then
    missing_tool "Java 17 or newer (found: $("$JAVA" -version 2>&1 | head -n 1))"
  fi
}

# What the cached jars were fetched from: the version and the pom's checksum.
fetch_key() { printf '%s %s\n' "$VERSION" "$(cksum <"$POM")"; }
fetched() { [ -d "$LIBS" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(fetch_key)" ]; }

cmd_fetch() {
  if fetched; then
    log "Kafka $VERSION already fetched: $(jar_summary)"
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || missing_tool "mvn (Maven)"
  need_java
  log "fetching Kafka $VERSION and its runtime dependencies from Maven Central with Maven"
  local start tmp
  start=$(now_ms)
  mkdir -p "$CACHE/$VERSION"
  tmp=$(mktemp -d "$CACHE/$VERSION/libs.XXXXXX")
  # Maven's own output goes to a file: with -q it is only colour codes, unless something fails.
  if ! mvn -q -B -f "$POM" -Dkafka.version="$VERSION" \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" >"$tmp.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$tmp.log" >&2
    rm -rf "$tmp" "$tmp.log"
    rmdir "$CACHE/$VERSION" 2>/dev/null || true
    die "Maven could not fetch org.apache.kafka:kafka_2.13:$VERSION (its output above)"
  fi
  rm -f "$tmp.log"
  rm -rf "$LIBS"
  mv "$tmp" "$LIBS"
  fetch_key >"$STAMP"
  log "fetched Kafka $VERSION in $(since "$start"): $(jar_summary)"
}

jar_summary() {
  local count size
  count=$(find "$LIBS" -name '*.jar' | wc -l | tr -d ' ')
  size=$(du -sh "$LIBS" | cut -f1)
  echo "$count jars, $size in ${LIBS#"$ROOT"/}"
}

# The broker's pid when it is running, else nothing (a stale pid file is removed).
broker_pid() {
  [ -f "$PID_FILE" ] || return 0
  local pid
  pid=$(cat "$PID_FILE")
  if [ -n "$pid" ] && is_broker "$pid"; then echo "$pid"; else rm -f "$PID_FILE"; fi
}

# True when pid is a live (not zombie) Kafka broker process.
is_broker() {
  local pid=$1
  kill -0 "$pid" 2>/dev/null || return 1
  if [ -r "/proc/$pid/stat" ]; then
    [ "$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f1)" != Z ] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'kafka\.Kafka'
  else
    ps -p "$pid" -o stat=,args= | grep -v '^ *Z' | grep -q 'kafka\.Kafka'
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

# True when pid is stopped by a signal (state T), as `freeze` leaves it.
is_frozen() {
  if [ -r "/proc/$1/stat" ]; then
    [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" = T ]
  else
    ps -p "$1" -o stat= | grep -q '^ *T'
  fi
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

running_address() { if [ -f "$ADDRESS_FILE" ]; then cat "$ADDRESS_FILE"; else echo "$HOST:$PORT"; fi; }

# Exit 0 when the broker at $1 answers a metadata request (kafkajs describeCluster); prints the cluster.
probe() { node "$PROBE" "$1"; }

with_lock() {
  mkdir -p "$RUN"
  # fd 9 holds the lock; the broker must not inherit it (see the 9>&- below).
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$RUN/.lock"
    flock -w 120 9 || die "another scripts/kafka.sh holds $RUN/.lock"
  fi
}

write_config() {
  mkdir -p "$DATA"
  cat >"$PROPS" <<EOF
# Written by scripts/kafka.sh at each start: a single-node KRaft broker for Sluice's tests and benchmarks.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$CONTROLLER_PORT
listeners=PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CONTROLLER_PORT,$(secure_listeners)
advertised.listeners=PLAINTEXT://$HOST:$PORT,$(secure_listeners)
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_SSL:SASL_SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,BADHOST:SSL,EXPIRED:SSL
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
log.dirs=$DATA

# The secure listeners, for the tests of kafka.security.protocol (TLS material: scripts/kafka/make-tls.sh).
ssl.keystore.type=PEM
ssl.keystore.location=$TLS/broker.keystore.pem
ssl.truststore.type=PEM
ssl.truststore.location=$TLS/ca.pem
listener.name.mtls.ssl.client.auth=required
listener.name.badhost.ssl.keystore.location=$TLS/wronghost.keystore.pem
listener.name.expired.ssl.keystore.location=$TLS/expired.keystore.pem
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER
$(sasl_jaas sasl_ssl)
$(sasl_jaas sasl_plaintext)

# One node: every internal topic has one replica.
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# Fewer partitions than the default 50 make the first group and the first transaction start faster.
offsets.topic.num.partitions=8
transaction.state.log.num.partitions=8

# Tests create and delete their topics themselves; groups rebalance at once.
num.partitions=1
auto.create.topics.enable=false
delete.topic.enable=true
group.initial.rebalance.delay.ms=0

# Retention is checked every second so that retention tests (data loss, failOnDataLoss) run quickly.
log.retention.check.interval.ms=1000
log.initial.task.delay.ms=1000
log.segment.delete.delay.ms=1000
# The log cleaner wakes every half second so that compacted-topic tests see compaction quickly.
log.cleaner.backoff.ms=500
EOF
  cat >"$LOG4J" <<'EOF'
status = warn
appender.out.type = Console
appender.out.name = STDOUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = STDOUT
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.state.name = state.change.logger
logger.state.level = WARN
EOF
}

# The secure listeners: name, port. The tests find them in $LISTENERS_FILE (name host:port per line).
SECURE_LISTENERS=(SSL:$((PORT + 2)) MTLS:$((PORT + 3)) SASL_SSL:$((PORT + 4)) SASL_PLAINTEXT:$((PORT + 5)) BADHOST:$((PORT + 6)) EXPIRED:$((PORT + 7)))
secure_listeners() {
  local l out=()
  for l in "${SECURE_LISTENERS[@]}"; do out+=("${l%%:*}://$HOST:${l##*:}"); done
  (IFS=,; echo "${out[*]}")
}
write_listeners_file() {
  local l
  { echo "PLAINTEXT $HOST:$PORT"; for l in "${SECURE_LISTENERS[@]}"; do echo "${l%%:*} $HOST:${l##*:}"; done; } >"$LISTENERS_FILE"
}

# The SASL users of the SASL listeners: PLAIN's in its JAAS line, SCRAM's in the cluster metadata (add_scram_users).
SASL_USER=alice
SASL_PASSWORD=alice-secret
sasl_jaas() {
  local prefix="listener.name.$1"
  echo "$prefix.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$SASL_USER=\"$SASL_PASSWORD\";"
  echo "$prefix.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
  echo "$prefix.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
  # Unsecured JWS tokens (alg none), Kafka's default validator without a JWKS endpoint: tests bring a token callback.
  echo "$prefix.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"broker\";"
}

# SCRAM credentials live in the cluster's metadata: added once per data dir, through the PLAINTEXT listener.
add_scram_users() {
  [ -f "$DATA/.scram-users" ] && return 0
  local mechanism
  # One mechanism per request: the broker refuses two changes of one user's credentials in one.
  for mechanism in SCRAM-SHA-256 SCRAM-SHA-512; do
    "$JAVA" -Xmx256m -cp "$LIBS/*" -Dlog4j2.configurationFile="$LOG4J" kafka.admin.ConfigCommand \
      --bootstrap-server "$HOST:$PORT" --alter --entity-type users --entity-name "$SASL_USER" \
      --add-config "$mechanism=[iterations=4096,password=$SASL_PASSWORD]" \
      >>"$LOG_FILE" 2>&1 9>&- || { tail -n 20 "$LOG_FILE" >&2; die "adding the $mechanism user $SASL_USER failed"; }
  done
  touch "$DATA/.scram-users"
}

format_if_absent() {
  [ -f "$DATA/meta.properties" ] && return 0
  local id
  # A Kafka Uuid: 16 random bytes, base64url without padding; one starting with '-' would read as an option.
  while id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n'); [ "${id:0:1}" = - ]; do :; done
  log "formatting $DATA (cluster id $id)"
  "$JAVA" -Xmx256m -cp "$LIBS/*" -Dlog4j2.configurationFile="$LOG4J" \
    kafka.tools.StorageTool format -t "$id" -c "$PROPS" >>"$LOG_FILE" 2>&1 9>&- \
    || { tail -n 30 "$LOG_FILE" >&2; die "formatting $DATA failed"; }
}

# Wait until the broker (pid $1) answers at $2, or fail with its log's tail.
wait_ready() {
  local pid=$1 address=$2 start deadline
  start=$(now_ms)
  deadline=$((start + ${KAFKA_START_TIMEOUT:-60} * 1000))
  while :; do
    # Right after the fork the child is still nohup (its command line not yet the broker's): only a process
    # that is gone, or a zombie, has exited.
    if ! is_alive "$pid"; then
      rm -f "$PID_FILE"
      tail -n 40 "$LOG_FILE" >&2
      die "the broker exited during start-up (log above, all of it in ${LOG_FILE#"$ROOT"/})"
    fi
    if port_open "${address##*:}"; then
      local info
      if info=$(probe "$address" 2>&1); then
        READY_INFO=$info
        return 0
      elif [ $? -eq 2 ]; then
        die "cannot run $PROBE: ${info:-is node_modules installed (npm ci)?}"
      fi
    fi
    if [ "$(now_ms)" -ge "$deadline" ]; then
      tail -n 40 "$LOG_FILE" >&2
      die "the broker (pid $pid) did not answer at $address within ${KAFKA_START_TIMEOUT:-60} s (log above)"
    fi
    sleep 0.25
  done
}

cmd_start() {
  need_java
  fetched || cmd_fetch
  with_lock
  local pid address start
  pid=$(broker_pid)
  if [ -n "$pid" ]; then
    address=$(running_address)
    wait_ready "$pid" "$address"
    if grep -q "MTLS://" "$PROPS" 2>/dev/null; then
      add_scram_users
      write_listeners_file
    else
      log "the running broker was started without the secure listeners: restart it (stop, then start) for the security tests"
    fi
    log "already running: Kafka $(cat "$VERSION_FILE" 2>/dev/null) at $address (pid $pid), $READY_INFO"
    return 0
  fi
  for p in "$PORT" "$CONTROLLER_PORT" "${SECURE_LISTENERS[@]##*:}"; do
    if port_open "$p"; then
      die "port $HOST:$p is taken by $(port_owner "$p" | grep . || echo "another process"); set KAFKA_PORT, or KAFKA_BOOTSTRAP_SERVERS to use a running broker"
    fi
  done
  start=$(now_ms)
  [ -f "$LOG_FILE" ] && mv -f "$LOG_FILE" "$LOG_FILE.1"
  : >"$LOG_FILE"
  bash "$ROOT/scripts/kafka/make-tls.sh" "$TLS"
  write_config
  format_if_absent
  address="$HOST:$PORT"
  # shellcheck disable=SC2086 # KAFKA_HEAP_OPTS is a list of JVM flags
  nohup "$JAVA" ${KAFKA_HEAP_OPTS:--Xms256m -Xmx1g} -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$LOG4J" -cp "$LIBS/*" kafka.Kafka "$PROPS" \
    >>"$LOG_FILE" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$PID_FILE"
  echo "$address" >"$ADDRESS_FILE"
  echo "$VERSION" >"$VERSION_FILE"
  wait_ready "$pid" "$address"
  add_scram_users
  write_listeners_file
  log "Kafka $VERSION up at $address in $(since "$start") (pid $pid, $READY_INFO); log: ${LOG_FILE#"$ROOT"/}"
}

cmd_stop() {
  local wipe=false
  for arg in "$@"; do
    case $arg in
      --wipe) wipe=true ;;
      *) die "stop: unknown option $arg" ;;
    esac
  done
  with_lock
  local pid start
  pid=$(broker_pid)
  if [ -z "$pid" ]; then
    log "not running"
  else
    start=$(now_ms)
    kill -TERM "$pid" 2>/dev/null || true
    # A stopped (frozen) process keeps SIGTERM pending until it runs again.
    kill -CONT "$pid" 2>/dev/null || true
    local deadline=$((start + ${KAFKA_STOP_TIMEOUT:-30} * 1000))
    while is_broker "$pid" && [ "$(now_ms)" -lt "$deadline" ]; do sleep 0.1; done
    if is_broker "$pid"; then
      kill -KILL "$pid" 2>/dev/null || true
      log "killed pid $pid: it had not stopped ${KAFKA_STOP_TIMEOUT:-30} s after SIGTERM"
    else
      log "stopped pid $pid in $(since "$start")"
    fi
    rm -f "$PID_FILE"
  fi
  if $wipe; then
    rm -rf "$DATA"
    log "removed ${DATA#"$ROOT"/}"
  fi
}

# The process listening on 127.0.0.1:$1, as "pid N: its command line", or nothing (ss or /proc/net/tcp).
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
  local args
  args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-400)
  # A Kafka broker's class path names the checkout whose .cache it was started from.
  local from
  from=$(printf '%s' "$args" | grep -o -- '-cp [^ ]*/\.cache/kafka' | sed 's:^-cp ::; s:/\.cache/kafka$::')
  if [ -n "$from" ]; then echo "pid $pid: the Kafka broker of the checkout $from"; else echo "pid $pid: ${args:-?}"; fi
}

cmd_status() {
  local pid address info owner
  pid=$(broker_pid)
  if [ -z "$pid" ]; then
    owner=$(port_owner "$PORT")
    if [ -n "$owner" ]; then
      log "this checkout's broker is not running, but $HOST:$PORT is taken by $owner; stop that one, or set KAFKA_PORT"
    else
      log "not running"
    fi
    return 1
  fi
  address=$(running_address)
  if is_frozen "$pid"; then
    log "pid $pid is frozen (SIGSTOP); scripts/kafka.sh thaw resumes it"
    return 1
  fi
  if info=$(probe "$address" 2>&1); then
    log "Kafka $(cat "$VERSION_FILE" 2>/dev/null) running at $address (pid $pid), $info"
  else
    log "pid $pid runs but does not answer at $address: $info"
    return 1
  fi
}

cmd_logs() {
  local follow=false lines=100
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

cmd_pid() {
  local pid
  pid=$(broker_pid)
  [ -n "$pid" ] || die "not running"
  echo "$pid"
}

# Sends signal $1 to the running broker and prints its pid; $2 says what it did, for the log line.
signal_broker() {
  local pid
  pid=$(broker_pid)
  [ -n "$pid" ] || die "not running: nothing to $3"
  kill "-$1" "$pid"
  log "$2 pid $pid (SIG$1)" >&2
  echo "$pid"
}

cmd_kill() {
  with_lock
  local pid
  pid=$(signal_broker KILL "killed" kill)
  # Wait until the process is gone (or a zombie), so that a `start` right after it finds the ports
  # free: a dying process loses its command line before it stops running, so is_broker says no early.
  local waited=0
  while kill -0 "$pid" 2>/dev/null && [ "$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]; do
    [ "$waited" -lt 200 ] || die "pid $pid still runs 10 s after SIGKILL"
    sleep 0.05
    waited=$((waited + 1))
  done
  rm -f "$PID_FILE"
  echo "$pid"
}

cmd_bootstrap() {
  if [ -n "$(broker_pid)" ]; then running_address; else echo "$HOST:$PORT"; fi
}

case ${1:-} in
  fetch) cmd_fetch ;;
  start) cmd_start ;;
  stop) shift; cmd_stop "$@" ;;
  status) cmd_status ;;
  pid) cmd_pid ;;
  kill) cmd_kill ;;
  freeze) signal_broker STOP "froze" freeze ;;
  thaw) signal_broker CONT "thawed" thaw ;;
  logs) shift; cmd_logs "$@" ;;
  bootstrap) cmd_bootstrap ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
