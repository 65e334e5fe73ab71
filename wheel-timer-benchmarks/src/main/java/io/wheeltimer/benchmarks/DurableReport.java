package io.wheeltimer.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The durable-timeouts part of the benchmark report: durable timeouts against db-scheduler, from the
 * {@link DurableExperiments} lines in {@code durable.jsonl}. {@link Report} includes it when that file lies
 * beside the main JMH results. Run on its own, {@code DurableReport DURABLE_JSONL DOCS_DIR COMMAND} puts the
 * section into an existing {@code benchmarks.md}, in place of the one there (between its markers), or
 * before "Reproduce" if it has none, and writes the chart {@code benchmarks-durable.svg}; the rest of the
 * report is left as it is.
 */
final class DurableReport {

    static final String START = "<!-- durable timeouts: start -->";
    static final String END = "<!-- durable timeouts: end -->";
    static final String CHART = "benchmarks-durable.svg";

    private static final DurableContender[] ALL = DurableContender.values();
    private static final DurableContender DURABLE = DurableContender.DURABLE;
    private static final DurableContender DEFAULTS = DurableContender.DB_SCHEDULER;
    private static final DurableContender TUNED = DurableContender.DB_SCHEDULER_TUNED;

    private final Map<String, Map<DurableContender, JsonNode>> results = new HashMap<>();
    private final boolean present;
    private boolean quick;

    DurableReport(Path lines) throws IOException {
        present = Files.exists(lines);
        if (!present) {
            return;
        }
        JsonMapper json = JsonMapper.builder().build();
        for (String line : Files.readAllLines(lines)) {
            if (line.startsWith("{")) {
                JsonNode node = json.readTree(line);
                results.computeIfAbsent(node.get("experiment").asString(), e -> new EnumMap<>(DurableContender.class))
                        .put(DurableContender.valueOf(node.get("contender").asString()), node);
                quick |= node.has("quick") && node.get("quick").asBoolean();
            }
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: DurableReport DURABLE_JSONL DOCS_DIR COMMAND");
        }
        DurableReport report = new DurableReport(Path.of(args[0]));
        if (!report.present) {
            throw new IllegalArgumentException("no results at " + args[0] + ": run the durable section first");
        }
        Path docs = Path.of(args[1]);
        Path markdown = docs.resolve("benchmarks.md");
        String existing = Files.exists(markdown) ? Files.readString(markdown) : "# Benchmarks\n\n";
        StringBuilder section = new StringBuilder();
        report.section(section, args[2]);
        Files.writeString(markdown, splice(existing, section.toString()));
        report.writeChart(docs);
    }

    /** {@code markdown} with {@code section} in place of the one between the markers, or before "Reproduce". */
    static String splice(String markdown, String section) {
        return splice(markdown, START, END, section);
    }

    /**
     * {@code markdown} with {@code section} in place of the one between {@code startMarker} and
     * {@code endMarker}, or before "Reproduce" if there is none.
     */
    static String splice(String markdown, String startMarker, String endMarker, String section) {
        int start = markdown.indexOf(startMarker);
        int end = markdown.indexOf(endMarker);
        if (start >= 0 && end > start) {
            String after = markdown.substring(end + endMarker.length());
            return markdown.substring(0, start) + section + (after.startsWith("\n") ? after.substring(1) : after);
        }
        int reproduce = markdown.indexOf("## Reproduce\n");
        return reproduce < 0
                ? markdown + section
                : markdown.substring(0, reproduce) + section + markdown.substring(reproduce);
    }

    boolean present() {
        return present;
    }

    private double value(String experiment, DurableContender contender, String field) {
        Map<DurableContender, JsonNode> byContender = results.get(experiment);
        JsonNode node = byContender == null ? null : byContender.get(contender);
        return node == null || node.get(field) == null
                ? Double.NaN
                : node.get(field).asDouble();
    }

