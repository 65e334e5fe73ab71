package io.wheeltimer.benchmarks.report;

import io.wheeltimer.benchmarks.experiments.Experiments;
import io.wheeltimer.benchmarks.jmh.Contender;
import io.wheeltimer.benchmarks.jmh.InFlightBenchmark;
import io.wheeltimer.benchmarks.jmh.ScheduleCancelBenchmark;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.BiPredicate;
import java.util.function.ToDoubleFunction;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes {@code docs/benchmarks.md} and the chart {@code docs/benchmarks.svg}: {@code Report JMH_JSON
 * EXPERIMENTS_JSONL DOCS_DIR COMMAND}. The prose is {@code benchmarks.md.template} ({@link Template}); this
 * class and the parts it includes fill its tables and figures from JMH's JSON results and the
 * {@link Experiments} lines, and judge the targets of {@code targets.tsv} ({@link Targets}).
 *
 * <p>Beside {@code JMH_JSON} (the {@link ScheduleCancelBenchmark} results at the headline heap) it reads
 * {@code jmh-inflight.json} ({@link InFlightBenchmark}), their small-heap runs {@code jmh-1g.json} and
 * {@code jmh-inflight-1g.json}, and the files of {@link TimeLimitReport}, {@link HeartbeatReport} and
 * {@link DurableReport}; a missing one is an error naming it.
 */
public final class Report {

    private static final Contender[] ALL = Contender.values();

    /** The in-flight contenders: the JDK executor has no tick and is not compared there. */
    private static final Contender[] WHEELS_AND_NETTY = {
        Contender.WHEEL_FLAT, Contender.WHEEL_HIERARCHICAL, Contender.NETTY
    };

    /** The ticks the throughput benchmarks run with, in milliseconds: the default first. */
    static final int[] TICKS = {100, 1};

    /** JMH throughput, one run of a benchmark at one heap size. */
    private final Throughput scheduleCancel;

    private final Throughput scheduleCancelSmallHeap;
    private final Throughput inFlight;
    private final Throughput inFlightSmallHeap;

    private final Map<String, Map<Contender, JsonNode>> experiments = new HashMap<>();
    private final TimeLimitReport timeLimits;
    private final DurableReport durable;
    private final HeartbeatReport heartbeat;

    private Report(Path jmh, Path experimentLines) throws IOException {
        scheduleCancel = new Throughput(jmh);
        scheduleCancelSmallHeap = new Throughput(jmh.resolveSibling("jmh-1g.json"));
        inFlight = new Throughput(jmh.resolveSibling("jmh-inflight.json"));
        inFlightSmallHeap = new Throughput(jmh.resolveSibling("jmh-inflight-1g.json"));
        timeLimits = new TimeLimitReport(jmh);
        durable = new DurableReport(jmh.resolveSibling("durable.jsonl"));
        heartbeat = new HeartbeatReport(jmh.resolveSibling("jmh-heartbeat.json"));
        JsonMapper json = JsonMapper.builder().build();
        for (String line : Files.readAllLines(experimentLines)) {
            if (line.startsWith("{")) {
                JsonNode node = json.readTree(line);
                experiments
                        .computeIfAbsent(node.get("experiment").asString(), e -> new EnumMap<>(Contender.class))
                        .put(Contender.valueOf(node.get("contender").asString()), node);
            }
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: Report JMH_JSON EXPERIMENTS_JSONL DOCS_DIR COMMAND");
        }
        Report report = new Report(Path.of(args[0]), Path.of(args[1]));
        Template template = Template.load();
        report.fill(template, Targets.load(), args[3]);
        String markdown = template.fill();
        Path docs = Path.of(args[2]);
        Files.createDirectories(docs);
        Files.writeString(docs.resolve("benchmarks.svg"), report.chart());
        Files.writeString(docs.resolve("benchmarks.md"), markdown);
        report.timeLimits.writeChart(docs);
        report.durable.writeChart(docs);
    }

