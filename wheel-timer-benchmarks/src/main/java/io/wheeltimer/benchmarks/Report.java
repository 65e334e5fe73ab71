package io.wheeltimer.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes {@code docs/benchmarks.md} and the chart {@code docs/benchmarks.svg} from JMH's JSON
 * results and the {@link Experiments} lines: {@code Report JMH_JSON EXPERIMENTS_JSONL DOCS_DIR COMMAND}.
 */
public final class Report {

    private static final Contender[] ALL = Contender.values();

    /** The ticks the throughput benchmark runs with, in milliseconds: the default first. */
    private static final int[] TICKS = {100, 1};

    /** By tick (ms), then contender: ops/us with 1 and 2 threads. */
    private final Map<Integer, Map<Contender, double[]>> throughput = new java.util.HashMap<>();
    /** By tick (ms), then contender: B/op with 1 and 2 threads. */
    private final Map<Integer, Map<Contender, double[]>> allocation = new java.util.HashMap<>();

    private final Map<String, Map<Contender, JsonNode>> experiments = new java.util.HashMap<>();
    private final List<String[]> targets = new ArrayList<>();
    private Path jmhResults;
    /** Durable timeouts against db-scheduler, from durable.jsonl beside the JMH results if it is there. */
    private DurableReport durable;

    /** WheelTaskScheduler against ThreadPoolTaskScheduler, from jmh-heartbeat.json beside the JMH results. */
    private HeartbeatReport heartbeat;

