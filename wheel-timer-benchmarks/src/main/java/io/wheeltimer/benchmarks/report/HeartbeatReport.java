package io.wheeltimer.benchmarks.report;

import io.wheeltimer.benchmarks.jmh.HeartbeatBenchmark;
import io.wheeltimer.benchmarks.jmh.HeartbeatBenchmark.Scheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.EnumMap;
import java.util.Map;
import java.util.StringJoiner;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code TaskScheduler} part of the benchmark report: {@link HeartbeatBenchmark}'s JMH results
 * ({@code jmh-heartbeat.json}), {@code WheelTaskScheduler} beside Spring's {@code ThreadPoolTaskScheduler}.
 * {@link Report} includes it from the file beside the main JMH results. Run on its own,
 * {@code HeartbeatReport JMH_HEARTBEAT_JSON DOCS_DIR COMMAND} fills the template's section (between its
 * markers) and puts it into an existing {@code benchmarks.md} in place of the one there, or before
 * "Reproduce".
 */
final class HeartbeatReport {

    static final String START = "<!-- task scheduler: start -->";
    static final String END = "<!-- task scheduler: end -->";

    /** Throughput (ops/µs) and bytes per re-arm, by scheduler, for 1 and 2 benchmark threads. */
    private final Map<Scheduler, double[]> throughput = new EnumMap<>(Scheduler.class);

    private final Map<Scheduler, double[]> bytes = new EnumMap<>(Scheduler.class);
    private final Path file;
    private final boolean present;
    /** Fewer measurement iterations than the benchmark declares: a QUICK smoke run. */
    private boolean quick;

    HeartbeatReport(Path file) throws IOException {
        this.file = file;
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
        Template section = Template.load().section(START, END);
        report.fill(section, Targets.load(), args[2]);
        DurableReport.writeSection(Path.of(args[1]), START, END, section);
    }

    private static double[] cell(Map<Scheduler, double[]> table, Scheduler scheduler) {
        return table.computeIfAbsent(scheduler, s -> new double[] {Double.NaN, Double.NaN});
    }

    /** Fills the placeholders of the template's section between {@link #START} and {@link #END}. */
    void fill(Template template, Targets targets, String command) {
        if (!present) {
            throw new IllegalArgumentException("no results at " + file + ": run HeartbeatBenchmark first");
        }
        template.put("heartbeat-date", LocalDate.now())
                .put("heartbeat-machine", Report.machine())
                .put("heartbeat-command", command)
                .put("heartbeat-quick", quick ? " **A QUICK smoke run: the numbers mean nothing.**" : "");
        StringJoiner rows = new StringJoiner("\n");
        for (Scheduler scheduler : Scheduler.values()) {
            rows.add(Report.row(
                    label(scheduler),
                    cell(throughput, scheduler)[0],
                    cell(throughput, scheduler)[1],
                    cell(bytes, scheduler)[0]));
        }
        template.put("heartbeat-rows", rows);
        StringJoiner targetRows = new StringJoiner("\n");
        // One target per calling-thread count: uncontended (1) and contended (2).
        Targets.Target[] faster = {targets.get("heartbeat-throughput-1"), targets.get("heartbeat-throughput-2")};
        double[] wheel = cell(throughput, Scheduler.WHEEL);
        for (Scheduler spring : new Scheduler[] {Scheduler.SPRING_ONE_THREAD, Scheduler.SPRING_CPU_THREADS}) {
            for (int column = 0; column < 2; column++) {
                double ratio = wheel[column] / cell(throughput, spring)[column];
                targetRows.add(Report.targetRow(
                        faster[column].text("spring", label(spring)), faster[column].met(ratio), Report.x(ratio)));
            }
        }
        Targets.Target noMoreBytes = targets.get("heartbeat-bytes");
        double wheelBytes = cell(bytes, Scheduler.WHEEL)[0];
        double fewestSpringBytes =
                Math.min(cell(bytes, Scheduler.SPRING_ONE_THREAD)[0], cell(bytes, Scheduler.SPRING_CPU_THREADS)[0]);
        targetRows.add(Report.targetRow(
                noMoreBytes.text("spring", Report.fmt(fewestSpringBytes)),
                noMoreBytes.met(wheelBytes, fewestSpringBytes),
                Report.fmt(wheelBytes) + " B (" + Report.fmt(wheelBytes / fewestSpringBytes) + " ×)"));
        template.put("heartbeat-targets-rows", targetRows);
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