    /** The whole section, between its markers; nothing if there are no results. */
    void section(StringBuilder md, String command) {
        if (!present) {
            return;
        }
        md.append(START)
                .append("\n## Durable timeouts against db-scheduler\n\n")
                .append("Business deadlines kept in PostgreSQL: durable timeouts (`JdbcDurableTimer`) side by side ")
                .append("with db-scheduler 16.7.1 (`com.github.kagkarlsson:db-scheduler`), with its defaults and ")
                .append("tuned for low latency as its README advises, in one run (`DurableExperiments`, one JVM per ")
                .append("measurement). Each measurement starts the embedded PostgreSQL of `wheel-timer-test-postgres` ")
                .append("(the same binaries and settings every time, `fsync` off), creates a fresh database and the ")
                .append("contender's table (the durable timer's shipped `schema-postgresql.sql`; db-scheduler's ")
                .append("`scheduled_tasks` as its documentation gives it for PostgreSQL), and reaches it through a ")
                .append("HikariCP pool of ")
                .append(DurableExperiments.POOL_SIZE)
                .append(" connections and Spring's `DataSourceTransactionManager`. Every schedule and every ")
                .append("cancel runs in a transaction of its own, as an application's would (db-scheduler on ")
                .append("Spring's `TransactionAwareDataSourceProxy`, as its README says, so that it joins it). ")
                .append("The handler only records when it started.\n\n")
                .append("- **durable timeouts**: a hierarchical `HashedWheelTimer` with a 10 ms tick; the durable ")
                .append("timer's defaults otherwise (poll interval 1 s, lookahead 10 s, batch 1,000, lease 30 s); ")
                .append("handlers on a fixed pool of ")
                .append(DurableContender.THREADS)
                .append(" threads.\n")
                .append("- **db-scheduler, defaults**: ")
                .append(DurableContender.THREADS)
                .append(" threads, polling every 10 s, `fetch-and-lock-on-execute`.\n")
                .append("- **db-scheduler, tuned**: polling every 100 ms, `pollUsingLockAndFetch(1.0, 4.0)` ")
                .append("(`select for update skip locked`, the fractions its README gives for high throughput), ")
                .append("`enableImmediateExecution()`, ")
                .append(DurableContender.THREADS)
                .append(" threads.\n\n")
                .append("Measured ")
                .append(LocalDate.now())
                .append(" on ")
                .append(Report.machine())
                .append(", with `")
                .append(command)
                .append("`.");
        if (quick) {
            md.append(" **A QUICK smoke run: fewer timeouts and shorter windows, the numbers mean nothing.**");
        }
        md.append("\n\n");
        headline(md);
        targets(md);
        lateness(md);
        payment(md);
        burst(md);
        idle(md);
        md.append(END).append('\n');
    }

    private void headline(StringBuilder md) {
        md.append("**In one sentence:** durable timeouts started their handlers within ")
                .append(Report.fmt(value("lateness", DURABLE, "p99Millis")))
                .append(" ms of their deadlines (p99 of ")
                .append(count("lateness", DURABLE, "timeouts"))
                .append(" due over ")
                .append(Report.fmt(value("lateness", DURABLE, "spreadMillis") / 1e3))
                .append(" s), against ")
                .append(Report.fmt(value("lateness", TUNED, "p99Millis")))
                .append(" ms for db-scheduler tuned for low latency and ")
                .append(Report.fmt(value("lateness", DEFAULTS, "p99Millis")))
                .append(" ms for db-scheduler with its defaults.\n\n");
    }

    private String count(String experiment, DurableContender contender, String field) {
        double v = value(experiment, contender, field);
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%,d", (long) v);
    }

