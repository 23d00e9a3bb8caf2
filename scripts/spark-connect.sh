#!/usr/bin/env bash
# Sluice's test Spark Connect server: Apache Spark's SparkConnectServer (the gRPC service Spark Connect clients
# reach at sc://host:port), local[2], with the Kafka source and sink on its class path, listening on 127.0.0.1 only.
# Its jars come from Maven Central (scripts/spark-connect/pom.xml) into .cache/spark-connect/<version>/libs
# (about 200 jars, 343 MB); its pid, log, warehouse and temporary files live in .cache/spark-connect/run. Once
# fetched, a start needs no network.
#
#   scripts/spark-connect.sh fetch            download the server's jars (a no-op once they are there)
#   scripts/spark-connect.sh start            fetch if needed, start it, wait until it answers a query
#   scripts/spark-connect.sh stop             stop it (SIGTERM, then SIGKILL after SPARK_CONNECT_STOP_TIMEOUT s)
#   scripts/spark-connect.sh status           exit 0 when the server runs and answers a query
#   scripts/spark-connect.sh remote           print its Spark Connect URL (sc://host:port), as SPARK_REMOTE takes it
#   scripts/spark-connect.sh pid              print the server's pid (exit 1 when it does not run)
#   scripts/spark-connect.sh logs [-f] [N]    the last N lines of its log (default 100), -f to follow
#   scripts/spark-connect.sh protos [DIR]     extract the protocol's .proto files and NOTICE from the fetched
#                                             spark-connect jar into DIR (default src/remote/proto: a version upgrade
#                                             does this, then `npm run proto:generate`)
#   scripts/spark-connect.sh protos-check     exit 1, with a summary of the differences, when src/remote/proto is
#                                             not what the fetched jar holds
#   scripts/spark-connect.sh generated-check  exit 1 when src/remote/gen is not what buf generates from
#                                             src/remote/proto (`npm run proto:check` runs both checks)
#
# Ready means: the log says "Spark Connect server started at", and a client (scripts/spark-connect/probe.mjs) gets
# the Spark version from AnalyzePlan and one row of `SELECT 1` from ExecutePlan. A cold server spends seconds on
# its first query: the probe spends them at start, rather than the first test.
#
# Environment: SPARK_CONNECT_PORT (default 15002), SPARK_CONNECT_VERSION (overrides the pom's spark.version),
# SPARK_CONNECT_JAVA_HOME (else JAVA_HOME, else the java on PATH), SPARK_CONNECT_HEAP_OPTS (default
# "-Xms256m -Xmx1g"), SPARK_CONNECT_START_TIMEOUT (s, default 180), SPARK_CONNECT_STOP_TIMEOUT (s, default 30),
# SPARK_CONNECT_TOKEN (the server then requires it, spark.connect.authenticate.token; `remote` prints it as the
# URL's ;token= parameter and the probe sends it), SPARK_CONNECT_CONF (more Spark settings, "key=value key=value",
# e.g. the test suite's shorter session timeout and stream duration: src/testing/spark-connect-global-setup.ts).
# Maven uses its usual local repository (~/.m2 unless its settings say otherwise).
# To run the tests against another Spark Connect server instead, set SPARK_REMOTE=sc://host:port.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/service.sh
. "$ROOT/scripts/lib/service.sh"
POM="$ROOT/scripts/spark-connect/pom.xml"
PROBE="$ROOT/scripts/spark-connect/probe.mjs"
PROTO_DIR="$ROOT/src/remote/proto"
GEN_DIR="$ROOT/src/remote/gen"
CACHE="$ROOT/.cache/spark-connect"
RUN="$CACHE/run"
PID_FILE="$RUN/server.pid"
LOG_FILE="$RUN/server.log"
PORT_FILE="$RUN/port"
VERSION_FILE="$RUN/version"

