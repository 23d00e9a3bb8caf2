#!/usr/bin/env bash
# Sluice's test schema registry: Apicurio Registry (Apache-2.0) and its Confluent-compatible REST API,
# served under /apis/ccompat/v7: that is the URL a Confluent client is given (`url` prints it). It runs on
# Java 17+, listens on 127.0.0.1 only and keeps its schemas in memory (an in-process H2 database): every
# start begins empty, and it needs no Kafka broker.
#
# Its distribution (a Quarkus application, ready to run) comes from Maven Central with Maven
# (io.apicurio:apicurio-registry-app:<version>:tar.gz:all) and is unpacked into
# .cache/schema-registry/<version>/; its pid, log and temporary files live in .cache/schema-registry/run.
# Once fetched, a start needs no network.
#
#   scripts/schema-registry.sh fetch        download and unpack the registry (a no-op once it is there)
#   scripts/schema-registry.sh start        fetch if needed, start it, wait until it registers a schema
#   scripts/schema-registry.sh stop         stop it (SIGTERM, then SIGKILL after SCHEMA_REGISTRY_STOP_TIMEOUT s)
#   scripts/schema-registry.sh status       exit 0 when the registry runs and answers GET /subjects
#   scripts/schema-registry.sh url          print the URL a Confluent client is given (schema.registry.url)
#   scripts/schema-registry.sh pid          print the registry's pid (exit 1 when it does not run)
#   scripts/schema-registry.sh logs [-f] [N]  the last N lines of its log (default 100), -f to follow
#
# Ready means: GET /subjects answers 200 and a probe subject's Avro schema registers with an id (the
# probe subject is then deleted, soft and then permanently). Schema ids go on counting across deletes,
# so the first schema a test registers does not get id 1.
#
# Environment: SCHEMA_REGISTRY_PORT (default 18081), SCHEMA_REGISTRY_VERSION (the Apicurio Registry
# release, default below; a 3.3 release runs on Java 21+ only, and listens on
# SCHEMA_REGISTRY_MANAGEMENT_PORT too, default SCHEMA_REGISTRY_PORT+1), SCHEMA_REGISTRY_JAVA_HOME (else
# JAVA_HOME, else the java on PATH), SCHEMA_REGISTRY_HEAP_OPTS (default "-Xms64m -Xmx512m"),
# SCHEMA_REGISTRY_START_TIMEOUT (s, default 120), SCHEMA_REGISTRY_STOP_TIMEOUT (s, default 20).
# Maven uses its usual local repository (~/.m2 unless its settings say otherwise).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/service.sh
. "$ROOT/scripts/lib/service.sh"
CACHE="$ROOT/.cache/schema-registry"
RUN="$CACHE/run"
PID_FILE="$RUN/registry.pid"
LOG_FILE="$RUN/registry.log"
PORT_FILE="$RUN/port"
VERSION_FILE="$RUN/version"

# 2.6.13.Final: the newest release that runs on Java 17 and that Maven resolves (3.3.x needs Java 21;
# Maven cannot resolve 3.0.9, whose parent pom it does not find).
VERSION=${SCHEMA_REGISTRY_VERSION:-2.6.13.Final}
ARTIFACT="io.apicurio:apicurio-registry-app:$VERSION:tar.gz:all"
DIST="$CACHE/$VERSION"
STAMP="$DIST/.fetched"
PORT=${SCHEMA_REGISTRY_PORT:-18081}
MANAGEMENT_PORT=${SCHEMA_REGISTRY_MANAGEMENT_PORT:-$((PORT + 1))}
HOST=127.0.0.1
API=/apis/ccompat/v7
PROBE_SUBJECT=sluice-readiness-probe
JAVA_DIR=${SCHEMA_REGISTRY_JAVA_HOME:-${JAVA_HOME:-}}
JAVA="${JAVA_DIR:+$JAVA_DIR/bin/}java"
# Marks the registry's command line, so that a port check can name the checkout whose registry holds the port.
MARK="-Dsluice.schema-registry.checkout=$ROOT"