    private void targets(StringBuilder md) {
        List<String> missed = new ArrayList<>();
        md.append("### Durable-timeout targets\n\n| target | durable timeouts | met |\n|---|---:|:---:|\n");
        double p99 = value("lateness", DURABLE, "p99Millis");
        double tunedP99 = value("lateness", TUNED, "p99Millis");
        row(
                md,
                missed,
                "lateness p99 ≤ 50 ms",
                Report.fmt(p99) + " ms",
                p99 <= 50,
                "lateness p99 is " + Report.fmt(p99) + " ms, " + Report.fmt(p99 - 50) + " ms over 50 ms");
        row(
                md,
                missed,
                "lateness p99 ≤ 1/10 of tuned db-scheduler's (" + Report.fmt(tunedP99) + " ms)",
                Report.fmt(p99 / tunedP99) + " ×",
                p99 <= tunedP99 / 10,
                "lateness p99 is " + Report.fmt(p99) + " ms, " + Report.fmt(p99 / tunedP99) + " × tuned db-scheduler's "
                        + Report.fmt(tunedP99) + " ms, where at most 0.1 × (" + Report.fmt(tunedP99 / 10)
                        + " ms) is the target: " + Report.fmt(p99 - tunedP99 / 10) + " ms over");
        for (int threads : new int[] {1, 4}) {
            String experiment = "payment-" + threads;
            double ours = value(experiment, DURABLE, "opsPerSecond");
            double theirs = best(experiment, "opsPerSecond", true);
            row(
                    md,
                    missed,
                    "schedule-then-cancel, " + threads + (threads == 1 ? " thread" : " threads")
                            + ": ≥ db-scheduler's best (" + Report.fmt(theirs) + " ops/s)",
                    Report.fmt(ours) + " ops/s (" + Report.fmt(ours / theirs) + " ×)",
                    ours >= theirs,
                    "schedule-then-cancel on " + threads + (threads == 1 ? " thread" : " threads") + " is "
                            + Report.fmt(ours) + " ops/s against db-scheduler's " + Report.fmt(theirs) + ", "
                            + Report.fmt((1 - ours / theirs) * 100) + " % short");
        }
        double ours = value("burst", DURABLE, "perSecond");
        double theirs = best("burst", "perSecond", true);
        row(
                md,
                missed,
                "burst of " + count("burst", DURABLE, "timeouts") + " due at once: throughput ≥ db-scheduler's best ("
                        + Report.fmt(theirs) + " /s)",
                Report.fmt(ours) + " /s (" + Report.fmt(ours / theirs) + " ×)",
                ours >= theirs,
                "the burst ran at " + Report.fmt(ours) + " /s against db-scheduler's " + Report.fmt(theirs) + " /s, "
                        + Report.fmt((1 - ours / theirs) * 100) + " % short");
        double idle = value("idle", DURABLE, "statementsPerPollInterval");
        row(
                md,
                missed,
                "idle, " + count("idle", DURABLE, "pending")
                        + " pending an hour ahead: ≤ 2 statements per poll interval",
                Report.fmt(idle),
                idle <= 2,
                "idle it ran " + Report.fmt(idle) + " statements per poll interval, " + Report.fmt(idle - 2)
                        + " more than 2");
        long wrong = 0;
        for (DurableContender c : ALL) {
            for (String experiment : new String[] {"lateness", "burst"}) {
                wrong += (long)
                        (zeroIfNaN(value(experiment, c, "duplicates")) + zeroIfNaN(value(experiment, c, "missing")));
            }
        }
        long durableWrong = 0;
        for (String experiment : new String[] {"lateness", "burst"}) {
            durableWrong += (long) (zeroIfNaN(value(experiment, DURABLE, "duplicates"))
                    + zeroIfNaN(value(experiment, DURABLE, "missing")));
        }
        row(
                md,
                missed,
                "every timeout ran exactly once (lateness and burst; all schedulers: " + wrong
                        + " duplicated or missing)",
                durableWrong + " duplicated or missing",
                durableWrong == 0,
                durableWrong + " timeouts of durable timeouts ran twice or never");
        md.append('\n');
        if (missed.isEmpty()) {
            md.append("Every target met.\n\n");
        } else {
            md.append("Missed, measured in this run:\n\n");
            for (String miss : missed) {
                md.append("- ").append(miss).append(".\n");
            }
            md.append('\n');
        }
    }

    private static double zeroIfNaN(double v) {
        return Double.isNaN(v) ? 0 : v;
    }

    /** The better of db-scheduler's two configurations: the higher value if {@code higher}, else the lower. */
    private double best(String experiment, String field, boolean higher) {
        double a = value(experiment, DEFAULTS, field);
        double b = value(experiment, TUNED, field);
        if (Double.isNaN(a) || Double.isNaN(b)) {
            return Double.isNaN(a) ? b : a;
        }
        return higher ? Math.max(a, b) : Math.min(a, b);
    }

    private static void row(
            StringBuilder md, List<String> missed, String target, String value, boolean met, String miss) {
        md.append("| ")
                .append(target)
                .append(" | ")
                .append(value)
                .append(" | ")
                .append(met ? "yes" : "**no**")
                .append(" |\n");
        if (!met) {
            missed.add(miss);
        }
    }

