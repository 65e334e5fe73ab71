package io.wheeltimer.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The time-limit part of {@link Report}: the {@link TimeLimitBenchmark} table, the
 * {@link TimeLimitExperiments} table, their targets and a chart. It reads {@code time-limit-jmh.json} and
 * {@code time-limit.jsonl} beside the main JMH results, and writes nothing when they are absent.
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

    /** @param jmhResults the main JMH results file: the time-limit files are its siblings */
    TimeLimitReport(Path jmhResults) throws IOException {
        Path jmh = jmhResults.resolveSibling("time-limit-jmh.json");
        Path lines = jmhResults.resolveSibling("time-limit.jsonl");
        Path floor = jmhResults.resolveSibling("time-limit-floor-jmh.json");
        present = Files.exists(jmh) || Files.exists(lines);
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

    /** The targets of the time-limit benchmarks, as a table of their own (the main table's columns are the layouts). */
    void targets(StringBuilder md) {
        if (!present) {
            return;
        }
        LimitContender wheel = LimitContender.WHEEL;
        LimitContender jdk = LimitContender.JDK;
        md.append("## Time-limit targets\n\n| target | wheel-timer | met |\n|---|---:|:---:|\n");
        for (int column = 0; column < 2; column++) {
            double r = cell(throughput, wheel)[column] / cell(throughput, jdk)[column];
            row(
                    md,
                    "limit-then-complete, " + (column + 1) + (column == 0 ? " thread" : " threads")
                            + ": ≥ 3 × CompletableFuture.orTimeout",
                    Report.fmt(r) + " ×",
                    r >= 3);
        }
        double bytes = cell(allocation, wheel)[0];
        double jdkBytes = cell(allocation, jdk)[0];
        row(
                md,
                "bytes per call: ≤ 1/3 of CompletableFuture.orTimeout's (" + Report.fmt(jdkBytes) + " B)",
                Report.fmt(bytes) + " B (" + Report.fmt(bytes / jdkBytes) + " ×)",
                bytes <= jdkBytes / 3);
        double all = bulk(wheel, "allFiredAfterWindowStartMillis");
        row(
                md,
                "1M deadlines in a 100 ms window: the last fires within 110 ms of the window's start",
                Report.fmt(all) + " ms",
                all <= 110);
        md.append('\n');
    }

    /** One row of a targets table: the target, the measured value, and whether it was met. */
    static void row(StringBuilder md, String target, String value, boolean met) {
        md.append("| ")
                .append(target)
                .append(" | ")
                .append(value)
                .append(" | ")
                .append(met ? "yes" : "**no**")
                .append(" |\n");
    }

    void sections(StringBuilder md) {
        if (!present) {
            return;
        }
        md.append("## Time limits: limit-then-complete throughput\n\n")
                .append("`TimeLimitBenchmark`: a new `CompletableFuture` gets a 1 s deadline and completes at once ")
                .append("(the call answered in time), so the deadline is cancelled. wheel-timer's `Timer.orTimeout` ")
                .append("on a hierarchical timer (the starter's default layout) with a 1 ms tick and 512 buckets; the ")
                .append("JDK's `CompletableFuture.orTimeout` (its one static delayer thread); Resilience4j's ")
                .append("`TimeLimiter` (resilience4j-timelimiter 2.4.0) on `Executors.newScheduledThreadPool(3)`, the ")
                .append("scheduler its documentation shows (it has none of its own). Bytes per call include the ")
                .append("future itself.\n\n")
                .append(
                        "| limiter | 1 thread (ops/µs) | × JDK | 2 threads (ops/µs) | × JDK | B/op, 1 thread | B/op, 2 threads |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|\n");
        double[] jdk = cell(throughput, LimitContender.JDK);
        for (LimitContender c : ALL) {
            double[] ops = cell(throughput, c);
            double[] bytes = cell(allocation, c);
            tableRow(md, c.label(), ops[0], ops[0] / jdk[0], ops[1], ops[1] / jdk[1], bytes[0], bytes[1]);
        }
        md.append("\n![Limit-then-complete throughput](benchmarks-time-limits.svg)\n\n");
        floor(md);
        md.append("## Time limits: 1,000,000 deadlines passing in the same 100 ms\n\n")
                .append(
                        "`TimeLimitExperiments limit-bulk`: 1,000,000 futures, never completed, whose deadlines fall evenly in a ")
                .append(
                        "100 ms window 3 s after scheduling starts, after unmeasured deadlines that warm the JIT (200,000 ")
                .append("over 2 s, then 1,000,000 the same way 1.5 s ahead, so that the expiry path is compiled for ")
                .append("ticks this full). ")
                .append("Time from the window's start until all had timed out (100 ms at best); lower is better.\n\n")
                .append(
                        "| limiter | ms until all timed out | ms after the last deadline | × JDK |\n|---|---:|---:|---:|\n");
        double jdkAll = bulk(LimitContender.JDK, "allFiredAfterWindowStartMillis");
        for (LimitContender c : ALL) {
            double all = bulk(c, "allFiredAfterWindowStartMillis");
            tableRow(md, c.label(), all, bulk(c, "lagAfterLastDeadlineMillis"), all / jdkAll);
        }
        md.append('\n');
    }

    /** One row of a table: its label, then each value as {@link Report#fmt}. */
    private static void tableRow(StringBuilder md, String label, double... values) {
        md.append("| ").append(label);
        for (double value : values) {
            md.append(" | ").append(Report.fmt(value));
        }
        md.append(" |\n");
    }

    /** The {@link TimeLimitFloorBenchmark} table, if it ran. */
    private void floor(StringBuilder md) {
        if (floorThroughput.isEmpty()) {
            return;
        }
        md.append("### What bounds limit-then-complete\n\n")
                .append("`TimeLimitFloorBenchmark`, a JMH run of its own: the same pattern doing only part of a ")
                .append("deadline's work, step by step, beside this timer and the JDK again (so its ratios are of one ")
                .append("run). No partial step is a usable limiter: each is the least that any limiter which cancels ")
                .append("its deadline the moment the future completes must do up to that point. The hand-off is one ")
                .append("compare-and-set onto a stack of the scheduling thread's and one off it, with no state change ")
                .append("to settle a race with expiry, no counts and no worker.\n\n")
                .append("| step | 1 thread (ops/µs) | ns/op | × JDK | 2 threads (ops/µs) | × JDK | B/op |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|\n");
        double[] jdk = cell(floorThroughput, TimeLimitFloorBenchmark.Step.JDK);
        for (TimeLimitFloorBenchmark.Step step : TimeLimitFloorBenchmark.Step.values()) {
            double[] ops = cell(floorThroughput, step);
            tableRow(
                    md,
                    step.label(),
                    ops[0],
                    1000 / ops[0],
                    ops[0] / jdk[0],
                    ops[1],
                    ops[1] / jdk[1],
                    cell(floorAllocation, step)[0]);
        }
        md.append('\n');
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
