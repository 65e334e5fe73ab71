package io.wheeltimer.benchmarks.report;

import io.wheeltimer.benchmarks.experiments.TimeLimitExperiments;
import io.wheeltimer.benchmarks.jmh.LimitContender;
import io.wheeltimer.benchmarks.jmh.TimeLimitBenchmark;
import io.wheeltimer.benchmarks.jmh.TimeLimitFloorBenchmark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.StringJoiner;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The time-limit part of {@link Report}: the {@link TimeLimitBenchmark} table, the
 * {@link TimeLimitExperiments} table, their targets and a chart. It reads {@code time-limit-jmh.json} and
 * {@code time-limit.jsonl} beside the main JMH results.
 */
final class TimeLimitReport {

    private static final LimitContender[] ALL = LimitContender.values();

    /** Per contender: ops/µs and B/op with 1 and 2 threads. */
    private final Map<LimitContender, double[]> throughput = new EnumMap<>(LimitContender.class);

    private final Map<LimitContender, double[]> allocation = new EnumMap<>(LimitContender.class);
    private final Map<LimitContender, JsonNode> bulk = new EnumMap<>(LimitContender.class);
    /** Per {@link TimeLimitFloorBenchmark} step: ops/µs and B/op with 1 and 2 threads. */
    private final Map<TimeLimitFloorBenchmark.Step, double[]> floorThroughput =
            new EnumMap<>(TimeLimitFloorBenchmark.Step.class);

    private final Map<TimeLimitFloorBenchmark.Step, double[]> floorAllocation =
            new EnumMap<>(TimeLimitFloorBenchmark.Step.class);
    private final boolean present;
    private final String files;

    /** @param jmhResults the main JMH results file: the time-limit files are its siblings */
    TimeLimitReport(Path jmhResults) throws IOException {
        Path jmh = jmhResults.resolveSibling("time-limit-jmh.json");
        Path lines = jmhResults.resolveSibling("time-limit.jsonl");
        Path floor = jmhResults.resolveSibling("time-limit-floor-jmh.json");
        files = jmh + ", " + floor + ", " + lines;
        present = Files.exists(jmh) && Files.exists(floor) && Files.exists(lines);
        JsonMapper json = JsonMapper.builder().build();
        if (Files.exists(jmh)) {
            for (JsonNode run : json.readTree(jmh.toFile())) {
                LimitContender contender = LimitContender.valueOf(
                        run.get("params").get("contender").asString());
                record(run, cell(throughput, contender), cell(allocation, contender));
            }
        }
        if (Files.exists(floor)) {
            for (JsonNode run : json.readTree(floor.toFile())) {
                TimeLimitFloorBenchmark.Step step = TimeLimitFloorBenchmark.Step.valueOf(
                        run.get("params").get("step").asString());
                record(run, cell(floorThroughput, step), cell(floorAllocation, step));
            }
        }
        if (Files.exists(lines)) {
            for (String line : Files.readAllLines(lines)) {
                if (line.startsWith("{")) {
                    JsonNode node = json.readTree(line);
                    bulk.put(LimitContender.valueOf(node.get("contender").asString()), node);
                }
            }
        }
    }

    /** One JMH result of a limit-then-complete run: its score and B/op, in the column of its thread count. */
    private static void record(JsonNode run, double[] throughput, double[] allocation) {
        int column = run.get("benchmark").asString().endsWith("oneThread") ? 0 : 1;
        throughput[column] = run.get("primaryMetric").get("score").asDouble();
        JsonNode norm = run.get("secondaryMetrics").get("gc.alloc.rate.norm");
        allocation[column] = norm == null ? Double.NaN : norm.get("score").asDouble();
    }

    private static <K> double[] cell(Map<K, double[]> table, K key) {
        return table.computeIfAbsent(key, k -> new double[] {Double.NaN, Double.NaN});
    }

    private double bulk(LimitContender contender, String field) {
        JsonNode node = bulk.get(contender);
        return node == null || node.get(field) == null
                ? Double.NaN
                : node.get(field).asDouble();
    }