    /** "1 thread", "2 threads". */
    static String threads(int n) {
        return n + (n == 1 ? " thread" : " threads");
    }

    /** One row of a targets table: the target, the measured values, and whether it was met. */
    static String targetRow(String target, boolean met, String... values) {
        StringBuilder row = new StringBuilder("| ").append(target);
        for (String value : values) {
            row.append(" | ").append(value);
        }
        return row.append(" | ").append(met ? "yes" : "**no**").append(" |").toString();
    }

    /** One row of a table: its label, then each value as {@link #fmt}. */
    static String row(String label, double... values) {
        StringBuilder row = new StringBuilder("| ").append(label);
        for (double value : values) {
            row.append(" | ").append(fmt(value));
        }
        return row.append(" |").toString();
    }

    private double value(String experiment, Contender contender, String field) {
        Map<Contender, JsonNode> byContender = experiments.get(experiment);
        JsonNode node = byContender == null ? null : byContender.get(contender);
        return node == null || node.get(field) == null
                ? Double.NaN
                : node.get(field).asDouble();
    }

    /** Fills every placeholder of the whole template. */
    private void fill(Template template, Targets targets, String command) {
        template.put("command", command)
                .put("date", LocalDate.now())
                .put("machine", machine())
                .put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"))
                .put("targets-rows", targetRows(targets))
                .put("schedule-cancel-rows", scheduleCancel.rows(ALL, true))
                .put("schedule-cancel-1g-rows", scheduleCancelSmallHeap.rows(ALL, true))
                .put("retained-rows", byContender(c -> value("retained", c, "bytesPerTimeout")))
                .put("cpu-far-rows", byContender(c -> value("cpu-far", c, "workerCpuMillisPerSecond")))
                .put("cpu-far-busy-rows", byContender(c -> value("cpu-far-busy", c, "workerCpuMillisPerSecond")))
                .put("cpu-idle-rows", byContender(c -> value("cpu-idle", c, "workerCpuMillisPerSecond")))
                .put("lateness-rows", latenessRows())
                .put("in-flight-rows", inFlight.rows(WHEELS_AND_NETTY, false))
                .put("in-flight-1g-rows", inFlightSmallHeap.rows(WHEELS_AND_NETTY, false))
                .put("bulk-random-rows", bulkRandomRows())
                .put("phase-rows", phaseRows());
        Contender hier = Contender.WHEEL_HIERARCHICAL;
        template.put(
                        "lateness-cost-rows",
                        "| all ran by (ms) | "
                                + fmt(value("lateness-cost", hier, "allRanMillisWithout"))
                                + " | " + fmt(value("lateness-cost", hier, "allRanMillisWith"))
                                + " | " + fmt(value("lateness-cost", hier, "allRanCostPercent")) + " % |\n"
                                + "| worker busy time (ms) | "
                                + fmt(value("lateness-cost", hier, "expiryMillisWithout"))
                                + " | " + fmt(value("lateness-cost", hier, "expiryMillisWith"))
                                + " | " + fmt(value("lateness-cost", hier, "costPercent")) + " % |")
                .put(
                        "refusals-rows",
                        row(
                                fmt(value("refusals", hier, "refusals")),
                                value("refusals", hier, "failedCounted"),
                                value("refusals", hier, "workerCpuMillis"),
                                value("refusals", hier, "wallMillis"),
                                value("refusals", hier, "secondFloodWorkerCpuMillis")))
                .put("refusals-own-first", fmt(value("refusals-own", hier, "workerCpuMillis")))
                .put("refusals-own-second", fmt(value("refusals-own", hier, "secondFloodWorkerCpuMillis")))
                .put("bulk-rows", byContender(c -> value("bulk", c, "allRanAfterWindowStartMillis")));
        timeLimits.fill(template, targets);
        heartbeat.fill(template, targets, command);
        durable.fill(template, targets, command);
    }