    private Report() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: Report JMH_JSON EXPERIMENTS_JSONL DOCS_DIR COMMAND");
        }
        Report report = new Report();
        report.readJmh(Path.of(args[0]));
        report.readExperiments(Path.of(args[1]));
        Path docs = Path.of(args[2]);
        Files.createDirectories(docs);
        Files.writeString(docs.resolve("benchmarks.svg"), report.chart());
        Files.writeString(docs.resolve("benchmarks.md"), report.markdown(args[3]));
        new TimeLimitReport(Path.of(args[0])).writeChart(docs);
        report.durable.writeChart(docs);
    }

    private void readJmh(Path file) throws IOException {
        jmhResults = file;
        durable = new DurableReport(file.resolveSibling("durable.jsonl"));
        heartbeat = new HeartbeatReport(file.resolveSibling("jmh-heartbeat.json"));
        JsonMapper json = JsonMapper.builder().build();
        Path inFlightFile = file.resolveSibling("jmh-inflight.json");
        if (Files.exists(inFlightFile)) {
            readInFlight(json.readTree(inFlightFile.toFile()));
        }
        for (JsonNode run : json.readTree(file.toFile())) {
            if (!run.get("benchmark").asString().contains("ScheduleCancelBenchmark")) {
                continue; // another benchmark's results, read by its own section
            }
            Contender contender =
                    Contender.valueOf(run.get("params").get("contender").asString());
            int tick = run.get("params").get("tickMillis").asInt();
            int column = run.get("benchmark").asString().endsWith("oneThread") ? 0 : 1;
            cell(throughput, tick, contender)[column] =
                    run.get("primaryMetric").get("score").asDouble();
            JsonNode secondary = run.get("secondaryMetrics");
            JsonNode norm = secondary.has("gc.alloc.rate.norm")
                    ? secondary.get("gc.alloc.rate.norm")
                    : secondary.get("·gc.alloc.rate.norm"); // the name before JMH 1.37
            cell(allocation, tick, contender)[column] =
                    norm == null ? Double.NaN : norm.get("score").asDouble();
        }
    }

    private static double[] cell(Map<Integer, Map<Contender, double[]>> table, int tick, Contender contender) {
        return table.computeIfAbsent(tick, t -> new EnumMap<>(Contender.class))
                .computeIfAbsent(contender, c -> new double[] {Double.NaN, Double.NaN});
    }

    private void readExperiments(Path file) throws IOException {
        JsonMapper json = JsonMapper.builder().build();
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith("{")) {
                JsonNode node = json.readTree(line);
                experiments
                        .computeIfAbsent(node.get("experiment").asString(), e -> new EnumMap<>(Contender.class))
                        .put(Contender.valueOf(node.get("contender").asString()), node);
            }
        }
    }

    private double value(String experiment, Contender contender, String field) {
        Map<Contender, JsonNode> byContender = experiments.get(experiment);
        JsonNode node = byContender == null ? null : byContender.get(contender);
        return node == null || node.get(field) == null
                ? Double.NaN
                : node.get(field).asDouble();
    }

    private String markdown(String command) {
        TimeLimitReport timeLimits = readTimeLimits();
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks\n\n")
                .append("wheel-timer (flat and hierarchical layouts) side by side with Netty's `HashedWheelTimer` ")
                .append("(netty-common 4.2.18.Final) and the JDK's `ScheduledThreadPoolExecutor` (one thread, ")
                .append("remove-on-cancel), in one run. Generated by `Report` from the JMH JSON results and the ")
                .append("measurements of `Experiments`; do not edit by hand.\n\n")
                .append("- Command: `")
                .append(command)
                .append("`\n")
                .append("- Date: ")
                .append(LocalDate.now())
                .append('\n')
                .append("- Machine: ")
                .append(machine())
                .append('\n')
                .append("- JDK: ")
                .append(System.getProperty("java.vm.name"))
                .append(' ')
                .append(System.getProperty("java.runtime.version"))
                .append("\n\n");

        StringBuilder sections = new StringBuilder();
        sections.append("## Schedule-then-cancel throughput\n\n")
                .append("A 30 s timeout scheduled and cancelled at once (the request-timeout pattern), 512 buckets, ")
                .append("the default 100 ms tick and a 1 ms tick (the JDK executor has no tick: the same run twice); ")
                .append("JMH throughput, higher is better; allocation per operation from `-prof gc` ")
                .append("(`gc.alloc.rate.norm`), including the 16-byte task lambda every contender gets.\n\n")
                .append(
                        "| timer | tick | 1 thread (ops/µs) | × Netty | 2 threads (ops/µs) | × Netty | B/op, 1 thread | B/op, 2 threads |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int tick : TICKS) {
            for (Contender c : ALL) {
                double[] ops = cell(throughput, tick, c);
                double[] bytes = cell(allocation, tick, c);
                sections.append("| ")
                        .append(c.label())
                        .append(" | ")
                        .append(tick)
                        .append(" ms")
                        .append(" | ")
                        .append(fmt(ops[0]))
                        .append(" | ")
                        .append(ratio(ops[0], throughput(tick, Contender.NETTY, 0)))
                        .append(" | ")
                        .append(fmt(ops[1]))
                        .append(" | ")
                        .append(ratio(ops[1], throughput(tick, Contender.NETTY, 1)))
                        .append(" | ")
                        .append(fmt(bytes[0]))
                        .append(" | ")
                        .append(fmt(bytes[1]))
                        .append(" |\n");
            }
        }
        sections.append("\n![Schedule-then-cancel throughput](benchmarks.svg)\n\n");

        table(
                sections,
                "Bytes retained per pending timeout",
                "1,000,000 one-hour timeouts pending, heap used after GC (Serial GC) less the heap before; "
                        + "100 ms tick, 512 buckets; lower is better.",
                "bytes per timeout",
                c -> value("retained", c, "bytesPerTimeout"));
        table(
                sections,
                "Worker CPU while 1,000,000 one-hour timeouts wait",
                "CPU time of the timer's thread over 10 s, 3 s after scheduling; 1 ms tick, 512 buckets; lower is better.",
                "ms CPU per second",
                c -> value("cpu-far", c, "workerCpuMillisPerSecond"));
        table(
                sections,
                "Worker CPU while 1,000,000 one-hour timeouts wait and a 1 ms timeout fires every tick",
                "As above, plus a timeout that reschedules itself every millisecond, so the worker must wake on "
                        + "every tick: the cost of a busy tick with far timeouts pending. This is where the layouts "
                        + "differ: flat looks at each far timeout once per rotation (512 ms), hierarchical leaves them "
                        + "in overflow wheels. Lower is better.",
                "ms CPU per second",
                c -> value("cpu-far-busy", c, "workerCpuMillisPerSecond"));
        table(
                sections,
                "Worker CPU with nothing pending",
                "CPU time of the timer's thread over 10 s after its only timeout was cancelled; 1 ms tick; lower is better.",
                "ms CPU per second",
                c -> value("cpu-idle", c, "workerCpuMillisPerSecond"));

        sections.append("## Firing lateness\n\n")
                .append(
                        "100,000 timeouts with delays spread over 5 s, 1 ms tick: how long after its deadline each ran ")
                .append("(negative: early).\n\n")
                .append("| timer | p50 (ms) | p99 (ms) | max (ms) | fired early |\n|---|---:|---:|---:|---:|\n");
        for (Contender c : ALL) {
            sections.append("| ")
                    .append(c.label())
                    .append(" | ")
                    .append(fmt(value("lateness", c, "p50Millis")))
                    .append(" | ")
                    .append(fmt(value("lateness", c, "p99Millis")))
                    .append(" | ")
                    .append(fmt(value("lateness", c, "maxMillis")))
                    .append(" | ")
                    .append(fmt(value("lateness", c, "early")))
                    .append(" |\n");
        }
        sections.append('\n');
        inFlightAndRandomBulkSections(sections);
        table(
                sections,
                "Bulk expiry",
                "1,000,000 timeouts due within the same 100 ms window, 1 ms tick: time from the window's start "
                        + "until all have run (100 ms at best); lower is better.",
                "ms until all ran",
                c -> value("bulk", c, "allRanAfterWindowStartMillis"));

        timeLimits.sections(sections);
        headline(md);
        timeLimits.targets(md);
        heartbeat.section(sections, command);
        durable.section(sections, command);
        md.append(sections);
        md.append("## Reproduce\n\n```\n")
                .append(command)
                .append("\n```\n\n")
                .append(
                        "It builds the module, runs the JMH benchmarks `TimeLimitBenchmark`, `TimeLimitFloorBenchmark`, ")
                .append("`ScheduleCancelBenchmark`, `InFlightBenchmark` and `HeartbeatBenchmark` (with `-prof gc`) ")
                .append("and each ")
                .append("`TimeLimitExperiments` and `Experiments` measurement in a fresh JVM per timer, and each ")
                .append("`DurableExperiments` measurement (durable timeouts against db-scheduler, on an embedded ")
                .append("PostgreSQL) in a fresh JVM, then this report. About 45 minutes on 2 cores, 25 of them for ")
                .append("the durable section; `ONLY=durable wheel-timer-benchmarks/run-benchmarks.sh` runs that ")
                .append("section alone and puts it into this file in place of the one here, and ")
                .append("`ONLY=heartbeat` the `TaskScheduler` section. ")
                .append("Numbers from a shared 2-core machine are noisy: compare ratios within one run, not across ")
                .append("runs.\n");
        return md.toString();
    }

    /** Beside the main JMH results, if run-benchmarks.sh ran the time-limit benchmarks too. */
    private TimeLimitReport readTimeLimits() {
        try {
            return new TimeLimitReport(jmhResults);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private double throughput(int tick, Contender c, int column) {
        return cell(throughput, tick, c)[column];
    }

    private void headline(StringBuilder md) {
        Contender flat = Contender.WHEEL_FLAT;
        Contender hier = Contender.WHEEL_HIERARCHICAL;
        md.append("## Targets\n\n| target | flat | hierarchical | met |\n|---|---:|---:|:---:|\n");
        for (int tick : TICKS) {
            for (int column = 0; column < 2; column++) {
                double netty = throughput(tick, Contender.NETTY, column);
                double f = throughput(tick, flat, column) / netty;
                double h = throughput(tick, hier, column) / netty;
                row(
                        md,
                        "schedule-then-cancel, " + (column + 1) + (column == 0 ? " thread" : " threads") + ", " + tick
                                + " ms tick: ≥ 1.5 × Netty",
                        x(f),
                        x(h),
                        f >= 1.5 && h >= 1.5);
            }
        }
        double nettyBytes = value("retained", Contender.NETTY, "bytesPerTimeout");
        double fb = value("retained", flat, "bytesPerTimeout");
        double hb = value("retained", hier, "bytesPerTimeout");
        row(
                md,
                "bytes per pending timeout: ≤ Netty's (" + fmt(nettyBytes) + ")",
                fmt(fb),
                fmt(hb),
                fb <= nettyBytes && hb <= nettyBytes);
        double nettyFar = value("cpu-far", Contender.NETTY, "workerCpuMillisPerSecond");
        double hf = value("cpu-far", hier, "workerCpuMillisPerSecond");
        row(
                md,
                "worker CPU, 1M far timeouts: hierarchical ≤ 1/10 of Netty's (" + fmt(nettyFar) + " ms/s)",
                fmt(value("cpu-far", flat, "workerCpuMillisPerSecond")) + " ms/s",
                fmt(hf) + " ms/s",
                hf <= nettyFar / 10);
        double fi = value("cpu-idle", flat, "workerCpuMillisPerSecond");
        double hi = value("cpu-idle", hier, "workerCpuMillisPerSecond");
        row(
                md,
                "idle worker CPU: close to zero (< 0.1 ms/s; Netty "
                        + fmt(value("cpu-idle", Contender.NETTY, "workerCpuMillisPerSecond")) + " ms/s)",
                fmt(fi) + " ms/s",
                fmt(hi) + " ms/s",
                fi < 0.1 && hi < 0.1);
        double fe = value("lateness", flat, "early");
        double he = value("lateness", hier, "early");
        row(md, "fired early: 0", fmt(fe), fmt(he), fe == 0 && he == 0);
        double nettyBulk = value("bulk", Contender.NETTY, "allRanAfterWindowStartMillis");
        double fk = value("bulk", flat, "allRanAfterWindowStartMillis");
        double hk = value("bulk", hier, "allRanAfterWindowStartMillis");
        row(
                md,
                "bulk expiry: no slower than Netty (" + fmt(nettyBulk) + " ms)",
                fmt(fk) + " ms",
                fmt(hk) + " ms",
                fk <= nettyBulk && hk <= nettyBulk);
        inFlightAndRandomBulkTargets(md);
        md.append('\n');
    }

    private static void row(StringBuilder md, String target, String flat, String hierarchical, boolean met) {
        md.append("| ")
                .append(target)
                .append(" | ")
                .append(flat)
                .append(" | ")
                .append(hierarchical)
                .append(" | ")
                .append(met ? "yes" : "**no**")
                .append(" |\n");
    }

    private static void table(
            StringBuilder md, String title, String how, String unit, ToDoubleFunction<Contender> value) {
        double netty = value.applyAsDouble(Contender.NETTY);
        md.append("## ")
                .append(title)
                .append("\n\n")
                .append(how)
                .append("\n\n")
                .append("| timer | ")
                .append(unit)
                .append(" | × Netty |\n|---|---:|---:|\n");
        for (Contender c : ALL) {
            double v = value.applyAsDouble(c);
            md.append("| ")
                    .append(c.label())
                    .append(" | ")
                    .append(fmt(v))
                    .append(" | ")
                    .append(ratio(v, netty))
                    .append(" |\n");
        }
        md.append('\n');
    }

    /** A grouped bar chart of the throughput table, as SVG: per contender, 1 and 2 threads at each tick. */
    private String chart() {
        int width = 760;
        int height = 380;
        int left = 70;
        int bottom = 310;
        int top = 40;
        String[] series = {
            "1 thread, 100 ms tick", "2 threads, 100 ms tick", "1 thread, 1 ms tick", "2 threads, 1 ms tick"
        };
        String[] colours = {"#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d"};
        double max = 0;
        for (Contender c : ALL) {
            for (int k = 0; k < series.length; k++) {
                double v = throughput(TICKS[k / 2], c, k % 2);
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
                "<text x=\"%d\" y=\"22\" font-size=\"15\">Schedule-then-cancel throughput "
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
                    fmt(max * i / 4)));
        }
        int group = (width - left - 20) / ALL.length;
        int bar = (group - 20) / series.length;
        for (int g = 0; g < ALL.length; g++) {
            for (int k = 0; k < series.length; k++) {
                double v = throughput(TICKS[k / 2], ALL[g], k % 2);
                v = Double.isNaN(v) ? 0 : v;
                int h = (int) ((bottom - top) * v / max);
                int x = left + g * group + 10 + k * bar;
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
                        fmt(v)));
            }
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    left + g * group + group / 2,
                    bottom + 18,
                    ALL[g].label().replace("ScheduledThreadPoolExecutor", "STPE")));
        }
        Report.legend(svg, series, colours, left, 170, height);
        return svg.append("</svg>\n").toString();
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

    private static String x(double ratio) {
        return fmt(ratio) + " ×";
    }

    private static String ratio(double value, double netty) {
        return Double.isNaN(value) || Double.isNaN(netty) || netty == 0 ? "–" : fmt(value / netty);
    }

    /** The legend under a chart: a colour swatch and the name of each series, {@code spacing} apart. */
    static void legend(StringBuilder svg, String[] series, String[] colours, int left, int spacing, int height) {
        for (int k = 0; k < series.length; k++) {
            int x = left + k * spacing;
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
                    x,
                    height - 30,
                    colours[k]));
            svg.append(
                    String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", x + 16, height - 20, series[k]));
        }
    }

    static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "–";
        }
        double abs = Math.abs(v);
        String pattern = abs >= 100 ? "%.0f" : abs >= 10 ? "%.1f" : abs >= 0.1 || abs == 0 ? "%.2f" : "%.4f";
        return String.format(Locale.ROOT, pattern, v);
    }

    // --- in-flight traffic, random-order bulk, phase profile, lateness cost, refusals ---------

    /** The in-flight contenders: the JDK executor has no tick and is not compared here. */
    private static final Contender[] WHEELS_AND_NETTY = {
        Contender.WHEEL_FLAT, Contender.WHEEL_HIERARCHICAL, Contender.NETTY
    };

    /** InFlightBenchmark, by tick (ms), then contender: ops/us with 1 and 2 threads. */
    private final Map<Integer, Map<Contender, double[]>> inFlight = new java.util.HashMap<>();

    private void readInFlight(JsonNode runs) {
        for (JsonNode run : runs) {
            Contender contender =
                    Contender.valueOf(run.get("params").get("contender").asString());
            int tick = run.get("params").get("tickMillis").asInt();
            int column = run.get("benchmark").asString().endsWith("oneThread") ? 0 : 1;
            cell(inFlight, tick, contender)[column] =
                    run.get("primaryMetric").get("score").asDouble();
        }
    }

    private void inFlightAndRandomBulkSections(StringBuilder md) {
        md.append("## In-flight request traffic\n\n")
                .append("Each thread keeps 1,000 thirty-second timeouts outstanding: an operation schedules one and ")
                .append("cancels the one the same thread scheduled 1,000 operations earlier (`InFlightBenchmark`), so ")
                .append("cancels hit timeouts already in the wheel; 512 buckets; JMH throughput, higher is better.\n\n")
                .append("| timer | tick | 1 thread (ops/µs) | × Netty | 2 threads (ops/µs) | × Netty |\n")
                .append("|---|---:|---:|---:|---:|---:|\n");
        for (int tick : TICKS) {
            double[] netty = cell(inFlight, tick, Contender.NETTY);
            for (Contender c : WHEELS_AND_NETTY) {
                double[] ops = cell(inFlight, tick, c);
                md.append("| ")
                        .append(c.label())
                        .append(" | ")
                        .append(tick)
                        .append(" ms | ")
                        .append(fmt(ops[0]))
                        .append(" | ")
                        .append(ratio(ops[0], netty[0]))
                        .append(" | ")
                        .append(fmt(ops[1]))
                        .append(" | ")
                        .append(ratio(ops[1], netty[1]))
                        .append(" |\n");
            }
        }
        md.append("\n## Bulk expiry, deadlines in random order\n\n")
                .append("1,000,000 timeouts, each deadline drawn at random within one 100 ms window that opens 5 s ")
                .append("ahead, scheduled in that random order, one shared no-op task, 1 ms tick, 512 buckets ")
                .append(
                        "(`Experiments bulk-random`). All ran by: from the window's start (100 ms at best). Latest: how ")
                .append("late the worst timeout ran, in ticks (every 64th run is timed against the deadline of the ")
                .append("same rank). Lower is better. Each timer first runs an unmeasured warm-up (400,000 due ")
                .append("over 2 s, then 1,000,000 in 100 ms, the same way), so that the JIT has compiled its expiry ")
                .append("path, as in a service that has been running; cold, the first ticks of the window run ")
                .append("interpreted and ")
                .append("every timer falls tens of ticks behind there.\n\n")
                .append("| timer | all ran by (ms) | × Netty | latest (ticks) |\n|---|---:|---:|---:|\n");
        double nettyAll = value("bulk-random", Contender.NETTY, "allRanAfterWindowStartMillis");
        for (Contender c : WHEELS_AND_NETTY) {
            double all = value("bulk-random", c, "allRanAfterWindowStartMillis");
            md.append("| ")
                    .append(c.label())
                    .append(" | ")
                    .append(fmt(all))
                    .append(" | ")
                    .append(ratio(all, nettyAll))
                    .append(" | ")
                    .append(fmt(value("bulk-random", c, "maxLateTicks")))
                    .append(" |\n");
        }
        md.append("\n### Where the worker's time went\n\n")
                .append(
                        "The same run (the measured 1,000,000), the wheel's worker time per phase of its rounds (System.nanoTime around each ")
                .append("phase): **take** the hand-off stacks into the wheel (during scheduling, before the window), ")
                .append("**cascade** overflow buckets down (including the bounded pre-cascade of the next block), ")
                .append(
                        "**expire** take the due entries out of their bucket (and, up to 100 ms before a long sleep ends, read ")
                .append("the first due ahead: `docs/design.md`, waking warm), **dispatch** run their tasks; and the ")
                .append("worker's longest single round, in wall time (it includes any time the 2-core machine gave ")
                .append("the worker's core to another thread: the producer, the JIT) and in the worker's own CPU time ")
                .append("(the costliest round, read with `ThreadMXBean` on the worker).\n\n")
                .append(
                        "| timer | take (ms) | cascade (ms) | expire (ms) | dispatch (ms) | rounds | longest round (ms) | costliest round, CPU (ms) |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Contender c : new Contender[] {Contender.WHEEL_FLAT, Contender.WHEEL_HIERARCHICAL}) {
            md.append("| ").append(c.label());
            for (String field : new String[] {
                "takeMillis",
                "cascadeMillis",
                "expireMillis",
                "dispatchMillis",
                "rounds",
                "longestRoundMillis",
                "costliestRoundCpuMillis"
            }) {
                md.append(" | ").append(fmt(value("bulk-random", c, field)));
            }
            md.append(" |\n");
        }
        Contender hier = Contender.WHEEL_HIERARCHICAL;
        md.append("\n## Cost of recording lateness\n\n")
                .append(
                        "1,000,000 timeouts due within 100 ms (in order), hierarchical layout, 1 ms tick: the worker's ")
                .append("busy time (cascade + expire + dispatch) without a `LatenessListener` and with one that ")
                .append("records into a Micrometer `Timer` (as the starter's `wheel.timer.lateness`); best of three ")
                .append("alternating passes each (`Experiments lateness-cost`); and, for the same passes, the time ")
                .append("from the window's start until all ran (the expiry throughput over the window).\n\n")
                .append("| | without | with | cost |\n|---|---:|---:|---:|\n")
                .append("| all ran by (ms) | ")
                .append(fmt(value("lateness-cost", hier, "allRanMillisWithout")))
                .append(" | ")
                .append(fmt(value("lateness-cost", hier, "allRanMillisWith")))
                .append(" | ")
                .append(fmt(value("lateness-cost", hier, "allRanCostPercent")))
                .append(" % |\n")
                .append("| worker busy time (ms) | ")
                .append(fmt(value("lateness-cost", hier, "expiryMillisWithout")))
                .append(" | ")
                .append(fmt(value("lateness-cost", hier, "expiryMillisWith")))
                .append(" | ")
                .append(fmt(value("lateness-cost", hier, "costPercent")))
                .append(" % |\n\n");
        md.append("## A flood of executor refusals\n\n")
                .append(
                        "20,000 timeouts due at once, each refused by the task executor (a shut-down pool), hierarchical ")
                .append("layout (`Experiments refusals`): the worker's CPU time for them, logging included (the first ")
                .append(
                        "refusal is logged with its stack trace, the rest counted). The pool is asked once: a shut-down ")
                .append(
                        "`ExecutorService` takes no new task, so once it refused, the rest are counted as refused without ")
                .append("building its `RejectedExecutionException` (with a stack trace) 20,000 times.\n\n")
                .append("Then a second flood of 20,000, with the code warm and the first line already logged.\n\n")
                .append(
                        "| refusals per flood | counted as failed (both) | worker CPU, first flood (ms) | wall time, first flood (ms) | worker CPU, second flood (ms) |\n")
                .append("|---:|---:|---:|---:|---:|\n")
                .append("| ")
                .append(fmt(value("refusals", hier, "refusals")))
                .append(" | ")
                .append(fmt(value("refusals", hier, "failedCounted")))
                .append(" | ")
                .append(fmt(value("refusals", hier, "workerCpuMillis")))
                .append(" | ")
                .append(fmt(value("refusals", hier, "wallMillis")))
                .append(" | ")
                .append(fmt(value("refusals", hier, "secondFloodWorkerCpuMillis")))
                .append(" |\n\n")
                .append("An executor that refuses while it runs is offered every task: with one whose refusal costs ")
                .append(
                        "nothing (it throws one prepared exception; `Experiments refusals-own`), the timer's own cost is ")
                .append(fmt(value("refusals-own", hier, "workerCpuMillis")))
                .append(" ms for the first flood, ")
                .append(fmt(value("refusals-own", hier, "secondFloodWorkerCpuMillis")))
                .append(" ms for the second.\n\n");
    }

    private void inFlightAndRandomBulkTargets(StringBuilder md) {
        Contender flat = Contender.WHEEL_FLAT;
        Contender hier = Contender.WHEEL_HIERARCHICAL;
        for (int tick : TICKS) {
            for (int column = 0; column < 2; column++) {
                double netty = cell(inFlight, tick, Contender.NETTY)[column];
                double f = cell(inFlight, tick, flat)[column] / netty;
                double h = cell(inFlight, tick, hier)[column] / netty;
                row(
                        md,
                        "in-flight traffic, " + (column + 1) + (column == 0 ? " thread" : " threads") + ", " + tick
                                + " ms tick: ≥ 1.3 × Netty",
                        x(f),
                        x(h),
                        f >= 1.3 && h >= 1.3);
            }
        }
        double nettyAll = value("bulk-random", Contender.NETTY, "allRanAfterWindowStartMillis");
        double fa = value("bulk-random", flat, "allRanAfterWindowStartMillis");
        double ha = value("bulk-random", hier, "allRanAfterWindowStartMillis");
        row(
                md,
                "random-order bulk: all ran within 5 % of Netty's time (" + fmt(nettyAll) + " ms)",
                fmt(fa) + " ms",
                fmt(ha) + " ms",
                fa <= nettyAll * 1.05 && ha <= nettyAll * 1.05);
        double fl = value("bulk-random", flat, "maxLateTicks");
        double hl = value("bulk-random", hier, "maxLateTicks");
        row(
                md,
                "random-order bulk: none late by more than 2 ticks (Netty "
                        + fmt(value("bulk-random", Contender.NETTY, "maxLateTicks")) + ")",
                fmt(fl),
                fmt(hl),
                fl <= 2 && hl <= 2);
        double round = value("bulk-random", hier, "longestRoundMillis");
        row(
                md,
                "random-order bulk: the worker's longest round ≤ 5 ms (hierarchical; wall time, and in brackets "
                        + "the costliest round's CPU time)",
                fmt(value("bulk-random", flat, "longestRoundMillis")) + " ms ("
                        + fmt(value("bulk-random", flat, "costliestRoundCpuMillis")) + ")",
                fmt(round) + " ms (" + fmt(value("bulk-random", hier, "costliestRoundCpuMillis")) + ")",
                round <= 5);
        double cost = value("lateness-cost", hier, "allRanCostPercent");
        row(
                md,
                "recording lateness into a Micrometer Timer costs ≤ 5 % of expiry throughput (1M due in 100 ms; "
                        + "worker busy time: +" + fmt(value("lateness-cost", hier, "costPercent")) + " %)",
                "–",
                fmt(cost) + " %",
                cost <= 5);
        double refusals = value("refusals", hier, "workerCpuMillis");
        double refusalsWhileRunning = value("refusals-own", hier, "workerCpuMillis");
        row(
                md,
                "20,000 executor refusals cost the worker < 100 ms (a shut-down pool; an executor refusing while it runs: "
                        + fmt(refusalsWhileRunning) + " ms)",
                "–",
                fmt(refusals) + " ms",
                refusals < 100 && refusalsWhileRunning < 100);
    }
}