    private void lateness(StringBuilder md) {
        md.append("### Lateness\n\n")
                .append(count("lateness", DURABLE, "timeouts"))
                .append(" one-time timeouts whose deadlines are spread evenly over ")
                .append(Report.fmt(value("lateness", DURABLE, "spreadMillis") / 1e3))
                .append(" s, each scheduled at least 30 s ahead by 4 threads (the first deadline 30 s after ")
                .append("scheduling starts, later if the warm-up's scheduling rate says the last would otherwise be ")
                .append("in less than 30 s before its deadline): lateness is the handler's start, wall clock, less ")
                .append("the deadline. Each timeout is counted per key: ran twice (duplicates) or never (missing); ")
                .append("left: rows still in the table at the end. Least lead: the shortest time from a schedule's ")
                .append("return to its deadline.\n\n")
                .append(
                        "| scheduler | p50 (ms) | p99 (ms) | max (ms) | ran | duplicates | missing | left | least lead (s) |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (DurableContender c : ALL) {
            cells(
                    md,
                    c.label(),
                    value("lateness", c, "p50Millis"),
                    value("lateness", c, "p99Millis"),
                    value("lateness", c, "maxMillis"));
            md.append(" | ")
                    .append(count("lateness", c, "ran"))
                    .append(" | ")
                    .append(count("lateness", c, "duplicates"))
                    .append(" | ")
                    .append(count("lateness", c, "missing"))
                    .append(" | ")
                    .append(count("lateness", c, "leftPending"))
                    .append(" | ")
                    .append(Report.fmt(value("lateness", c, "minLeadMillis") / 1e3))
                    .append(" |\n");
        }
        md.append("\n![Lateness, durable timeouts against db-scheduler](")
                .append(CHART)
                .append(")\n\n");
    }

    private void payment(StringBuilder md) {
        md.append("### The payment pattern: schedule, then cancel\n\n")
                .append("A timeout 30 minutes ahead is scheduled in one transaction, then cancelled in another (an ")
                .append("order placed, then paid), in a loop on 1 and 4 threads: operations (schedule + cancel) per ")
                .append("second over ")
                .append(Report.fmt(value("payment-1", DURABLE, "measureMillis") / 1e3))
                .append(" s after a ")
                .append(Report.fmt(value("payment-1", DURABLE, "warmUpMillis") / 1e3))
                .append(" s warm-up; higher is better. Statements per operation: all the SQL statements run ")
                .append("meanwhile, the scheduler's polls included, per schedule + cancel (1 thread).\n\n")
                .append(
                        "| scheduler | 1 thread (ops/s) | × tuned db-scheduler | 4 threads (ops/s) | × tuned db-scheduler "
                                + "| statements per operation |\n")
                .append("|---|---:|---:|---:|---:|---:|\n");
        double one = value("payment-1", TUNED, "opsPerSecond");
        double four = value("payment-4", TUNED, "opsPerSecond");
        for (DurableContender c : ALL) {
            double a = value("payment-1", c, "opsPerSecond");
            double b = value("payment-4", c, "opsPerSecond");
            tableRow(md, c.label(), a, a / one, b, b / four, value("payment-1", c, "statementsPerOperation"));
        }
        md.append('\n');
    }

    private void burst(StringBuilder md) {
        md.append("### Burst: ")
                .append(count("burst", DURABLE, "timeouts"))
                .append(" due at once\n\n")
                .append("All scheduled with one deadline, far enough ahead for all to be in before it: time from ")
                .append("the deadline until the first, half, and all had started; the rate over the whole burst; ")
                .append("duplicates and missing as above. Lower times are better.\n\n")
                .append("| scheduler | first (ms) | half (ms) | all (ms) | per second | duplicates | missing |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|\n");
        for (DurableContender c : ALL) {
            cells(
                    md,
                    c.label(),
                    value("burst", c, "firstRanMillis"),
                    value("burst", c, "halfRanMillis"),
                    value("burst", c, "allRanMillis"),
                    value("burst", c, "perSecond"));
            md.append(" | ")
                    .append(count("burst", c, "duplicates"))
                    .append(" | ")
                    .append(count("burst", c, "missing"))
                    .append(" |\n");
        }
        md.append('\n');
    }