    /** A row per contender: its value and the value × Netty's. */
    private static String byContender(ToDoubleFunction<Contender> value) {
        double netty = value.applyAsDouble(Contender.NETTY);
        StringJoiner rows = new StringJoiner("\n");
        for (Contender c : ALL) {
            double v = value.applyAsDouble(c);
            rows.add("| " + c.label() + " | " + fmt(v) + " | " + ratio(v, netty) + " |");
        }
        return rows.toString();
    }

    private String latenessRows() {
        StringJoiner rows = new StringJoiner("\n");
        for (Contender c : ALL) {
            rows.add(row(
                    c.label(),
                    value("lateness", c, "p50Millis"),
                    value("lateness", c, "p99Millis"),
                    value("lateness", c, "maxMillis"),
                    value("lateness", c, "early")));
        }
        return rows.toString();
    }

    private String bulkRandomRows() {
        double nettyAll = value("bulk-random", Contender.NETTY, "allRanAfterWindowStartMillis");
        StringJoiner rows = new StringJoiner("\n");
        for (Contender c : WHEELS_AND_NETTY) {
            double all = value("bulk-random", c, "allRanAfterWindowStartMillis");
            rows.add("| " + c.label() + " | " + fmt(all) + " | " + ratio(all, nettyAll) + " | "
                    + fmt(value("bulk-random", c, "maxLateTicks")) + " |");
        }
        return rows.toString();
    }

    private String phaseRows() {
        StringJoiner rows = new StringJoiner("\n");
        for (Contender c : new Contender[] {Contender.WHEEL_FLAT, Contender.WHEEL_HIERARCHICAL}) {
            rows.add(row(
                    c.label(),
                    value("bulk-random", c, "takeMillis"),
                    value("bulk-random", c, "cascadeMillis"),
                    value("bulk-random", c, "expireMillis"),
                    value("bulk-random", c, "dispatchMillis"),
                    value("bulk-random", c, "rounds"),
                    value("bulk-random", c, "longestRoundMillis"),
                    value("bulk-random", c, "costliestRoundCpuMillis")));
        }
        return rows.toString();
    }

    /** The main targets table: a column per layout. */
    private String targetRows(Targets targets) {
        Contender flat = Contender.WHEEL_FLAT;
        Contender hier = Contender.WHEEL_HIERARCHICAL;
        Contender netty = Contender.NETTY;
        StringJoiner rows = new StringJoiner("\n");
        scheduleCancel.targetRows(rows, targets.get("schedule-cancel"));

        Targets.Target bytes = targets.get("retained-bytes");
        rows.add(bothLayouts(bytes, "retained", "bytesPerTimeout", "", bytes::met));

        Targets.Target far = targets.get("cpu-far");
        double nettyFar = value("cpu-far", netty, "workerCpuMillisPerSecond");
        double hf = value("cpu-far", hier, "workerCpuMillisPerSecond");
        rows.add(targetRow(
                far.text("netty", fmt(nettyFar)),
                far.met(hf, nettyFar),
                fmt(value("cpu-far", flat, "workerCpuMillisPerSecond")) + " ms/s",
                fmt(hf) + " ms/s"));

        Targets.Target idle = targets.get("cpu-idle");
        rows.add(bothLayouts(idle, "cpu-idle", "workerCpuMillisPerSecond", " ms/s", (v, n) -> idle.met(v)));

        Targets.Target early = targets.get("fired-early");
        double fe = value("lateness", flat, "early");
        double he = value("lateness", hier, "early");
        rows.add(targetRow(early.text(), early.met(fe) && early.met(he), fmt(fe), fmt(he)));

        Targets.Target bulk = targets.get("bulk");
        rows.add(bothLayouts(bulk, "bulk", "allRanAfterWindowStartMillis", " ms", bulk::met));

        inFlight.targetRows(rows, targets.get("in-flight"));

        Targets.Target all = targets.get("random-bulk-all");
        rows.add(bothLayouts(all, "bulk-random", "allRanAfterWindowStartMillis", " ms", (v, n) -> all.met(v / n - 1)));

        Targets.Target late = targets.get("random-bulk-late");
        rows.add(bothLayouts(late, "bulk-random", "maxLateTicks", "", (v, n) -> late.met(v)));

        Targets.Target round = targets.get("random-bulk-round");
        double longest = value("bulk-random", hier, "longestRoundMillis");
        rows.add(targetRow(
                round.text(),
                round.met(longest),
                fmt(value("bulk-random", flat, "longestRoundMillis")) + " ms ("
                        + fmt(value("bulk-random", flat, "costliestRoundCpuMillis")) + ")",
                fmt(longest) + " ms (" + fmt(value("bulk-random", hier, "costliestRoundCpuMillis")) + ")"));

        Targets.Target lateness = targets.get("lateness-cost");
        double cost = value("lateness-cost", hier, "allRanCostPercent");
        rows.add(targetRow(
                lateness.text("busy", fmt(value("lateness-cost", hier, "costPercent"))),
                lateness.met(cost),
                "–",
                fmt(cost) + " %"));

        Targets.Target refusals = targets.get("refusals");
        double refused = value("refusals", hier, "workerCpuMillis");
        double refusedWhileRunning = value("refusals-own", hier, "workerCpuMillis");
        rows.add(targetRow(
                refusals.text("own", fmt(refusedWhileRunning)),
                refusals.met(refused) && refusals.met(refusedWhileRunning),
                "–",
                fmt(refused) + " ms"));
        return rows.toString();
    }