VERSION=${SPARK_CONNECT_VERSION:-$(sed -n 's:.*<spark.version>\(.*\)</spark.version>.*:\1:p' "$POM")}
LIBS="$CACHE/$VERSION/libs"
STAMP="$CACHE/$VERSION/fetched"
SERVER_JAR="$LIBS/spark-connect_2.13-$VERSION.jar"
PORT=${SPARK_CONNECT_PORT:-15002}
HOST=127.0.0.1
JAVA_DIR=${SPARK_CONNECT_JAVA_HOME:-${JAVA_HOME:-}}
JAVA="${JAVA_DIR:+$JAVA_DIR/bin/}java"
MAIN_CLASS=org.apache.spark.sql.connect.service.SparkConnectServer
# The line SparkConnectServer logs once its gRPC port listens.
STARTED_LINE="Spark Connect server started at"
# Marks the server's command line, so that a port check can name the checkout whose server holds the port.
MARK="-Dsluice.spark-connect.checkout=$ROOT"

log() { printf 'spark-connect: %s\n' "$*"; }
die() { printf 'spark-connect: %s\n' "$*" >&2; exit 1; }

missing_tool() {
  cat >&2 <<EOF
spark-connect: $1 not found. Sluice's test Spark Connect server is Apache Spark $VERSION, fetched with Maven and run on Java 17+.
  Debian/Ubuntu:  apt-get install openjdk-17-jre-headless maven unzip
  Or use another server:  SPARK_REMOTE=sc://host:port npm run test:remote
EOF
  exit 1
}

# What the cached jars were fetched from: the version and the pom's checksum.
fetch_key() { printf '%s %s\n' "$VERSION" "$(cksum <"$POM")"; }
fetched() { [ -d "$LIBS" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(fetch_key)" ]; }

jar_summary() {
  local count size
  count=$(find "$LIBS" -name '*.jar' | wc -l | tr -d ' ')
  size=$(du -sh "$LIBS" | cut -f1)
  echo "$count jars, $size in ${LIBS#"$ROOT"/}"
}

do_fetch() {
  if fetched; then
    log "Spark $VERSION already fetched: $(jar_summary)"
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || missing_tool "mvn (Maven)"
  need_java
  log "fetching Spark Connect $VERSION and its runtime dependencies from Maven Central with Maven (about 343 MB)"
  local start tmp
  start=$(now_ms)
  mkdir -p "$CACHE/$VERSION"
  tmp=$(mktemp -d "$CACHE/$VERSION/libs.XXXXXX")
  # Maven's own output goes to a file: with -q it is only colour codes, unless something fails.
  if ! mvn -q -B -f "$POM" -Dspark.version="$VERSION" \
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies -DincludeScope=runtime \
      -DoutputDirectory="$tmp" >"$tmp.log" 2>&1 9>&-; then
    sed 's/\x1b\[[0-9;]*m//g' "$tmp.log" >&2
    rm -rf "$tmp" "$tmp.log"
    rmdir "$CACHE/$VERSION" 2>/dev/null || true
    die "Maven could not fetch org.apache.spark:spark-connect_2.13:$VERSION (its output above)"
  fi
  rm -f "$tmp.log"
  rm -rf "$LIBS"
  mv "$tmp" "$LIBS"
  fetch_key >"$STAMP"
  log "fetched Spark Connect $VERSION in $(since "$start"): $(jar_summary)"
}

with_lock() {
  mkdir -p "$RUN"
  # fd 9 holds the lock (a fetch can take minutes); Maven and the server must not inherit it (the 9>&- below).
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$RUN/.lock"
    flock -w 600 9 || die "another scripts/spark-connect.sh holds $RUN/.lock"
  fi
}

# The server's pid when it is running, else nothing (a stale pid file is removed).
server_pid() {
  [ -f "$PID_FILE" ] || return 0
  local pid
  pid=$(cat "$PID_FILE")
  if [ -n "$pid" ] && is_marked "$pid" "$MARK"; then echo "$pid"; else rm -f "$PID_FILE"; fi
}

running_port() { if [ -f "$PORT_FILE" ]; then cat "$PORT_FILE"; else echo "$PORT"; fi; }
remote_url() { echo "sc://$HOST:$1${SPARK_CONNECT_TOKEN:+/;token=$SPARK_CONNECT_TOKEN}"; }

# -D flags of SPARK_CONNECT_CONF's key=value pairs, and of the token.
extra_settings() {
  local pair
  [ -n "${SPARK_CONNECT_TOKEN:-}" ] && echo "-Dspark.connect.authenticate.token=$SPARK_CONNECT_TOKEN"
  for pair in ${SPARK_CONNECT_CONF:-}; do
    case $pair in
      spark.*=*) echo "-D$pair" ;;
      *) die "SPARK_CONNECT_CONF: \"$pair\" is not spark.key=value" ;;
    esac
  done
}