    /** Fills the time-limit placeholders of the report's template: its tables and its targets. */
    void fill(Template template, Targets targets) {
        if (!present) {
            throw new IllegalArgumentException(
                    "no time-limit results (" + files + "): run-benchmarks.sh writes them beside the main JMH results");
        }
        LimitContender wheel = LimitContender.WHEEL;
        LimitContender jdk = LimitContender.JDK;
        StringJoiner targetRows = new StringJoiner("\n");
        Targets.Target limits = targets.get("time-limit-throughput");
        for (int column = 0; column < 2; column++) {
            double r = cell(throughput, wheel)[column] / cell(throughput, jdk)[column];
            targetRows.add(
                    Report.targetRow(limits.text("threads", Report.threads(column + 1)), limits.met(r), Report.x(r)));
        }
        Targets.Target perCall = targets.get("time-limit-bytes");
        double bytes = cell(allocation, wheel)[0];
        double jdkBytes = cell(allocation, jdk)[0];
        targetRows.add(Report.targetRow(
                perCall.text("jdk", Report.fmt(jdkBytes)),
                perCall.met(bytes, jdkBytes),
                Report.fmt(bytes) + " B (" + Report.fmt(bytes / jdkBytes) + " ×)"));
        Targets.Target lastFired = targets.get("time-limit-bulk");
        double all = bulk(wheel, "allFiredAfterWindowStartMillis");
        targetRows.add(Report.targetRow(lastFired.text(), lastFired.met(all), Report.fmt(all) + " ms"));
        template.put("time-limit-targets-rows", targetRows);

        StringJoiner rows = new StringJoiner("\n");
        double[] jdkOps = cell(throughput, jdk);
        for (LimitContender c : ALL) {
            double[] ops = cell(throughput, c);
            double[] perOp = cell(allocation, c);
            rows.add(Report.row(c.label(), ops[0], ops[0] / jdkOps[0], ops[1], ops[1] / jdkOps[1], perOp[0], perOp[1]));
        }
        template.put("time-limit-rows", rows);

        StringJoiner floorRows = new StringJoiner("\n");
        double[] jdkFloor = cell(floorThroughput, TimeLimitFloorBenchmark.Step.JDK);
        for (TimeLimitFloorBenchmark.Step step : TimeLimitFloorBenchmark.Step.values()) {
            double[] ops = cell(floorThroughput, step);
            floorRows.add(Report.row(
                    step.label(),
                    ops[0],
                    1000 / ops[0],
                    ops[0] / jdkFloor[0],
                    ops[1],
                    ops[1] / jdkFloor[1],
                    cell(floorAllocation, step)[0]));
        }
        template.put("time-limit-floor-rows", floorRows);

        StringJoiner bulkRows = new StringJoiner("\n");
        double jdkAll = bulk(jdk, "allFiredAfterWindowStartMillis");
        for (LimitContender c : ALL) {
            double last = bulk(c, "allFiredAfterWindowStartMillis");
            bulkRows.add(Report.row(c.label(), last, bulk(c, "lagAfterLastDeadlineMillis"), last / jdkAll));
        }
        template.put("time-limit-bulk-rows", bulkRows);
    }

    /** Writes the chart beside the report, if there is anything to chart. */
    void writeChart(Path docs) throws IOException {
        if (!present) {
            return;
        }
        String[] groups = new String[ALL.length];
        double[][] values = new double[ALL.length][];
        for (int g = 0; g < ALL.length; g++) {
            groups[g] = ALL[g].label().replace(" (hierarchical, 1 ms tick)", "");
            values[g] = cell(throughput, ALL[g]);
        }
        Files.writeString(
                docs.resolve("benchmarks-time-limits.svg"),
                Charts.bars(
                        620,
                        320,
                        250,
                        20,
                        "Limit-then-complete throughput (ops/µs, higher is better)",
                        groups,
                        new String[] {"1 thread", "2 threads"},
                        new String[] {"#4e79a7", "#a0cbe8"},
                        values));
    }
}