    /**
     * A row of a target that both layouts must meet: {@code met} judges each one's value of {@code field} in
     * {@code experiment} against Netty's, which the target's text names; the values are shown with {@code unit}.
     */
    private String bothLayouts(
            Targets.Target target, String experiment, String field, String unit, BiPredicate<Double, Double> met) {
        double netty = value(experiment, Contender.NETTY, field);
        double flat = value(experiment, Contender.WHEEL_FLAT, field);
        double hier = value(experiment, Contender.WHEEL_HIERARCHICAL, field);
        return targetRow(
                target.text("netty", fmt(netty)),
                met.test(flat, netty) && met.test(hier, netty),
                fmt(flat) + unit,
                fmt(hier) + unit);
    }

    /** A grouped bar chart of the throughput table, as SVG: per contender, 1 and 2 threads at each tick. */
    private String chart() {
        String[] groups = new String[ALL.length];
        double[][] values = new double[ALL.length][];
        for (int g = 0; g < ALL.length; g++) {
            groups[g] = ALL[g].label().replace("ScheduledThreadPoolExecutor", "STPE");
            double[] ops100 = scheduleCancel.ops(TICKS[0], ALL[g]);
            double[] ops1 = scheduleCancel.ops(TICKS[1], ALL[g]);
            values[g] = new double[] {ops100[0], ops100[1], ops1[0], ops1[1]};
        }
        return Charts.bars(
                760,
                380,
                310,
                10,
                "Schedule-then-cancel throughput (ops/µs, higher is better)",
                groups,
                new String[] {
                    "1 thread, 100 ms tick", "2 threads, 100 ms tick", "1 thread, 1 ms tick", "2 threads, 1 ms tick"
                },
                new String[] {"#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d"},
                values);
    }

    static String machine() {
        String cpu = "unknown CPU";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse(cpu);
        } catch (IOException | RuntimeException e) {
            // not Linux: leave it unknown
        }
        return Runtime.getRuntime().availableProcessors() + " cores, " + cpu + ", " + System.getProperty("os.name")
                + " " + System.getProperty("os.version");
    }

    static String x(double ratio) {
        return fmt(ratio) + " ×";
    }

    static String ratio(double value, double netty) {
        return Double.isNaN(value) || Double.isNaN(netty) || netty == 0 ? "–" : fmt(value / netty);
    }

    static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "–";
        }
        double abs = Math.abs(v);
        String pattern = abs >= 100 ? "%.0f" : abs >= 10 ? "%.1f" : abs >= 0.1 || abs == 0 ? "%.2f" : "%.4f";
        return String.format(Locale.ROOT, pattern, v);
    }
}