# Exit 0 when the server at port $1 answers AnalyzePlan and `SELECT 1` within $2 ms; prints its version and
# how long the query took. Exit 2 when the probe itself cannot run.
probe() { node "$PROBE" "$HOST:$1" "$2"; }

# Wait until the server (pid $1) has logged its start and answers at port $2, or fail with its log's tail.
# Sets LISTEN_TIME (when the log said it listens) and READY_INFO (the probe's answer).
wait_ready() {
  local pid=$1 port=$2 start deadline info="" left code
  start=$(now_ms)
  deadline=$((start + ${SPARK_CONNECT_START_TIMEOUT:-180} * 1000))
  LISTEN_TIME=""
  while :; do
    # Right after the fork the child may still be setsid or nohup, not yet java: only a process that is gone,
    # or a zombie, has exited.
    if ! is_alive "$pid"; then
      rm -f "$PID_FILE"
      tail -n 40 "$LOG_FILE" >&2
      die "the server exited during start-up (log above, all of it in ${LOG_FILE#"$ROOT"/})"
    fi
    if ! grep -qF "$STARTED_LINE" "$LOG_FILE"; then
      info="its log does not say \"$STARTED_LINE\" yet"
    else
      [ -n "$LISTEN_TIME" ] || LISTEN_TIME=$(since "$start")
      left=$((deadline - $(now_ms)))
      [ "$left" -gt 1000 ] || left=1000
      # The probe waits for its answers as long as the start may still take: a cold first query takes seconds.
      if info=$(probe "$port" "$left" 2>&1); then
        READY_INFO=$info
        return 0
      else
        code=$?
        [ "$code" -ne 2 ] || die "cannot run ${PROBE#"$ROOT"/}: ${info:-is node_modules installed (npm ci)?}"
      fi
    fi
    if [ "$(now_ms)" -ge "$deadline" ]; then
      tail -n 40 "$LOG_FILE" >&2
      die "the server (pid $pid) did not answer at $(remote_url "$port") within ${SPARK_CONNECT_START_TIMEOUT:-180} s: $info (log above)"
    fi
    sleep 0.25
  done
}

cmd_start() {
  need_java
  with_lock
  do_fetch
  local pid port start
  pid=$(server_pid)
  if [ -n "$pid" ]; then
    port=$(running_port)
    wait_ready "$pid" "$port"
    log "already running: Spark Connect $(cat "$VERSION_FILE" 2>/dev/null) at $(remote_url "$port") (pid $pid), $READY_INFO"
    return 0
  fi
  if port_open "$PORT"; then
    die "port $HOST:$PORT is taken by $(port_owner "$PORT" | grep . || echo "another process"); stop that one, set SPARK_CONNECT_PORT, or SPARK_REMOTE to use a running server"
  fi
  local settings=()
  extra_settings >/dev/null # in this shell first: a malformed pair stops the start here
  mapfile -t settings < <(extra_settings)
  start=$(now_ms)
  [ -f "$LOG_FILE" ] && mv -f "$LOG_FILE" "$LOG_FILE.1"
  : >"$LOG_FILE"
  # Tables, spill files and temporary files of one run: nothing is kept from the last one.
  rm -rf "$RUN/warehouse" "$RUN/tmp"
  mkdir -p "$RUN/tmp"
  # setsid: the server gets a session and process group of its own, so that a signal to the caller's group (a
  # test runner cut short) does not stop it; `stop` does. SparkConnectServer's main ignores its arguments:
  # every setting is a -Dspark.* system property, which SparkConf reads. The --add-opens list is the one Spark's
  # launcher passes on Java 17+ (JavaModuleOptions). SPARK_LOCAL_IP keeps Spark off the machine's other addresses.
  local detach=()
  command -v setsid >/dev/null 2>&1 && detach=(setsid)
  # shellcheck disable=SC2086 # SPARK_CONNECT_HEAP_OPTS is a list of JVM flags
  (cd "$RUN" && SPARK_LOCAL_IP=$HOST exec "${detach[@]}" nohup "$JAVA" ${SPARK_CONNECT_HEAP_OPTS:--Xms256m -Xmx1g} \
    -XX:+UseG1GC -XX:+IgnoreUnrecognizedVMOptions --add-modules=jdk.incubator.vector \
    --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED \
    --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
    --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
    --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED \
    --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED \
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED \
    --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED \
    --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED --enable-native-access=ALL-UNNAMED \
    -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true \
    -Djava.awt.headless=true -Djava.io.tmpdir="$RUN/tmp" "$MARK" \
    -Dspark.master='local[2]' -Dspark.app.name=sluice-spark-connect \
    -Dspark.connect.grpc.binding.address="$HOST" -Dspark.connect.grpc.binding.port="$PORT" \
    -Dspark.driver.host="$HOST" -Dspark.driver.bindAddress="$HOST" \
    -Dspark.ui.enabled=false -Dspark.sql.shuffle.partitions=2 \
    -Dspark.sql.warehouse.dir="$RUN/warehouse" -Dspark.local.dir="$RUN/tmp" "${settings[@]}" \
    -cp "$LIBS/*" "$MAIN_CLASS") >>"$LOG_FILE" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$PID_FILE"
  echo "$PORT" >"$PORT_FILE"
  echo "$VERSION" >"$VERSION_FILE"
  wait_ready "$pid" "$PORT"
  log "Spark Connect $VERSION up at $(remote_url "$PORT") in $(since "$start") (listening after $LISTEN_TIME; pid $pid, $READY_INFO); log: ${LOG_FILE#"$ROOT"/}"
}

