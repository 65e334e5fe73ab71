package io.wheeltimer.benchmarks.report;

import io.wheeltimer.benchmarks.experiments.DurableContender;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import tools.jackson.databind.JsonNode;

/**
 * The sustained load on several instances ({@code SustainedExperiment}): per scheduler and number of
 * instances, the highest rate held (p99 lateness within the limit, nothing lost or run twice, the
 * callers keeping up), its p99, its share of the database's own limit, and why the next rate was not
 * held.
 */
final class DurableSustained {

    private DurableSustained() {}

    /** The table's rows, or one line saying that the load was not run. */
    static String rows(DurableResults results) {
        Map<String, List<JsonNode>> series = new LinkedHashMap<>();
        for (JsonNode line : results.sustained()) {
            series.computeIfAbsent(
                            line.get("contender").asString() + "/"
                                    + line.get("instances").asInt(),
                            k -> new ArrayList<>())
                    .add(line);
        }
        if (series.isEmpty()) {
            return "| (not run) | | | | | |";
        }
        double limit = results.limitPerSecond();
        StringJoiner rows = new StringJoiner("\n");
        for (List<JsonNode> lines : series.values()) {
            JsonNode first = lines.get(0);
            JsonNode best = null;
            JsonNode failed = null;
            for (JsonNode line : lines) {
                if (line.get("held").asBoolean()) {
                    best = line;
                } else if (failed == null) {
                    failed = line;
                }
            }
            String label =
                    DurableContender.valueOf(first.get("contender").asString()).label();
            rows.add("| " + label + " | " + first.get("instances").asInt() + " | "
                    + (best == null ? "none" : String.valueOf(best.get("rate").asInt())) + " | "
                    + (best == null ? "–" : Report.fmt(best.get("p99Millis").asDouble())) + " | "
                    + (best == null || Double.isNaN(limit)
                            ? "–"
                            : Math.round(100 * best.get("rate").asDouble() / limit) + " %")
                    + " | " + (failed == null ? "every rate tried held" : why(failed)) + " |");
        }
        return rows.toString();
    }

    /** Why {@code line}'s rate was not held. */
    private static String why(JsonNode line) {
        StringJoiner why = new StringJoiner(", ");
        if (line.get("p99Millis").asDouble() > 100) {
            why.add("p99 " + Report.fmt(line.get("p99Millis").asDouble()) + " ms");
        }
        if (line.get("missing").asLong() > 0) {
            why.add(line.get("missing").asLong() + " missing");
        }
        if (line.get("duplicates").asLong() > 0) {
            why.add(line.get("duplicates").asLong() + " run twice");
        }
        if (line.get("schedulingBehindMillis").asLong() > 0) {
            why.add("callers " + line.get("schedulingBehindMillis").asLong() + " ms behind");
        }
        return line.get("rate").asInt() + "/s: " + why;
    }
}
