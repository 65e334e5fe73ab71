#!/usr/bin/env bash
# Runs the whole benchmark suite and writes docs/benchmarks.md and its charts (docs/benchmarks*.svg).
# About two hours on 2 cores: 25 minutes durable timeouts against db-scheduler and up to 70 more their
# sustained load on 1, 2 and 4 instances (the rate is raised until it is no longer held), 8 the 1 GB-heap runs of
# ScheduleCancelBenchmark and InFlightBenchmark, and some 5 pre-touching the 4 GB heap of the 44 JMH forks
# that have one. Run it on a quiet machine: nothing else should be busy.
#
#   wheel-timer-benchmarks/run-benchmarks.sh                 # everything
#   ONLY=durable wheel-timer-benchmarks/run-benchmarks.sh    # durable timeouts against db-scheduler alone:
#                                                            # its section of docs/benchmarks.md is replaced,
#                                                            # the rest left as it is
#   ONLY=heartbeat wheel-timer-benchmarks/run-benchmarks.sh  # WheelTaskScheduler against Spring's
#                                                            # ThreadPoolTaskScheduler alone, likewise
#   QUICK=1 wheel-timer-benchmarks/run-benchmarks.sh         # a short smoke run, numbers meaningless
#   DATABASES=postgresql,mariadb ONLY=durable ...            # the durable runs on these databases, in this
#                                                            # order (default postgresql; mariadb runs the
#                                                            # machine's mariadbd, see ensure-mariadb.sh)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/wheel-timer-benchmarks/target/results"
mkdir -p "$out"
only="${ONLY:-}"
databases="${DATABASES:-postgresql}"
for database in ${databases//,/ }; do
    if [[ "$database" != postgresql && "$database" != mariadb ]]; then
        echo "DATABASES=$databases: a comma-separated list of postgresql and mariadb" >&2
        exit 2
    fi
done
if [[ -n "$only" && "$only" != durable && "$only" != heartbeat ]]; then
    echo "ONLY=$only: leave ONLY unset to run everything, or set ONLY=durable or ONLY=heartbeat" >&2
    exit 2
fi

./mvnw -B -q -pl wheel-timer-benchmarks -am package dependency:build-classpath -DskipTests \
    -Dmdep.outputFile="$out/classpath.txt"
cp="$root/wheel-timer-benchmarks/target/classes:$(cat "$out/classpath.txt")"

# JMH's options for a run that writes its results to $1, one a line: the GC profiler and JSON results;
# with QUICK=1 one short warm-up and one short measurement.
jmh_options() {
    local options=(-prof gc -rf json -rff "$1")
    if [[ "${QUICK:-}" == 1 ]]; then
        options+=(-wi 1 -w 1s -i 1 -r 1s)
    fi
    printf '%s\n' "${options[@]}"
}

# Durable timeouts against db-scheduler (defaults and tuned): one JVM per measurement, each starting its
# own throwaway server of the database (embedded PostgreSQL; the machine's mariadbd) with a fresh
# database. QUICK=1 reaches DurableExperiments through the environment.
durable_section() {
    : > "$out/durable.jsonl"
    for database in ${databases//,/ }; do
        if [[ "$database" == mariadb ]]; then
            bash "$root/wheel-timer-test-support/src/main/sh/ensure-mariadb.sh"
        fi
        # What the database itself commits of the timer's minimal work, beside the figures below.
        echo "== durable $database limit DATABASE"
        java -Xms2g -Xmx2g -cp "$cp" io.wheeltimer.benchmarks.experiments.DatabaseLimitExperiment "$database" \
            | grep '^{' | tee -a "$out/durable.jsonl"
        for experiment in lateness payment-1 payment-4 payment-own-1 payment-own-4 burst idle; do
            for contender in DURABLE DB_SCHEDULER DB_SCHEDULER_TUNED; do
                echo "== durable $database $experiment $contender"
                java -Xms2g -Xmx2g -cp "$cp" io.wheeltimer.benchmarks.experiments.DurableExperiments \
                    "$experiment" "$contender" "$database" | grep '^{' | tee -a "$out/durable.jsonl"
            done
        done
        if [[ "$database" == postgresql ]]; then
            # A sustained load on 1, 2 and 4 instances (JVMs) sharing the database, the rate raised step by
            # step (RATES, WINDOW_SECONDS): the durable timer and db-scheduler tuned. Up to about 12 minutes
            # each; on PostgreSQL, whose tuned db-scheduler has its lock-and-fetch strategy.
            for instances in 1 2 4; do
                for contender in DURABLE DB_SCHEDULER_TUNED; do
                    echo "== durable $database sustained-$instances $contender"
                    java -Xms1g -Xmx1g -cp "$cp" io.wheeltimer.benchmarks.experiments.SustainedExperiment \
                        "$contender" "$instances" "$database" | grep '^{' | tee -a "$out/durable.jsonl"
                done
            done
            # 1,000,000 timeouts 30 days ahead, the durable timer alone (PostgreSQL's ANALYZE and EXPLAIN).
            # Serial GC: heap-after-GC readings are exact.
            echo "== durable postgresql far DURABLE"
            java -Xms2g -Xmx2g -XX:+UseSerialGC -cp "$cp" io.wheeltimer.benchmarks.experiments.DurableExperiments \
                far DURABLE postgresql | grep '^{' | tee -a "$out/durable.jsonl"
            # 10,000 timeouts by one scheduleAll, by single committed calls and by db-scheduler's scheduleBatch,
            # with commits flushed to disk (PostgreSQL's defaults) and without (the test server's settings).
            for commits in flushed unflushed; do
                echo "== durable postgresql bulk $commits"
                java -Xms2g -Xmx2g -cp "$cp" io.wheeltimer.benchmarks.experiments.DurableBulkExperiment "$commits" \
                    | grep '^{' | tee -a "$out/durable.jsonl"
            done
        fi
    done
}

# The SockJS heartbeat pattern: WheelTaskScheduler against Spring's ThreadPoolTaskScheduler.
heartbeat_section() {
    local args
    mapfile -t args < <(jmh_options "$out/jmh-heartbeat.json")
    java -cp "$cp" org.openjdk.jmh.Main HeartbeatBenchmark "${args[@]}"
}

# ONLY=durable or ONLY=heartbeat: that section alone, whose report replaces its part of docs/benchmarks.md.
if [[ -n "$only" ]]; then
    "${only}_section"
    if [[ "$only" == heartbeat ]]; then
        report=HeartbeatReport
        results="$out/jmh-heartbeat.json"
        wrote="the TaskScheduler section of docs/benchmarks.md"
    else
        report=DurableReport
        results="$out/durable.jsonl"
        wrote="the durable section of docs/benchmarks.md and docs/benchmarks-durable.svg"
    fi
    java -cp "$cp" "io.wheeltimer.benchmarks.report.$report" "$results" "$root/docs" \
        "ONLY=$only wheel-timer-benchmarks/run-benchmarks.sh"
    echo "Wrote $wrote"
    exit 0
fi

# Time limits: Timer.orTimeout beside CompletableFuture.orTimeout and Resilience4j's
# TimeLimiter, into result files of their own, which Report finds beside jmh.json.
mapfile -t limit_args < <(jmh_options "$out/time-limit-jmh.json")
java -cp "$cp" org.openjdk.jmh.Main TimeLimitBenchmark "${limit_args[@]}"
# What bounds it: the same pattern doing part of a deadline's work, step by step.
java -cp "$cp" org.openjdk.jmh.Main TimeLimitFloorBenchmark "${limit_args[@]/time-limit-jmh.json/time-limit-floor-jmh.json}"
: > "$out/time-limit.jsonl"
for contender in WHEEL JDK RESILIENCE4J; do
    echo "== limit-bulk $contender"
    java -Xms3g -Xmx3g -XX:+UseSerialGC -cp "$cp" io.wheeltimer.benchmarks.experiments.TimeLimitExperiments limit-bulk "$contender" \
        | grep '^{' | tee -a "$out/time-limit.jsonl"
done

mapfile -t jmh_args < <(jmh_options "$out/jmh.json")
# The headline figures: each fork with the benchmarks' own 4 GB heap (G1, pre-touched), where no contender
# is bound by garbage collection.
java -cp "$cp" org.openjdk.jmh.Main ScheduleCancelBenchmark "${jmh_args[@]}"
# Request traffic (1,000 in flight per thread); Report reads jmh-inflight.json beside jmh.json.
java -cp "$cp" org.openjdk.jmh.Main InFlightBenchmark "${jmh_args[@]/jmh.json/jmh-inflight.json}"
# The same two with a 1 GB heap, shown beside the headline as what a small heap does (at the 100 ms tick
# Netty keeps every cancelled timeout until its next tick and spends its time in GC). -jvmArgsAppend
# replaces the benchmarks' own heap options.
small_heap=(-jvmArgsAppend "-Xms1g -Xmx1g -XX:+UseG1GC")
java -cp "$cp" org.openjdk.jmh.Main ScheduleCancelBenchmark "${jmh_args[@]/jmh.json/jmh-1g.json}" "${small_heap[@]}"
java -cp "$cp" org.openjdk.jmh.Main InFlightBenchmark "${jmh_args[@]/jmh.json/jmh-inflight-1g.json}" "${small_heap[@]}"

: > "$out/experiments.jsonl"
for experiment in retained cpu-far cpu-far-busy cpu-idle lateness bulk; do
    for contender in WHEEL_FLAT WHEEL_HIERARCHICAL NETTY JDK; do
        echo "== $experiment $contender"
        # Serial GC: heap-after-GC readings are exact; one fresh JVM per measurement.
        java -Xms3g -Xmx3g -XX:+UseSerialGC -cp "$cp" io.wheeltimer.benchmarks.experiments.Experiments "$experiment" "$contender" \
            | grep '^{' | tee -a "$out/experiments.jsonl"
    done
done

# Random-order bulk (with the wheel's phase profile), lateness-recording cost, a flood of refusals.
for run in "bulk-random WHEEL_FLAT" "bulk-random WHEEL_HIERARCHICAL" "bulk-random NETTY" \
        "lateness-cost WHEEL_HIERARCHICAL" "refusals WHEEL_HIERARCHICAL" "refusals-own WHEEL_HIERARCHICAL"; do
    echo "== $run"
    # shellcheck disable=SC2086
    java -Xms3g -Xmx3g -XX:+UseSerialGC -cp "$cp" io.wheeltimer.benchmarks.experiments.Experiments $run \
        | grep '^{' | tee -a "$out/experiments.jsonl"
done

heartbeat_section
durable_section

java -cp "$cp" io.wheeltimer.benchmarks.report.Report "$out/jmh.json" "$out/experiments.jsonl" "$root/docs" \
    "wheel-timer-benchmarks/run-benchmarks.sh"
echo "Wrote docs/benchmarks.md and its charts"
