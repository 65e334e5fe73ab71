package io.wheeltimer.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Locale;
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
            throw new IllegalArgumentException("no time-limit results (" + files
                    + "): run-benchmarks.sh writes them beside the main JMH results");
        }
        LimitContender wheel = LimitContender.WHEEL;
        LimitContender jdk = LimitContender.JDK;
        StringJoiner targetRows = new StringJoiner("\n");
        Targets.Target limits = targets.get("time-limit-throughput");
        for (int column = 0; column < 2; column++) {
            double r = cell(throughput, wheel)[column] / cell(throughput, jdk)[column];
            targetRows.add(Report.targetRow(
                    limits.text("threads", Report.threads(column + 1)), limits.met(r), Report.x(r)));
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
        int width = 620;
        int height = 320;
        int left = 70;
        int bottom = 250;
        int top = 40;
        String[] series = {"1 thread", "2 threads"};
        String[] colours = {"#4e79a7", "#a0cbe8"};
        double max = 0;
        for (LimitContender c : ALL) {
            for (double v : cell(throughput, c)) {
                max = Double.isNaN(v) ? max : Math.max(max, v);
            }
        }
        max = max <= 0 ? 1 : max * 1.1;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                        + "font-family=\"sans-serif\" font-size=\"12\">%n",
                width,
                height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"22\" font-size=\"15\">Limit-then-complete throughput "
                        + "(ops/µs, higher is better)</text>%n",
                left));
        for (int i = 0; i <= 4; i++) {
            int y = (int) (bottom - (bottom - top) * i / 4.0);
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>%n",
                    left,
                    y,
                    width - 20,
                    y));
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    left - 6,
                    y + 4,
                    Report.fmt(max * i / 4)));
        }
        int group = (width - left - 20) / ALL.length;
        int bar = (group - 40) / series.length;
        for (int g = 0; g < ALL.length; g++) {
            for (int k = 0; k < series.length; k++) {
                double v = cell(throughput, ALL[g])[k];
                v = Double.isNaN(v) ? 0 : v;
                int h = (int) ((bottom - top) * v / max);
                int x = left + g * group + 20 + k * bar;
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                        x,
                        bottom - h,
                        bar - 3,
                        h,
                        colours[k]));
                svg.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%s</text>%n",
                        x + (bar - 3) / 2,
                        bottom - h - 4,
                        Report.fmt(v)));
            }
            String label = ALL[g].label().replace(" (hierarchical, 1 ms tick)", "");
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    left + g * group + group / 2,
                    bottom + 18,
                    label));
        }
        Report.legend(svg, series, colours, left, 170, height);
        Files.writeString(
                docs.resolve("benchmarks-time-limits.svg"),
                svg.append("</svg>\n").toString());
    }
}