    private void idle(StringBuilder md) {
        md.append("### Idle cost\n\n")
                .append(count("idle", DURABLE, "pending"))
                .append(" timeouts pending an hour ahead, nothing due: the SQL statements the scheduler ran over ")
                .append(Report.fmt(value("idle", DURABLE, "windowMillis") / 1e3))
                .append(" s, counted exactly on the client (a `DataSource` wrapper counts every statement ")
                .append("executed on its connections), per second and per the scheduler's own poll interval; and ")
                .append("the commits among them. Lower is better.\n\n")
                .append(
                        "| scheduler | poll interval (s) | statements per second | per poll interval | commits per second |\n")
                .append("|---|---:|---:|---:|---:|\n");
        for (DurableContender c : ALL) {
            tableRow(
                    md,
                    c.label(),
                    c.pollInterval().toMillis() / 1e3,
                    value("idle", c, "statementsPerSecond"),
                    value("idle", c, "statementsPerPollInterval"),
                    value("idle", c, "commitsPerSecond"));
        }
        md.append('\n');
    }

    /** 0.1, 1, 10, 100, 1,000 ... */
    private static String axisLabel(double millis) {
        return millis < 1 ? String.format(Locale.ROOT, "%.1f", millis) : String.format(Locale.ROOT, "%,.0f", millis);
    }

    private static void tableRow(StringBuilder md, String label, double... values) {
        cells(md, label, values);
        md.append(" |\n");
    }

    /** The start of a row: its label and {@code values}, the row left open for more cells. */
    private static void cells(StringBuilder md, String label, double... values) {
        md.append("| ").append(label);
        for (double v : values) {
            md.append(" | ").append(Report.fmt(v));
        }
    }

    /** Lateness p50 and p99 per scheduler, horizontal bars on a logarithmic axis (ms). */
    void writeChart(Path docs) throws IOException {
        if (!present) {
            return;
        }
        int width = 680;
        int left = 190;
        int right = width - 30;
        int top = 60;
        int rowHeight = 44;
        int bottom = top + rowHeight * ALL.length;
        int height = bottom + 70;
        String[] series = {"p50", "p99"};
        String[] fields = {"p50Millis", "p99Millis"};
        String[] colours = {"#a0cbe8", "#4e79a7"};
        double max = 1;
        for (DurableContender c : ALL) {
            for (String field : fields) {
                double v = value("lateness", c, field);
                max = Double.isNaN(v) ? max : Math.max(max, v);
            }
        }
        int decades = Math.max(2, (int) Math.ceil(Math.log10(max)) + 1); // from 0.1 ms
        double low = 0.1;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                        + "font-family=\"sans-serif\" font-size=\"12\">%n",
                width,
                height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append("<text x=\"20\" y=\"24\" font-size=\"15\">Lateness of durable deadlines (ms after the "
                + "deadline, log scale, lower is better)</text>\n");
        for (int d = 0; d <= decades; d++) {
            int x = left + (right - left) * d / decades;
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>%n",
                    x,
                    top - 6,
                    x,
                    bottom));
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    x,
                    bottom + 16,
                    axisLabel(low * Math.pow(10, d))));
        }
        int target = left + (int) ((right - left) * Math.log10(50 / low) / decades);
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#e15759\" stroke-dasharray=\"4 3\"/>%n",
                target,
                top - 10,
                target,
                bottom));
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" fill=\"#e15759\">target p99 ≤ 50 ms</text>%n",
                target,
                top - 14));
        for (int r = 0; r < ALL.length; r++) {
            int y = top + r * rowHeight;
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    left - 8,
                    y + rowHeight / 2,
                    ALL[r].label()));
            for (int k = 0; k < series.length; k++) {
                double v = value("lateness", ALL[r], fields[k]);
                double position = Double.isNaN(v) || v <= low ? 0 : Math.log10(v / low) / decades;
                int w = (int) ((right - left) * Math.min(1, position));
                int barY = y + 4 + k * 17;
                svg.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"15\" fill=\"%s\"/>%n",
                        left,
                        barY,
                        w,
                        colours[k]));
                svg.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\" font-size=\"10\">%s ms</text>%n",
                        left + w + 4,
                        barY + 11,
                        Report.fmt(v)));
            }
        }
        Report.legend(svg, series, colours, left, 120, height);
        Files.writeString(docs.resolve(CHART), svg.append("</svg>\n").toString());
    }
}
