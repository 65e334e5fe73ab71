#!/usr/bin/env bash
# The sample's time to first answer, as a plain jar and AOT-processed on the JVM
# (-Dspring.aot.enabled=true), side by side: each started RUNS times, in turns, each on a fresh H2
# database, from the launch of `java` to the first HTTP 200 of GET /orders; then the median of each.
# Not part of the build. From a fresh clone:
#   ./mvnw -B -DskipTests package      (process-aot runs in package: one jar serves both)
#   sample-app/load/startup.sh [runs] [java options...]      (5; none)
# Logs: sample-app/target/startup/.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
jar="sample-app/target/sample-app-0.1.0-SNAPSHOT.jar"
if [ ! -f "$jar" ]; then
    echo "$jar is missing: run ./mvnw -B -DskipTests package first" >&2
    exit 2
fi
runs="${1:-5}"
shift || true
work="sample-app/target/startup"
rm -rf "$work"
mkdir -p "$work"

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# One start: prints the milliseconds from launch to the first 200, then stops the application.
start_once() {
    local mode="$1" run="$2" port dir start pid ms
    shift 2
    port="$(free_port)"
    dir="$work/$mode-$run"
    mkdir -p "$dir"
    local aot=()
    [ "$mode" = aot ] && aot=(-Dspring.aot.enabled=true)
    start=$(date +%s%N)
    java "${aot[@]}" "$@" -jar "$jar" --server.port="$port" \
        --spring.datasource.url="jdbc:h2:file:$root/$dir/orders" >"$dir/app.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 1200); do # 60 s at most
        if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/orders?size=1")" = 200 ]; then
            ms=$((($(date +%s%N) - start) / 1000000))
            kill "$pid"
            wait "$pid" || true
            echo "$ms"
            return
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "the $mode start exited; see $dir/app.log" >&2
            exit 1
        fi
        sleep 0.05
    done
    kill "$pid"
    echo "the $mode start did not answer within 60 s; see $dir/app.log" >&2
    exit 1
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2] + a[NR/2+1]) / 2)}'; }

plain=()
aot=()
for run in $(seq 1 "$runs"); do
    plain+=("$(start_once plain "$run" "$@")")
    aot+=("$(start_once aot "$run" "$@")")
    echo "run $run: plain ${plain[-1]} ms, AOT ${aot[-1]} ms" >&2
done
echo "java: $(java -version 2>&1 | head -1); cores: $(nproc); runs: $runs; options: ${*:-none}"
echo "load average at the end (1, 5, 15 min):$(cut -d' ' -f1-3 /proc/loadavg | sed 's/^/ /')"
echo "plain jar:          median $(printf '%s\n' "${plain[@]}" | median) ms to the first 200 (${plain[*]})"
echo "AOT-processed (JVM): median $(printf '%s\n' "${aot[@]}" | median) ms to the first 200 (${aot[*]})"
