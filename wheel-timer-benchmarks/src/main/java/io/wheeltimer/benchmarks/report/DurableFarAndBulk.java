package io.wheeltimer.benchmarks.report;

import io.wheeltimer.benchmarks.experiments.DurableContender;
import java.util.Locale;
import java.util.StringJoiner;
import tools.jackson.databind.JsonNode;

/**
 * The tables of the two durable experiments run on PostgreSQL only: {@code far}, a row per number of
 * timeouts held far ahead, with the claim's plan, and {@code bulk}, a row per way of scheduling many at once.
 */
final class DurableFarAndBulk {

    private static final DurableContender DURABLE = DurableContender.DURABLE;

    /** Bytes in a MB, the heap's unit in the tables. */
    static final double MB = 1024 * 1024;

    private DurableFarAndBulk() {}

    /** The {@code far} experiment: a line per stage, and the claim's plan. */
    static void far(Template template, DurableResults results) {
        JsonNode node = results.node("far", DURABLE);
        StringJoiner rows = new StringJoiner("\n");
        if (node != null) {
            for (JsonNode stage : node.get("stages")) {
                String label = stage.get("rows").asLong() == 0
                        ? "none (the empty instance)"
                        : String.format(Locale.ROOT, "%,d", stage.get("rows").asLong());
                rows.add(DurableReport.openRow(
                                label + " | " + stage.get("held").asLong(),
                                stage.get("heapAfterGcBytes").asDouble() / MB,
                                field(stage, "claimMinMillis"),
                                field(stage, "claimMedianMillis"),
                                field(stage, "claimP90Millis"),
                                field(stage, "claimMaxMillis"))
                        + " | " + stage.get("claims").asLong()
                        + " | " + Report.fmt(field(stage, "claimPlanningMillis"))
                        + " / " + Report.fmt(field(stage, "claimExecutionMillis")) + " |");
            }
        }
        StringJoiner plan = new StringJoiner("\n");
        if (node != null && node.has("claimPlan")) {
            node.get("claimPlan").forEach(line -> plan.add(line.asString()));
        }
        template.put("durable-far-rows", rows)
                .put("durable-far-timeouts", results.count("far", DURABLE, "timeouts"))
                .put("durable-far-days", results.count("far", DURABLE, "aheadDays"))
                .put("durable-far-rate", Report.fmt(results.value("far", DURABLE, "schedulesPerSecond")))
                .put("durable-far-seconds", Report.fmt(results.value("far", DURABLE, "scheduleMillis") / 1e3))
                .put("durable-far-plan", plan);
    }

    /** {@code node}'s number {@code name}; not a number if it has none. */
    static double field(JsonNode node, String name) {
        return node.has(name) ? node.get(name).asDouble() : Double.NaN;
    }

    /** The stage of the {@code far} experiment with {@code rows} rows in the table; null if there is none. */
    static JsonNode farStage(DurableResults results, long rows) {
        JsonNode node = results.node("far", DURABLE);
        if (node == null) {
            return null;
        }
        for (JsonNode stage : node.get("stages")) {
            if (stage.get("rows").asLong() == rows) {
                return stage;
            }
        }
        return null;
    }

    /**
     * The bulk experiment's rounds, a row per way of writing and server: with commits flushed to disk
     * ({@code bulk}, PostgreSQL's defaults) and without ({@code bulk-unflushed}, the test server's settings).
     */
    static void bulk(Template template, DurableResults results) {
        StringJoiner rows = new StringJoiner("\n");
        String[][] ways = {
            {"one `scheduleAll`", "scheduleAllMillis", "scheduleAllMedianMillis"},
            {"`schedule` calls, each committing", "singleSchedulesMillis", "singleSchedulesMedianMillis"},
            {"db-scheduler's `scheduleBatch`", "dbSchedulerScheduleBatchMillis", "dbSchedulerScheduleBatchMedianMillis"}
        };
        String[][] servers = {{"bulk", "flushed (PostgreSQL's defaults)"}, {"bulk-unflushed", "not flushed (fsync off)"}
        };
        for (String[] server : servers) {
            JsonNode node = results.node(server[0], DURABLE);
            for (String[] way : ways) {
                StringJoiner rounds = new StringJoiner(", ");
                if (node != null && node.has(way[1])) {
                    node.get(way[1]).forEach(round -> rounds.add(Report.fmt(round.asDouble())));
                }
                rows.add("| " + server[1] + " | " + way[0] + " | "
                        + Report.fmt(results.value(server[0], DURABLE, way[2])) + " | " + rounds + " |");
            }
        }
        template.put("durable-bulk-timeouts", results.count("bulk", DURABLE, "timeouts"))
                .put("durable-bulk-rows", rows)
                .put("durable-bulk-flushed-speedup", speedup(results, "bulk"))
                .put("durable-bulk-unflushed-speedup", speedup(results, "bulk-unflushed"));
    }

    /** How many times faster one {@code scheduleAll} was than the committed single calls, in {@code experiment}. */
    private static String speedup(DurableResults results, String experiment) {
        return Report.x(results.value(experiment, DURABLE, "singleSchedulesMedianMillis")
                / results.value(experiment, DURABLE, "scheduleAllMedianMillis"));
    }
}
