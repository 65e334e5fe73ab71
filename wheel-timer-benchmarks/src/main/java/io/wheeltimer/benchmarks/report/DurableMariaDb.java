package io.wheeltimer.benchmarks.report;

import io.wheeltimer.benchmarks.experiments.DurableContender;

/**
 * The MariaDB subsection of the durable section, from {@value #TEMPLATE}: MariaDB's lateness, the server's
 * version and load, and the same tables and targets as PostgreSQL's (but for the {@code far} and {@code bulk}
 * experiments and the sustained load on several instances, which run on PostgreSQL only).
 */
final class DurableMariaDb {

    /** The MariaDB subsection's prose, on the class path. */
    static final String TEMPLATE = "/benchmarks-durable-mariadb.md.template";

    private static final DurableContender DURABLE = DurableContender.DURABLE;
    private static final DurableContender DEFAULTS = DurableContender.DB_SCHEDULER;
    private static final DurableContender TUNED = DurableContender.DB_SCHEDULER_TUNED;

    private DurableMariaDb() {}

    /** The subsection, filled from {@code results}, MariaDB's lines. */
    static String fill(DurableResults results, Targets targets) {
        Template template = Template.load(TEMPLATE);
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
                .put("durable-burst-rate", Report.fmt(results.value("burst", DURABLE, "perSecond")))
                .put("durable-tuned-p99", Report.fmt(results.value("lateness", TUNED, "p99Millis")))
                .put("durable-defaults-p99", Report.fmt(results.value("lateness", DEFAULTS, "p99Millis")));
        DurableTargets.fill(template, results, targets);
        DurableReport.tables(template, results);
        return template.fill();
    }
}