cmd_stop() {
  with_lock
  local pid
  pid=$(server_pid)
  if [ -z "$pid" ]; then
    log "not running"
    return 0
  fi
  stop_process "$pid" "${SPARK_CONNECT_STOP_TIMEOUT:-30}" SPARK_CONNECT_STOP_TIMEOUT
  rm -f "$PID_FILE"
}

cmd_status() {
  local pid port info owner
  pid=$(server_pid)
  if [ -z "$pid" ]; then
    owner=$(port_owner "$PORT")
    if [ -n "$owner" ]; then
      log "this checkout's server is not running, but $HOST:$PORT is taken by $owner; stop that one, or set SPARK_CONNECT_PORT"
    else
      log "not running"
    fi
    return 1
  fi
  port=$(running_port)
  if info=$(probe "$port" 30000 2>&1); then
    log "Spark Connect $(cat "$VERSION_FILE" 2>/dev/null) running at $(remote_url "$port") (pid $pid), $info"
  else
    log "pid $pid runs but does not answer at $(remote_url "$port"): $info"
    return 1
  fi
}

cmd_remote() {
  if [ -n "$(server_pid)" ]; then remote_url "$(running_port)"; else remote_url "$PORT"; fi
}

cmd_pid() {
  local pid
  pid=$(server_pid)
  [ -n "$pid" ] || die "not running"
  echo "$pid"
}