log() { printf 'schema-registry: %s\n' "$*"; }
die() { printf 'schema-registry: %s\n' "$*" >&2; exit 1; }

missing_tool() {
  cat >&2 <<EOF
schema-registry: $1 not found. Sluice's test schema registry is Apicurio Registry $VERSION, fetched with Maven and run on Java 17+.
  Debian/Ubuntu:  apt-get install openjdk-17-jre-headless maven curl
EOF
  exit 1
}

need_curl() { command -v curl >/dev/null 2>&1 || missing_tool "curl"; }

# The runnable jar of an unpacked distribution: quarkus-run.jar (3.3) or <name>-runner.jar (2.6, 3.0).
app_jar() {
  local dir=$1 jar
  if [ -f "$dir/quarkus-run.jar" ]; then echo "$dir/quarkus-run.jar"; return 0; fi
  for jar in "$dir"/*-runner.jar; do
    [ -f "$jar" ] && { echo "$jar"; return 0; }
  done
  return 1
}

fetched() { [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$ARTIFACT" ] && app_jar "$DIST" >/dev/null; }

dist_summary() { echo "$(du -sh "$DIST" | cut -f1) in ${DIST#"$ROOT"/}"; }

do_fetch() {
  if fetched; then
    log "Apicurio Registry $VERSION already fetched: $(dist_summary)"
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || missing_tool "mvn (Maven)"
  need_java
  log "fetching Apicurio Registry $VERSION ($ARTIFACT) from Maven Central with Maven"
  local start tmp tarball
  start=$(now_ms)
  mkdir -p "$CACHE"
  tmp=$(mktemp -d "$CACHE/fetch.XXXXXX")
  # Maven's own output goes to a file: with -q it is only colour codes, unless something fails.
  if ! mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy -Dartifact="$ARTIFACT" \
      -DoutputDirectory="$tmp/download" >"$tmp/maven.log" 2>&1 9>&-; then
    sed 's/\x1b\[[0-9;]*m//g' "$tmp/maven.log" >&2
    rm -rf "$tmp"
    die "Maven could not fetch $ARTIFACT (its output above)"
  fi
  tarball=$(find "$tmp/download" -name '*.tar.gz' | head -n 1)
  mkdir "$tmp/dist"
  tar -xzf "$tarball" -C "$tmp/dist" || { rm -rf "$tmp"; die "could not unpack $tarball"; }
  app_jar "$tmp/dist" >/dev/null || { rm -rf "$tmp"; die "$ARTIFACT has neither quarkus-run.jar nor a -runner.jar"; }
  echo "$ARTIFACT" >"$tmp/dist/.fetched"
  rm -rf "$DIST"
  mv "$tmp/dist" "$DIST"
  rm -rf "$tmp"
  log "fetched Apicurio Registry $VERSION in $(since "$start"): $(dist_summary)"
}

cmd_fetch() {
  with_lock
  do_fetch
}

with_lock() {
  mkdir -p "$RUN"
  # fd 9 holds the lock; Maven and the registry must not inherit it (see the 9>&- below).
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$RUN/.lock"
    flock -w 600 9 || die "another scripts/schema-registry.sh holds $RUN/.lock"
  fi
}

# The registry's pid when it is running, else nothing (a stale pid file is removed).
registry_pid() {
  [ -f "$PID_FILE" ] || return 0
  local pid
  pid=$(cat "$PID_FILE")
  if [ -n "$pid" ] && is_marked "$pid" "$MARK"; then echo "$pid"; else rm -f "$PID_FILE"; fi
}

running_port() { if [ -f "$PORT_FILE" ]; then cat "$PORT_FILE"; else echo "$PORT"; fi; }
base_url() { echo "http://$HOST:$1$API"; }

# One HTTP request to the registry: method, URL, optional JSON body. Prints "<status> <body>", status 000
# with curl's error when there was no answer.
http() {
  local body=${3:-} args=(-sS -m 10 -X "$1" -w '\n%{http_code}') out err
  [ -n "$body" ] && args+=(-H 'Content-Type: application/vnd.schemaregistry.v1+json' --data "$body")
  err=$(mktemp)
  if out=$(curl "${args[@]}" "$2" 2>"$err"); then
    echo "${out##*$'\n'} ${out%$'\n'*}"
  else
    echo "000 $(head -n 1 "$err")"
  fi
  rm -f "$err"
}

# Exit 0 when the registry at port $1 answers GET /subjects; prints how many subjects it holds.
probe_subjects() {
  local r
  r=$(http GET "$(base_url "$1")/subjects")
  [ "${r%% *}" = 200 ] || { echo "GET /subjects: HTTP ${r}"; return 1; }
  local list=${r#* } n
  n=$(printf '%s' "$list" | tr -cd ',' | wc -c)
  if [ "$list" = "[]" ]; then n=0; else n=$((n + 1)); fi
  echo "$n subject(s)"
}

# Exit 0 when the registry at port $1 is ready: GET /subjects answers 200 and an Avro schema registers
# under the probe subject with an id; the probe subject is then deleted, soft, then permanently.
probe_ready() {
  local base r id
  base=$(base_url "$1")
  probe_subjects "$1" >/dev/null || { probe_subjects "$1"; return 1; }
  r=$(http POST "$base/subjects/$PROBE_SUBJECT/versions" \
    '{"schema":"{\"type\":\"record\",\"name\":\"Probe\",\"namespace\":\"sluice\",\"fields\":[{\"name\":\"ok\",\"type\":\"boolean\"}]}"}')
  id=$(printf '%s' "${r#* }" | sed -n 's/.*"id": *\([0-9][0-9]*\).*/\1/p')
  if [ "${r%% *}" != 200 ] || [ -z "$id" ]; then
    echo "registering a probe schema: HTTP $r"
    return 1
  fi
  r=$(http DELETE "$base/subjects/$PROBE_SUBJECT")
  [ "${r%% *}" = 200 ] || { echo "soft-deleting the probe subject: HTTP $r"; return 1; }
  r=$(http DELETE "$base/subjects/$PROBE_SUBJECT?permanent=true")
  [ "${r%% *}" = 200 ] || { echo "deleting the probe subject permanently: HTTP $r"; return 1; }
  echo "probe schema got id $id"
}

