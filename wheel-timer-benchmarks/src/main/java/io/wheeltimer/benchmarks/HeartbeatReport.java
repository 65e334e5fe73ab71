package io.wheeltimer.benchmarks;

import io.wheeltimer.benchmarks.HeartbeatBenchmark.Scheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.EnumMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code TaskScheduler} part of the benchmark report: {@link HeartbeatBenchmark}'s JMH results
 * ({@code jmh-heartbeat.json}), {@code WheelTaskScheduler} beside Spring's {@code ThreadPoolTaskScheduler}.
 * {@link Report} includes it when that file lies beside the main JMH results. Run on its own,
 * {@code HeartbeatReport JMH_HEARTBEAT_JSON DOCS_DIR COMMAND} puts the section into an existing
 * {@code benchmarks.md} in place of the one there (between its markers), or before "Reproduce".
 */
final class HeartbeatReport {

    static final String START = "<!-- task scheduler: start -->";
    static final String END = "<!-- task scheduler: end -->";

    /** Throughput (ops/µs) and bytes per re-arm, by scheduler, for 1 and 2 benchmark threads. */
    private final Map<Scheduler, double[]> throughput = new EnumMap<>(Scheduler.class);

    private final Map<Scheduler, double[]> bytes = new EnumMap<>(Scheduler.class);
    private final boolean present;
    /** Fewer measurement iterations than the benchmark declares: a QUICK smoke run. */
    private boolean quick;

    HeartbeatReport(Path file) throws IOException {
        present = Files.exists(file);
        if (!present) {
            return;
        }
        for (JsonNode run : JsonMapper.builder().build().readTree(file.toFile())) {
            quick |= run.get("measurementIterations").asInt() < 5;
            Scheduler scheduler =
                    Scheduler.valueOf(run.get("params").get("scheduler").asString());
            int column = run.get("benchmark").asString().endsWith("oneThread") ? 0 : 1;
            cell(throughput, scheduler)[column] =
                    run.get("primaryMetric").get("score").asDouble();
            JsonNode norm = run.get("secondaryMetrics").get("gc.alloc.rate.norm");
            cell(bytes, scheduler)[column] =
                    norm == null ? Double.NaN : norm.get("score").asDouble();
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: HeartbeatReport JMH_HEARTBEAT_JSON DOCS_DIR COMMAND");
        }
        HeartbeatReport report = new HeartbeatReport(Path.of(args[0]));
        if (!report.present) {
            throw new IllegalArgumentException("no results at " + args[0] + ": run HeartbeatBenchmark first");
        }
        Path markdown = Path.of(args[1]).resolve("benchmarks.md");
        String existing = Files.exists(markdown) ? Files.readString(markdown) : "# Benchmarks\n\n";
        StringBuilder section = new StringBuilder();
        report.section(section, args[2]);
        Files.writeString(markdown, DurableReport.splice(existing, START, END, section.toString()));
    }

    private static double[] cell(Map<Scheduler, double[]> table, Scheduler scheduler) {
        return table.computeIfAbsent(scheduler, s -> new double[] {Double.NaN, Double.NaN});
    }

    /** The whole section, between its markers; nothing if there are no results. */
    void section(StringBuilder md, String command) {
        if (!present) {
            return;
        }
        md.append(START)
                .append("\n## TaskScheduler: the SockJS heartbeat pattern\n\n")
                .append("`WheelTaskScheduler` beside Spring's `ThreadPoolTaskScheduler`, configured as Spring ")
                .append("configures its default SockJS scheduler (remove-on-cancel on), with one pool thread and ")
                .append("with one per CPU (`HeartbeatBenchmark`). 10,000 sessions each hold a heartbeat due 25 s ")
                .append("ahead; every message on a session (a random one) cancels its heartbeat and schedules a ")
                .append("new one, as Spring's SockJS sessions do: `cancel(false)`, then `schedule(new task, ")
                .append("Instant.now() + 25 s)`. The benchmark threads are the threads the messages arrive on and ")
                .append("share the sessions out; no heartbeat comes due. JMH throughput (re-arms per µs, higher is ")
                .append("better) and `gc.alloc.rate.norm` (bytes allocated per re-arm, the benchmark's own task ")
                .append("object and `Instant` included), 2 GB heap. Measured ")
                .append(LocalDate.now())
                .append(" on ")
                .append(Report.machine())
                .append(", with `")
                .append(command)
                .append("`.")
                .append(quick ? " **A QUICK smoke run: the numbers mean nothing.**" : "")
                .append("\n\n")
                .append("| scheduler | 1 thread (re-arms/µs) | 2 threads (re-arms/µs) | bytes per re-arm |\n")
                .append("|---|---:|---:|---:|\n");
        for (Scheduler scheduler : Scheduler.values()) {
            md.append("| ")
                    .append(label(scheduler))
                    .append(" | ")
                    .append(Report.fmt(cell(throughput, scheduler)[0]))
                    .append(" | ")
                    .append(Report.fmt(cell(throughput, scheduler)[1]))
                    .append(" | ")
                    .append(Report.fmt(cell(bytes, scheduler)[0]))
                    .append(" |\n");
        }
        md.append("\n| target | measured | met |\n|---|---:|:---:|\n");
        double[] wheel = cell(throughput, Scheduler.WHEEL);
        for (Scheduler spring : new Scheduler[] {Scheduler.SPRING_ONE_THREAD, Scheduler.SPRING_CPU_THREADS}) {
            for (int column = 0; column < 2; column++) {
                double ratio = wheel[column] / cell(throughput, spring)[column];
                TimeLimitReport.row(
                        md,
                        "throughput, " + (column + 1) + (column == 0 ? " thread" : " threads") + ": ≥ 3 × "
                                + label(spring),
                        Report.fmt(ratio) + " ×",
                        ratio >= 3);
            }
        }
        double wheelBytes = cell(bytes, Scheduler.WHEEL)[0];
        double fewestSpringBytes =
                Math.min(cell(bytes, Scheduler.SPRING_ONE_THREAD)[0], cell(bytes, Scheduler.SPRING_CPU_THREADS)[0]);
        TimeLimitReport.row(
                md,
                "bytes per re-arm: ≤ 1/2 of ThreadPoolTaskScheduler's (" + Report.fmt(fewestSpringBytes) + " B)",
                Report.fmt(wheelBytes) + " B (" + Report.fmt(wheelBytes / fewestSpringBytes) + " ×)",
                wheelBytes <= fewestSpringBytes / 2);
        md.append('\n').append(END).append('\n');
    }

    private static String label(Scheduler scheduler) {
        return switch (scheduler) {
            case WHEEL -> "WheelTaskScheduler (100 ms tick)";
            case SPRING_ONE_THREAD -> "ThreadPoolTaskScheduler, 1 thread";
            case SPRING_CPU_THREADS ->
                "ThreadPoolTaskScheduler, " + Runtime.getRuntime().availableProcessors() + " threads (one per CPU)";
        };
    }
}
