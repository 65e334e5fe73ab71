#!/usr/bin/env bash
# Runs the whole benchmark suite and writes docs/benchmarks.md and docs/benchmarks.svg.
# About 21 minutes on 2 cores. Run it on a quiet machine: nothing else should be busy.
#
#   wheel-timer-benchmarks/run-benchmarks.sh          # everything
#   QUICK=1 wheel-timer-benchmarks/run-benchmarks.sh  # a short smoke run, numbers meaningless
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/wheel-timer-benchmarks/target/results"
mkdir -p "$out"

./mvnw -B -q -pl wheel-timer-benchmarks -am package dependency:build-classpath -DskipTests \
    -Dmdep.outputFile="$out/classpath.txt"
cp="$root/wheel-timer-benchmarks/target/classes:$(cat "$out/classpath.txt")"

# Time limits (issue 9): Timer.orTimeout beside CompletableFuture.orTimeout and Resilience4j's
# TimeLimiter, into result files of their own, which Report finds beside jmh.json.
limit_args=(-prof gc -rf json -rff "$out/time-limit-jmh.json")
if [[ "${QUICK:-}" == 1 ]]; then
    limit_args+=(-wi 1 -w 1s -i 1 -r 1s)
fi
java -cp "$cp" org.openjdk.jmh.Main TimeLimitBenchmark "${limit_args[@]}"
# What bounds it: the same pattern doing part of a deadline's work, step by step.
java -cp "$cp" org.openjdk.jmh.Main TimeLimitFloorBenchmark "${limit_args[@]/time-limit-jmh.json/time-limit-floor-jmh.json}"
: > "$out/time-limit.jsonl"
for contender in WHEEL JDK RESILIENCE4J; do
    echo "== limit-bulk $contender"
    java -Xms3g -Xmx3g -XX:+UseSerialGC -cp "$cp" io.wheeltimer.benchmarks.TimeLimitExperiments limit-bulk "$contender" \
        | grep '^{' | tee -a "$out/time-limit.jsonl"
done

jmh_args=(-prof gc -rf json -rff "$out/jmh.json")
if [[ "${QUICK:-}" == 1 ]]; then
    jmh_args+=(-wi 1 -w 1s -i 1 -r 1s)
fi
java -cp "$cp" org.openjdk.jmh.Main ScheduleCancelBenchmark "${jmh_args[@]}"
# Request traffic (1,000 in flight per thread); Report reads jmh-inflight.json beside jmh.json.
java -cp "$cp" org.openjdk.jmh.Main InFlightBenchmark "${jmh_args[@]/jmh.json/jmh-inflight.json}"

: > "$out/experiments.jsonl"
for experiment in retained cpu-far cpu-far-busy cpu-idle lateness bulk; do
    for contender in WHEEL_FLAT WHEEL_HIERARCHICAL NETTY JDK; do
        echo "== $experiment $contender"
        # Serial GC: heap-after-GC readings are exact; one fresh JVM per measurement.
        java -Xms3g -Xmx3g -XX:+UseSerialGC -cp "$cp" io.wheeltimer.benchmarks.Experiments "$experiment" "$contender" \
            | grep '^{' | tee -a "$out/experiments.jsonl"
    done
done

# Random-order bulk (with the wheel's phase profile), lateness-recording cost, a flood of refusals.
for run in "bulk-random WHEEL_FLAT" "bulk-random WHEEL_HIERARCHICAL" "bulk-random NETTY" \
        "lateness-cost WHEEL_HIERARCHICAL" "refusals WHEEL_HIERARCHICAL" "refusals-own WHEEL_HIERARCHICAL"; do
    echo "== $run"
    # shellcheck disable=SC2086
    java -Xms3g -Xmx3g -XX:+UseSerialGC -cp "$cp" io.wheeltimer.benchmarks.Experiments $run \
        | grep '^{' | tee -a "$out/experiments.jsonl"
done

java -cp "$cp" io.wheeltimer.benchmarks.Report "$out/jmh.json" "$out/experiments.jsonl" "$root/docs" \
    "wheel-timer-benchmarks/run-benchmarks.sh"
echo "Wrote docs/benchmarks.md and docs/benchmarks.svg"