# Wait until the registry (pid $1) is ready at port $2, or fail with its log's tail.
wait_ready() {
  local pid=$1 port=$2 start deadline info=""
  start=$(now_ms)
  deadline=$((start + ${SCHEMA_REGISTRY_START_TIMEOUT:-120} * 1000))
  while :; do
    # Right after the fork the child may still be nohup, not yet java: only a process that is gone,
    # or a zombie, has exited.
    if ! is_alive "$pid"; then
      rm -f "$PID_FILE"
      tail -n 40 "$LOG_FILE" >&2
      if grep -q UnsupportedClassVersionError "$LOG_FILE"; then
        die "Apicurio Registry $VERSION needs a newer Java than $("$JAVA" -version 2>&1 | head -n 1): set SCHEMA_REGISTRY_JAVA_HOME"
      fi
      die "the registry exited during start-up (log above, all of it in ${LOG_FILE#"$ROOT"/})"
    fi
    if ! port_open "$port"; then
      info="nothing listens on $HOST:$port yet"
    elif info=$(probe_ready "$port"); then
      READY_INFO=$info
      return 0
    fi
    if [ "$(now_ms)" -ge "$deadline" ]; then
      tail -n 40 "$LOG_FILE" >&2
      die "the registry (pid $pid) was not ready at $(base_url "$port") within ${SCHEMA_REGISTRY_START_TIMEOUT:-120} s: $info (log above)"
    fi
    sleep 0.25
  done
}

