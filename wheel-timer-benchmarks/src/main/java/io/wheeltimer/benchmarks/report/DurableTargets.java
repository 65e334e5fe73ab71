package io.wheeltimer.benchmarks.report;

import io.wheeltimer.benchmarks.experiments.DurableContender;
import io.wheeltimer.benchmarks.experiments.DurableDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import tools.jackson.databind.JsonNode;

/**
 * The durable section's targets: a row per target from {@code targets.tsv}, with what was measured and whether
 * it met it, and a line for each that missed; those of the {@code far} and {@code bulk} experiments on
 * PostgreSQL only.
 */
final class DurableTargets {

    private static final DurableContender[] ALL = DurableContender.values();
    private static final DurableContender DURABLE = DurableContender.DURABLE;
    private static final DurableContender DEFAULTS = DurableContender.DB_SCHEDULER;
    private static final DurableContender TUNED = DurableContender.DB_SCHEDULER_TUNED;

    private DurableTargets() {}

    /** The targets' table and what missed; the {@code far} and {@code bulk} ones on PostgreSQL only. */
    static void fill(Template template, DurableResults results, Targets targets) {
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
            double[] fastest = DurableReport.fastestDbScheduler(results, threads);
            double theirs = fastest[0];
            row(
                    rows,
                    missed,
                    payment.text("threads", Report.threads(threads), "fastest", DurableReport.fastestText(fastest)),
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
}
