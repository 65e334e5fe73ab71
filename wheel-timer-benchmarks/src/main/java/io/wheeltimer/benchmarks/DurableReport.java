package io.wheeltimer.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import tools.jackson.databind.JsonNode;

/**
 * The durable-timeouts part of the benchmark report: durable timeouts against db-scheduler, from the
 * {@link DurableExperiments} lines in {@code durable.jsonl}: those on PostgreSQL (a line that names no
 * database is one) in the section's main tables, and those on MariaDB, if any, in a subsection of their
 * own ({@value #MARIADB_TEMPLATE}) with the same tables and targets. {@link Report} includes it when that file lies
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

    /** The MariaDB subsection's prose, on the class path. */
    static final String MARIADB_TEMPLATE = "/benchmarks-durable-mariadb.md.template";

    private final DurableResults results;
    private final Path lines;
    private final boolean present;

    DurableReport(Path lines) throws IOException {
        this.lines = lines;
        results = DurableResults.read(lines);
        present = Files.exists(lines);
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: DurableReport DURABLE_JSONL DOCS_DIR COMMAND");
        }
        DurableReport report = new DurableReport(Path.of(args[0]));
        Template section = Template.load().section(START, END);
        report.fill(section, Targets.load(), args[2]);
        Path docs = Path.of(args[1]);
        Path markdown = docs.resolve("benchmarks.md");
        String existing = Files.exists(markdown) ? Files.readString(markdown) : "# Benchmarks\n\n";
        Files.writeString(markdown, splice(existing, START, END, section.fill()));
        report.writeChart(docs);
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

    /** Fills the placeholders of the template's section between {@link #START} and {@link #END}. */
    void fill(Template template, Targets targets, String command) {
        if (!present) {
            throw new IllegalArgumentException("no results at " + lines + ": run the durable section first");
        }
        template.put("durable-pool-size", DurableExperiments.POOL_SIZE)
                .put("durable-threads", DurableContender.THREADS)
                .put("durable-date", LocalDate.now())
                .put("durable-machine", Report.machine())
                .put("durable-command", command)
                .put(
                        "durable-quick",
                        results.quick()
                                ? " **A QUICK smoke run: fewer timeouts and shorter windows, the numbers mean nothing.**"
                                : "")
                .put("durable-p99", Report.fmt(results.value("lateness", DURABLE, "p99Millis")))
                .put("durable-timeouts", results.count("lateness", DURABLE, "timeouts"))
                .put("durable-spread", Report.fmt(results.value("lateness", DURABLE, "spreadMillis") / 1e3))
                .put("durable-tuned-p99", Report.fmt(results.value("lateness", TUNED, "p99Millis")))
                .put("durable-defaults-p99", Report.fmt(results.value("lateness", DEFAULTS, "p99Millis")))
                .put("durable-payment-measure", Report.fmt(results.value("payment-1", DURABLE, "measureMillis") / 1e3))
                .put("durable-payment-warm-up", Report.fmt(results.value("payment-1", DURABLE, "warmUpMillis") / 1e3))
                .put("durable-burst-timeouts", results.count("burst", DURABLE, "timeouts"))
                .put("durable-idle-pending", results.count("idle", DURABLE, "pending"))
                .put("durable-idle-window", Report.fmt(results.value("idle", DURABLE, "windowMillis") / 1e3))
                .put("durable-load", results.loadRange());
        DurableFarAndBulk.far(template, results);
        DurableFarAndBulk.bulk(template, results);
        targets(template, results, targets);
        tables(template, results);
        template.put(
                "durable-mariadb",
                results.has(DurableDatabase.MARIADB) ? mariaDb(results.on(DurableDatabase.MARIADB), targets) : "");
    }

    /**
     * The MariaDB subsection, from {@value #MARIADB_TEMPLATE}: the same tables and targets as
     * PostgreSQL's (but for the {@code far} experiment, which runs on PostgreSQL only).
     */
    private static String mariaDb(DurableResults results, Targets targets) {
        Template template = Template.load(MARIADB_TEMPLATE);
        template.put("durable-version", results.version())
                .put(
                        "durable-quick",
                        results.quick()
                                ? " **A QUICK smoke run: fewer timeouts and shorter windows, the numbers mean nothing.**"
                                : "")
                .put("durable-load", results.loadRange())
                .put("durable-p99", Report.fmt(results.value("lateness", DURABLE, "p99Millis")))
                .put("durable-timeouts", results.count("lateness", DURABLE, "timeouts"))
                .put("durable-spread", Report.fmt(results.value("lateness", DURABLE, "spreadMillis") / 1e3))
                .put("durable-tuned-p99", Report.fmt(results.value("lateness", TUNED, "p99Millis")))
                .put("durable-defaults-p99", Report.fmt(results.value("lateness", DEFAULTS, "p99Millis")));
        targets(template, results, targets);
        tables(template, results);
        return template.fill();
    }

    /** The lateness, payment, burst and idle tables of {@code results}' database. */
    private static void tables(Template template, DurableResults results) {
        StringJoiner lateness = new StringJoiner("\n");
        StringJoiner payment = new StringJoiner("\n");
        StringJoiner burst = new StringJoiner("\n");
        StringJoiner idle = new StringJoiner("\n");
        double[] one = fastestDbScheduler(results, 1);
        double[] four = fastestDbScheduler(results, 4);
        for (DurableContender c : ALL) {
            lateness.add(openRow(
                            c.label(),
                            results.value("lateness", c, "p50Millis"),
                            results.value("lateness", c, "p99Millis"),
                            results.value("lateness", c, "maxMillis"))
                    + " | " + results.count("lateness", c, "ran")
                    + " | " + results.count("lateness", c, "duplicates")
                    + " | " + results.count("lateness", c, "missing")
                    + " | " + results.count("lateness", c, "leftPending")
                    + " | " + Report.fmt(results.value("lateness", c, "minLeadMillis") / 1e3) + " |");
            for (String calls : CALLS) {
                double a = results.value(calls + "1", c, "opsPerSecond");
                double b = results.value(calls + "4", c, "opsPerSecond");
                payment.add(Report.row(
                        c.label() + " | " + callsLabel(c, calls),
                        a,
                        a / one[0],
                        b,
                        b / four[0],
                        results.value(calls + "1", c, "statementsPerOperation"),
                        results.value(calls + "1", c, "commitsPerOperation")));
            }
            burst.add(openRow(
                            c.label(),
                            results.value("burst", c, "firstRanMillis"),
                            results.value("burst", c, "halfRanMillis"),
                            results.value("burst", c, "allRanMillis"),
                            results.value("burst", c, "perSecond"))
                    + " | " + results.count("burst", c, "duplicates")
                    + " | " + results.count("burst", c, "missing") + " |");
            idle.add(Report.row(
                    c.label(),
                    c.pollInterval().toMillis() / 1e3,
                    results.value("idle", c, "statementsPerSecond"),
                    results.value("idle", c, "statementsPerPollInterval"),
                    results.value("idle", c, "commitsPerSecond")));
        }
        template.put("durable-lateness-rows", lateness)
                .put("durable-payment-rows", payment)
                .put(
                        "durable-payment-fastest",
                        "at 1 thread " + fastestText(one) + "; at 4 threads " + fastestText(four))
                .put("durable-burst-rows", burst)
                .put("durable-idle-rows", idle);
    }

    /** The two ways the payment runs call: {@code payment-own-N}, with no transaction around a call, and {@code payment-N}, in one of the caller's. */
    private static final String[] CALLS = {"payment-own-", "payment-"};

    private static String callsLabel(DurableContender contender, String calls) {
        if (calls.equals("payment-")) {
            return contender == DURABLE
                    ? "in the caller's transaction"
                    : "in the caller's transaction (on `TransactionAwareDataSourceProxy`)";
        }
        return contender == DURABLE ? "alone (auto-commit)" : "alone (auto-commit, on the pool)";
    }

    /**
     * db-scheduler's fastest configuration at {@code threads} threads, of its two settings and two ways
     * of calling: {ops/s, index of the contender in {@link #ALL}, index of the calls in {@link #CALLS}}.
     */
    private static double[] fastestDbScheduler(DurableResults results, int threads) {
        double[] fastest = {Double.NaN, -1, -1};
        for (DurableContender c : new DurableContender[] {DEFAULTS, TUNED}) {
            for (int k = 0; k < CALLS.length; k++) {
                double ops = results.value(CALLS[k] + threads, c, "opsPerSecond");
                if (!Double.isNaN(ops) && (Double.isNaN(fastest[0]) || ops > fastest[0])) {
                    fastest = new double[] {ops, c.ordinal(), k};
                }
            }
        }
        return fastest;
    }

    /** "db-scheduler, defaults, alone (...): 4269 ops/s", of {@link #fastestDbScheduler}'s answer. */
    private static String fastestText(double[] fastest) {
        if (fastest[1] < 0) {
            return "–";
        }
        DurableContender c = ALL[(int) fastest[1]];
        return c.label() + ", " + callsLabel(c, CALLS[(int) fastest[2]]) + ": " + Report.fmt(fastest[0]) + " ops/s";
    }

    /** A row's label and {@code values}, left open (no closing bar) for more cells. */
    static String openRow(String label, double... values) {
        String row = Report.row(label, values);
        return row.substring(0, row.length() - 2);
    }

    /** The targets' table and what missed; the {@code far} ones on PostgreSQL only. */
    private static void targets(Template template, DurableResults results, Targets targets) {
        List<String> missed = new ArrayList<>();
        StringJoiner rows = new StringJoiner("\n");
        Targets.Target p99Target = targets.get("durable-p99");
        double p99 = results.value("lateness", DURABLE, "p99Millis");
        double limit = p99Target.threshold();
        row(
                rows,
                missed,
                p99Target.text(),
                Report.fmt(p99) + " ms",
                p99Target.met(p99),
                "lateness p99 is " + Report.fmt(p99) + " ms, " + Report.fmt(p99 - limit) + " ms over "
                        + p99Target.thresholdDecimal() + " ms");
        Targets.Target vsTuned = targets.get("durable-p99-vs-tuned");
        double tunedP99 = results.value("lateness", TUNED, "p99Millis");
        double tunedLimit = tunedP99 * vsTuned.threshold();
        row(
                rows,
                missed,
                vsTuned.text("tuned", Report.fmt(tunedP99)),
                Report.x(p99 / tunedP99),
                vsTuned.met(p99, tunedP99),
                "lateness p99 is " + Report.fmt(p99) + " ms, " + Report.fmt(p99 / tunedP99) + " × tuned db-scheduler's "
                        + Report.fmt(tunedP99) + " ms, where at most " + vsTuned.thresholdDecimal() + " × ("
                        + Report.fmt(tunedLimit) + " ms) is the target: " + Report.fmt(p99 - tunedLimit) + " ms over");
        Targets.Target payment = targets.get("durable-payment");
        for (int threads : new int[] {1, 4}) {
            double ours = results.value("payment-own-" + threads, DURABLE, "opsPerSecond");
            double[] fastest = fastestDbScheduler(results, threads);
            double theirs = fastest[0];
            row(
                    rows,
                    missed,
                    payment.text("threads", Report.threads(threads), "fastest", fastestText(fastest)),
                    Report.fmt(ours) + " ops/s (" + Report.fmt(ours / theirs) + " ×)",
                    payment.met(ours, theirs),
                    "schedule-then-cancel, each call alone, on " + Report.threads(threads) + " is " + Report.fmt(ours)
                            + " ops/s against db-scheduler's fastest " + Report.fmt(theirs) + ", "
                            + Report.fmt((1 - ours / theirs) * 100) + " % short");
        }
        Targets.Target inTransaction = targets.get("durable-payment-in-transaction");
        for (int threads : new int[] {1, 4}) {
            String experiment = "payment-" + threads;
            double ours = results.value(experiment, DURABLE, "opsPerSecond");
            double theirs = best(results, experiment, "opsPerSecond", true);
            row(
                    rows,
                    missed,
                    inTransaction.text("threads", Report.threads(threads), "best", Report.fmt(theirs)),
                    Report.fmt(ours) + " ops/s (" + Report.fmt(ours / theirs) + " ×)",
                    inTransaction.met(ours, theirs),
                    "schedule-then-cancel in the caller's transactions on " + Report.threads(threads) + " is "
                            + Report.fmt(ours) + " ops/s against db-scheduler's " + Report.fmt(theirs) + ", "
                            + Report.fmt((1 - ours / theirs) * 100) + " % short");
        }
        Targets.Target burst = targets.get("durable-burst");
        double ours = results.value("burst", DURABLE, "perSecond");
        double theirs = best(results, "burst", "perSecond", true);
        row(
                rows,
                missed,
                burst.text("count", results.count("burst", DURABLE, "timeouts"), "best", Report.fmt(theirs)),
                Report.fmt(ours) + " /s (" + Report.fmt(ours / theirs) + " ×)",
                burst.met(ours, theirs),
                "the burst ran at " + Report.fmt(ours) + " /s against db-scheduler's " + Report.fmt(theirs) + " /s, "
                        + Report.fmt((1 - ours / theirs) * 100) + " % short");
        Targets.Target idleTarget = targets.get("durable-idle");
        double idle = results.value("idle", DURABLE, "statementsPerPollInterval");
        row(
                rows,
                missed,
                idleTarget.text("pending", results.count("idle", DURABLE, "pending")),
                Report.fmt(idle),
                idleTarget.met(idle),
                "idle it ran " + Report.fmt(idle) + " statements per poll interval, "
                        + Report.fmt(idle - idleTarget.threshold()) + " more than " + idleTarget.thresholdDecimal());
        if (results.database() == DurableDatabase.POSTGRESQL) {
            farTargets(rows, missed, results, targets);
            bulkTargets(rows, missed, results, targets);
        }
        long wrong = 0;
        for (DurableContender c : ALL) {
            wrong += wrong(results, c);
        }
        long durableWrong = wrong(results, DURABLE);
        Targets.Target exactlyOnce = targets.get("durable-exactly-once");
        row(
                rows,
                missed,
                exactlyOnce.text("all", String.valueOf(wrong)),
                durableWrong + " duplicated or missing",
                exactlyOnce.met(durableWrong),
                durableWrong + " timeouts of durable timeouts ran twice or never");
        template.put("durable-targets-rows", rows);
        StringJoiner misses = new StringJoiner("\n");
        for (String miss : missed) {
            misses.add("- " + miss + ".");
        }
        template.put(
                "durable-missed",
                missed.isEmpty() ? "Every target met." : "Missed, measured in this run:\n\n" + misses);
    }

    /** Far-future timeouts: none held, the heap as the empty instance's, the claim as fast with 100 × the rows. */
    private static void farTargets(StringJoiner rows, List<String> missed, DurableResults results, Targets targets) {
        JsonNode empty = DurableFarAndBulk.farStage(results, 0);
        JsonNode small = DurableFarAndBulk.farStage(results, 10_000);
        JsonNode large = DurableFarAndBulk.farStage(results, 1_000_000);
        String count = results.count("far", DURABLE, "timeouts");
        String days = results.count("far", DURABLE, "aheadDays");
        double held = large == null ? Double.NaN : large.get("held").asDouble();
        Targets.Target heldTarget = targets.get("durable-far-held");
        row(
                rows,
                missed,
                heldTarget.text("count", count, "days", days),
                Double.isNaN(held) ? "–" : String.valueOf((long) held),
                heldTarget.met(held),
                "with " + count + " timeouts " + days + " days ahead, " + Report.fmt(held) + " were held");
        double emptyMb =
                empty == null ? Double.NaN : empty.get("heapAfterGcBytes").asDouble() / DurableFarAndBulk.MB;
        double largeMb =
                large == null ? Double.NaN : large.get("heapAfterGcBytes").asDouble() / DurableFarAndBulk.MB;
        Targets.Target heap = targets.get("durable-far-heap");
        row(
                rows,
                missed,
                heap.text("count", count, "empty", Report.fmt(emptyMb)),
                Report.fmt(largeMb - emptyMb) + " MB",
                heap.met(largeMb - emptyMb),
                "the heap after GC grew by " + Report.fmt(largeMb - emptyMb) + " MB with " + count
                        + " timeouts far ahead, more than " + heap.thresholdDecimal() + " MB");
        double smallClaim = small == null ? Double.NaN : DurableFarAndBulk.field(small, "claimMedianMillis");
        double largeClaim = large == null ? Double.NaN : DurableFarAndBulk.field(large, "claimMedianMillis");
        Targets.Target claim = targets.get("durable-far-claim");
        row(
                rows,
                missed,
                claim.text("small", Report.fmt(smallClaim)),
                Report.fmt(largeClaim) + " ms (" + Report.x(largeClaim / smallClaim) + ")",
                claim.met(largeClaim, smallClaim),
                "the claim took " + Report.fmt(largeClaim) + " ms a poll (median) with 1,000,000 rows, "
                        + Report.x(largeClaim / smallClaim) + " its " + Report.fmt(smallClaim)
                        + " ms with 10,000, where at most " + claim.thresholdDecimal() + " × is the target");
    }

    /** How many timeouts of {@code contender} ran twice or never, in the lateness and burst runs. */
    private static long wrong(DurableResults results, DurableContender contender) {
        long wrong = 0;
        for (String experiment : new String[] {"lateness", "burst"}) {
            wrong += (long) (zeroIfNaN(results.value(experiment, contender, "duplicates"))
                    + zeroIfNaN(results.value(experiment, contender, "missing")));
        }
        return wrong;
    }

    private static double zeroIfNaN(double v) {
        return Double.isNaN(v) ? 0 : v;
    }

    /** The better of db-scheduler's two configurations: the higher value if {@code higher}, else the lower. */
    private static double best(DurableResults results, String experiment, String field, boolean higher) {
        double a = results.value(experiment, DEFAULTS, field);
        double b = results.value(experiment, TUNED, field);
        if (Double.isNaN(a) || Double.isNaN(b)) {
            return Double.isNaN(a) ? b : a;
        }
        return higher ? Math.max(a, b) : Math.min(a, b);
    }

    private static void row(
            StringJoiner rows, List<String> missed, String target, String value, boolean met, String miss) {
        rows.add(Report.targetRow(target, met, value));
        if (!met) {
            missed.add(miss);
        }
    }

    /** {@code scheduleAll} against single calls and db-scheduler's {@code scheduleBatch}: medians of the rounds. */
    private static void bulkTargets(StringJoiner rows, List<String> missed, DurableResults results, Targets targets) {
        String count = results.count("bulk", DURABLE, "timeouts");
        double all = results.value("bulk", DURABLE, "scheduleAllMedianMillis");
        double single = results.value("bulk", DURABLE, "singleSchedulesMedianMillis");
        double theirs = results.value("bulk", DURABLE, "dbSchedulerScheduleBatchMedianMillis");
        Targets.Target vsSingle = targets.get("durable-bulk");
        row(
                rows,
                missed,
                vsSingle.text("count", count, "single", Report.fmt(single)),
                Report.fmt(all) + " ms (" + Report.x(single / all) + ")",
                vsSingle.met(single / all),
                "one scheduleAll of " + count + " took " + Report.fmt(all) + " ms, " + Report.x(single / all)
                        + " as fast as " + count + " committed schedule calls (" + Report.fmt(single) + " ms), where "
                        + vsSingle.thresholdDecimal() + " × is the target");
        Targets.Target vsDbScheduler = targets.get("durable-bulk-vs-db-scheduler");
        row(
                rows,
                missed,
                vsDbScheduler.text("count", count, "theirs", Report.fmt(theirs)),
                Report.fmt(all) + " ms (" + Report.x(theirs / all) + ")",
                vsDbScheduler.met(theirs / all),
                "one scheduleAll of " + count + " took " + Report.fmt(all) + " ms against db-scheduler's scheduleBatch "
                        + Report.fmt(theirs) + " ms");
    }

    /** Writes the chart {@link #CHART} into {@code docs}, if there are results: {@link DurableChart}'s. */
    void writeChart(Path docs) throws IOException {
        if (present) {
            DurableChart.write(results, docs);
        }
    }
}