cmd_start() {
  need_curl
  need_java
  with_lock
  do_fetch
  local pid port start jar p ports=("$PORT")
  pid=$(registry_pid)
  if [ -n "$pid" ]; then
    port=$(running_port)
    wait_ready "$pid" "$port"
    log "already running: Apicurio Registry $(cat "$VERSION_FILE" 2>/dev/null) at $(base_url "$port") (pid $pid), $READY_INFO"
    return 0
  fi
  jar=$(app_jar "$DIST")
  # The quarkus-run.jar releases (3.3) also serve health and metrics on a management port.
  [ "${jar##*/}" = quarkus-run.jar ] && ports+=("$MANAGEMENT_PORT")
  for p in "${ports[@]}"; do
    if port_open "$p"; then
      die "port $HOST:$p is taken by $(port_owner "$p" | grep . || echo "another process"); stop that one, or set SCHEMA_REGISTRY_PORT"
    fi
  done
  start=$(now_ms)
  [ -f "$LOG_FILE" ] && mv -f "$LOG_FILE" "$LOG_FILE.1"
  : >"$LOG_FILE"
  rm -rf "$RUN/tmp"
  mkdir -p "$RUN/tmp"
  # C1 only (TieredStopAtLevel=1): on two cores the JIT's C2 threads make start-up 2-3 times slower, and a
  # test registry never runs long enough to gain from them. The working directory is $RUN, for whatever
  # the application writes there (the transaction manager's object store, say).
  # shellcheck disable=SC2086 # SCHEMA_REGISTRY_HEAP_OPTS is a list of JVM flags
  (cd "$RUN" && exec nohup "$JAVA" ${SCHEMA_REGISTRY_HEAP_OPTS:--Xms64m -Xmx512m} -XX:+UseSerialGC \
    -XX:TieredStopAtLevel=1 -Djava.awt.headless=true -Djava.io.tmpdir="$RUN/tmp" "$MARK" \
    -Dquarkus.http.host="$HOST" -Dquarkus.http.port="$PORT" \
    -Dquarkus.management.host="$HOST" -Dquarkus.management.port="$MANAGEMENT_PORT" \
    -Dquarkus.banner.enabled=false \
    -jar "$jar") >>"$LOG_FILE" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$PID_FILE"
  echo "$PORT" >"$PORT_FILE"
  echo "$VERSION" >"$VERSION_FILE"
  wait_ready "$pid" "$PORT"
  log "Apicurio Registry $VERSION up at $(base_url "$PORT") in $(since "$start") (pid $pid, $READY_INFO); log: ${LOG_FILE#"$ROOT"/}"
}

cmd_stop() {
  with_lock
  local pid
  pid=$(registry_pid)
  if [ -z "$pid" ]; then
    log "not running"
    return 0
  fi
  stop_process "$pid" "${SCHEMA_REGISTRY_STOP_TIMEOUT:-20}" SCHEMA_REGISTRY_STOP_TIMEOUT
  rm -f "$PID_FILE"
}

cmd_status() {
  local pid port info owner
  pid=$(registry_pid)
  if [ -z "$pid" ]; then
    owner=$(port_owner "$PORT")
    if [ -n "$owner" ]; then
      log "this checkout's registry is not running, but $HOST:$PORT is taken by $owner; stop that one, or set SCHEMA_REGISTRY_PORT"
    else
      log "not running"
    fi
    return 1
  fi
  need_curl
  port=$(running_port)
  if info=$(probe_subjects "$port"); then
    log "Apicurio Registry $(cat "$VERSION_FILE" 2>/dev/null) running at $(base_url "$port") (pid $pid), $info"
  else
    log "pid $pid runs but does not answer at $(base_url "$port"): $info"
    return 1
  fi
}

cmd_url() {
  if [ -n "$(registry_pid)" ]; then base_url "$(running_port)"; else base_url "$PORT"; fi
}

cmd_pid() {
  local pid
  pid=$(registry_pid)
  [ -n "$pid" ] || die "not running"
  echo "$pid"
}

case ${1:-} in
  fetch) cmd_fetch ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  url) cmd_url ;;
  pid) cmd_pid ;;
  logs) shift; show_logs "$@" ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
