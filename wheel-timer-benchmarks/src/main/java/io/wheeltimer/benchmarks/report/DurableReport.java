package io.wheeltimer.benchmarks.report;

import io.wheeltimer.benchmarks.experiments.DurableContender;
import io.wheeltimer.benchmarks.experiments.DurableDatabase;
import io.wheeltimer.benchmarks.experiments.DurableExperiments;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.StringJoiner;

/**
 * The durable-timeouts part of the benchmark report: durable timeouts against db-scheduler, from the
 * {@link DurableExperiments} lines in {@code durable.jsonl}: those on PostgreSQL (a line that names no
 * database is one) in the section's main tables, and those on MariaDB, if any, in a subsection of their
 * own ({@link DurableMariaDb}) with the same tables and targets. {@link Report} includes it when that file lies
 * beside the main JMH results. Run on its own, {@code DurableReport DURABLE_JSONL DOCS_DIR COMMAND} puts the
 * section into an existing {@code benchmarks.md}, in place of the one there (between its markers), or
 * before "Reproduce" if it has none, and writes the chart {@code benchmarks-durable.svg}; the rest of the
 * report is left as it is. The lateness, payment, burst and idle tables are rendered here; the targets in
 * {@link DurableTargets}, the far and bulk tables in {@link DurableFarAndBulk} and the chart in
 * {@link DurableChart}, all from the {@link DurableResults} of a database.
 */
final class DurableReport {

    static final String START = "<!-- durable timeouts: start -->";
    static final String END = "<!-- durable timeouts: end -->";
    static final String CHART = "benchmarks-durable.svg";

    private static final DurableContender[] ALL = DurableContender.values();
    private static final DurableContender DURABLE = DurableContender.DURABLE;
    private static final DurableContender DEFAULTS = DurableContender.DB_SCHEDULER;
    private static final DurableContender TUNED = DurableContender.DB_SCHEDULER_TUNED;

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
        writeSection(docs, START, END, section);
        report.writeChart(docs);
    }

    /**
     * Writes {@code section}, filled, into {@code benchmarks.md} of {@code docs} in place of the one between
     * {@code startMarker} and {@code endMarker}: the rest of the file is left as it is (a new file has a title).
     */
    static void writeSection(Path docs, String startMarker, String endMarker, Template section) throws IOException {
        Path markdown = docs.resolve("benchmarks.md");
        String existing = Files.exists(markdown) ? Files.readString(markdown) : "# Benchmarks\n\n";
        Files.writeString(markdown, splice(existing, startMarker, endMarker, section.fill()));
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
        DurableTargets.fill(template, results, targets);
        tables(template, results);
        template.put("durable-sustained-rows", DurableSustained.rows(results));
        template.put(
                "durable-mariadb",
                results.has(DurableDatabase.MARIADB)
                        ? DurableMariaDb.fill(results.on(DurableDatabase.MARIADB), targets)
                        : "");
    }

    /** The lateness, payment, burst and idle tables of {@code results}' database. */
    static void tables(Template template, DurableResults results) {
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
                        c.label() + " | " + callsLabel(c, calls, results.database()),
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
                .put("durable-limit", limitText(results))
                .put("durable-idle-rows", idle);
    }

    /** The database's own limit beside the burst, and each scheduler's burst rate as a share of it. */
    static String limitText(DurableResults results) {
        double limit = results.limitPerSecond();
        if (Double.isNaN(limit)) {
            return "The database's own limit was not measured in this run.";
        }
        StringJoiner shares = new StringJoiner("; ");
        for (DurableContender c : ALL) {
            double rate = results.value("burst", c, "perSecond");
            if (!Double.isNaN(rate)) {
                shares.add(c.label() + " " + Math.round(100 * rate / limit) + " %");
            }
        }
        return "The database's own limit in the same run (`DatabaseLimitExperiment`): " + Report.fmt(limit)
                + " pairs a second, each an insert in auto-commit, then a delete by key in a transaction of its own,"
                + " by " + DurableExperiments.POOL_SIZE + " threads on as many connections, in the timer's table."
                + " The burst's rate as a share of it (a burst's run is the delete alone, its rows written before the"
                + " clock starts, so it may pass the pairs' rate): " + shares + ".";
    }

    /** The two ways the payment runs call: {@code payment-own-N}, with no transaction around a call, and {@code payment-N}, in one of the caller's. */
    private static final String[] CALLS = {"payment-own-", "payment-"};

    private static String callsLabel(DurableContender contender, String calls, DurableDatabase database) {
        if (contender != DURABLE) {
            return dbSchedulerCallsLabel(calls);
        }
        if (contender.poolAutoCommit(database)) {
            return calls.equals("payment-") ? "in the caller's transaction" : "alone (auto-commit)";
        }
        return calls.equals("payment-")
                ? "in the caller's transaction (the pool's auto-commit off)"
                : "alone (a transaction of its own: the pool's auto-commit off)";
    }

    private static String dbSchedulerCallsLabel(String calls) {
        return calls.equals("payment-")
                ? "in the caller's transaction (on `TransactionAwareDataSourceProxy`)"
                : "alone (auto-commit, on the pool)";
    }

    /**
     * db-scheduler's fastest configuration at {@code threads} threads, of its two settings and two ways
     * of calling: {ops/s, index of the contender in {@link #ALL}, index of the calls in {@link #CALLS}}.
     */
    static double[] fastestDbScheduler(DurableResults results, int threads) {
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
    static String fastestText(double[] fastest) {
        if (fastest[1] < 0) {
            return "–";
        }
        DurableContender c = ALL[(int) fastest[1]];
        return c.label() + ", " + dbSchedulerCallsLabel(CALLS[(int) fastest[2]]) + ": " + Report.fmt(fastest[0])
                + " ops/s";
    }

    /** A row's label and {@code values}, left open (no closing bar) for more cells. */
    static String openRow(String label, double... values) {
        String row = Report.row(label, values);
        return row.substring(0, row.length() - 2);
    }

    /** Writes the chart {@link #CHART} into {@code docs}, if there are results: {@link DurableChart}'s. */
    void writeChart(Path docs) throws IOException {
        if (present) {
            DurableChart.write(results, docs);
        }
    }
}