# The protocol files of the fetched spark-connect jar, extracted into $1: spark/connect/*.proto but the example
# plugins, the two google/rpc files Spark's error details use, and the jar's NOTICE.
extract_protos() {
  local dir=$1
  [ -f "$SERVER_JAR" ] || die "no ${SERVER_JAR#"$ROOT"/}: run scripts/spark-connect.sh fetch"
  mkdir -p "$dir"
  if command -v unzip >/dev/null 2>&1; then
    unzip -q -o "$SERVER_JAR" 'spark/connect/*.proto' google/rpc/status.proto google/rpc/error_details.proto \
      -x spark/connect/example_plugins.proto -d "$dir" || die "could not extract the .proto files from $SERVER_JAR"
    unzip -q -o -p "$SERVER_JAR" META-INF/NOTICE >"$dir/NOTICE" || die "could not extract META-INF/NOTICE from $SERVER_JAR"
  elif command -v python3 >/dev/null 2>&1; then
    # The same files through Python's zipfile, where unzip is not installed.
    python3 - "$SERVER_JAR" "$dir" <<'PY' || die "could not extract the protocol files from $SERVER_JAR"
import os, re, sys, zipfile
wanted = re.compile(r"spark/connect/(?!example_plugins\.proto$)[^/]+\.proto|google/rpc/(status|error_details)\.proto")
with zipfile.ZipFile(sys.argv[1]) as jar:
    for name in jar.namelist():
        if wanted.fullmatch(name) or name == "META-INF/NOTICE":
            target = os.path.join(sys.argv[2], "NOTICE" if name == "META-INF/NOTICE" else name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as out:
                out.write(jar.read(name))
PY
  else
    missing_tool "unzip"
  fi
}

cmd_protos() {
  local dir=${1:-$PROTO_DIR}
  fetched || do_fetch
  extract_protos "$dir"
  log "extracted the Spark Connect $VERSION protocol into ${dir#"$ROOT"/}: $(cd "$dir" && find . -name '*.proto' | wc -l | tr -d ' ') .proto files and NOTICE"
}

# Prints one line per file that differs between the directories $1 and $2, called $3 and $4 in the lines (only
# the files the find expression after them names), and returns 1 when any does.
summarize_differences() {
  local expected=$1 actual=$2 expected_name=$3 actual_name=$4 file differ=0 added removed
  shift 4
  while read -r file; do
    if [ ! -f "$actual/$file" ]; then
      echo "  only in $expected_name: $file"
    elif [ ! -f "$expected/$file" ]; then
      echo "  only in $actual_name: $file"
    elif ! cmp -s "$expected/$file" "$actual/$file"; then
      added=$(diff "$actual/$file" "$expected/$file" | grep -c '^>' || true)
      removed=$(diff "$actual/$file" "$expected/$file" | grep -c '^<' || true)
      echo "  differs: $file ($added line(s) only in $expected_name, $removed only in $actual_name)"
    else
      continue
    fi
    differ=1
  done < <( (cd "$expected" && find . "$@"; cd "$actual" && find . "$@") | sed 's:^\./::' | sort -u)
  return "$differ"
}

cmd_protos_check() {
  local tmp
  fetched || do_fetch
  tmp=$(mktemp -d)
  extract_protos "$tmp"
  if summarize_differences "$tmp" "$PROTO_DIR" "the jar" src/remote/proto \( -name '*.proto' -o -name NOTICE \) -type f >"$tmp.summary"; then
    rm -rf "$tmp" "$tmp.summary"
    log "src/remote/proto holds the protocol of ${SERVER_JAR#"$ROOT"/}"
    return 0
  fi
  echo "spark-connect: src/remote/proto differs from the protocol in ${SERVER_JAR#"$ROOT"/}:" >&2
  cat "$tmp.summary" >&2
  rm -rf "$tmp" "$tmp.summary"
  die "to take the jar's files: scripts/spark-connect.sh protos, then npm run proto:generate"
}

cmd_generated_check() {
  local tmp buf="$ROOT/node_modules/.bin/buf"
  [ -x "$buf" ] || die "no $buf: run npm ci"
  tmp=$(mktemp -d)
  # buf.gen.yaml's own plugin and options, with -o putting its output under $tmp instead of the checkout.
  (cd "$ROOT" && "$buf" generate src/remote/proto --template src/remote/proto/buf.gen.yaml -o "$tmp") \
    || { rm -rf "$tmp"; die "buf generate failed (its output above)"; }
  if summarize_differences "$tmp/src/remote/gen" "$GEN_DIR" "buf's output" src/remote/gen -type f >"$tmp.summary"; then
    rm -rf "$tmp" "$tmp.summary"
    log "src/remote/gen is what buf generates from src/remote/proto"
    return 0
  fi
  echo "spark-connect: src/remote/gen differs from what buf generates from src/remote/proto:" >&2
  cat "$tmp.summary" >&2
  rm -rf "$tmp" "$tmp.summary"
  die "to regenerate it: npm run proto:generate"
}

case ${1:-} in
  fetch) with_lock; do_fetch ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  remote) cmd_remote ;;
  pid) cmd_pid ;;
  logs) shift; show_logs "$@" ;;
  protos) shift; with_lock; cmd_protos "$@" ;;
  protos-check) with_lock; cmd_protos_check ;;
  generated-check) cmd_generated_check ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
