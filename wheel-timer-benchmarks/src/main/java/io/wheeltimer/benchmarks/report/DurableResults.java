package io.wheeltimer.benchmarks.report;

import io.wheeltimer.benchmarks.experiments.DurableContender;
import io.wheeltimer.benchmarks.experiments.DurableDatabase;
import io.wheeltimer.benchmarks.experiments.DurableExperiments;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link DurableExperiments} lines of {@code durable.jsonl}, by database, experiment and contender (a line
 * that names no database is PostgreSQL's), read for one database's tables: its measured values and counts,
 * whether it was a QUICK run, the load as it ended and the server's version.
 */
final class DurableResults {

    /** Per database: experiment, then contender, to its line. */
    private final Map<DurableDatabase, Map<String, Map<DurableContender, JsonNode>>> all;
    /** The lines of {@link #database}: what {@link #value} reads. */
    private final Map<String, Map<DurableContender, JsonNode>> results;

    /** Per database: the line of {@code DatabaseLimitExperiment}, the database's own limit. */
    private final Map<DurableDatabase, JsonNode> limits;
    /** Per database: the lines of {@code SustainedExperiment}, one per contender, instances and rate. */
    private final Map<DurableDatabase, List<JsonNode>> sustained;

    private final DurableDatabase database;
    private final boolean quick;

    private DurableResults(
            Map<DurableDatabase, Map<String, Map<DurableContender, JsonNode>>> all,
            Map<DurableDatabase, JsonNode> limits,
            Map<DurableDatabase, List<JsonNode>> sustained,
            DurableDatabase database) {
        this.all = all;
        this.limits = limits;
        this.sustained = sustained;
        this.database = database;
        this.results = all.getOrDefault(database, Map.of());
        boolean anyQuick = false;
        for (Map<DurableContender, JsonNode> byContender : results.values()) {
            for (JsonNode node : byContender.values()) {
                anyQuick |= node.has("quick") && node.get("quick").asBoolean();
            }
        }
        quick = anyQuick;
    }

    /** The lines at {@code lines} (none if there is no such file), read for PostgreSQL's tables. */
    static DurableResults read(Path lines) throws IOException {
        Map<DurableDatabase, Map<String, Map<DurableContender, JsonNode>>> all = new EnumMap<>(DurableDatabase.class);
        Map<DurableDatabase, JsonNode> limits = new EnumMap<>(DurableDatabase.class);
        Map<DurableDatabase, List<JsonNode>> sustained = new EnumMap<>(DurableDatabase.class);
        if (Files.exists(lines)) {
            JsonMapper json = JsonMapper.builder().build();
            for (String line : Files.readAllLines(lines)) {
                if (line.startsWith("{")) {
                    JsonNode node = json.readTree(line);
                    DurableDatabase database = node.has("database")
                            ? DurableDatabase.of(node.get("database").asString())
                            : DurableDatabase.POSTGRESQL;
                    String experiment = node.get("experiment").asString();
                    if (experiment.equals("limit")) {
                        limits.put(database, node);
                        continue;
                    }
                    if (experiment.startsWith("sustained-")) {
                        sustained
                                .computeIfAbsent(database, d -> new ArrayList<>())
                                .add(node);
                        continue;
                    }
                    all.computeIfAbsent(database, d -> new HashMap<>())
                            .computeIfAbsent(
                                    node.get("experiment").asString(), e -> new EnumMap<>(DurableContender.class))
                            .put(DurableContender.valueOf(node.get("contender").asString()), node);
                }
            }
        }
        return new DurableResults(all, limits, sustained, DurableDatabase.POSTGRESQL);
    }

    /** The same lines, read for {@code other}'s tables. */
    DurableResults on(DurableDatabase other) {
        return new DurableResults(all, limits, sustained, other);
    }

    /** The sustained-load lines of this database, in the order they were run. */
    List<JsonNode> sustained() {
        return sustained.getOrDefault(database, List.of());
    }

    /**
     * What this database itself committed of the timer's minimal work in the same run, pairs (an
     * insert, then a delete by key in a transaction of its own) a second; not a number if not measured.
     */
    double limitPerSecond() {
        JsonNode limit = limits.get(database);
        return limit == null ? Double.NaN : limit.get("pairsPerSecond").asDouble();
    }

    /** Whether any line is {@code other}'s. */
    boolean has(DurableDatabase other) {
        return all.containsKey(other);
    }

    /** The database whose lines these are. */
    DurableDatabase database() {
        return database;
    }

    /** Whether any line is of a QUICK smoke run. */
    boolean quick() {
        return quick;
    }

    /** {@code field} of {@code contender}'s line in {@code experiment}; not a number if there is none. */
    double value(String experiment, DurableContender contender, String field) {
        Map<DurableContender, JsonNode> byContender = results.get(experiment);
        JsonNode node = byContender == null ? null : byContender.get(contender);
        return node == null || node.get(field) == null
                ? Double.NaN
                : node.get(field).asDouble();
    }

    /** {@link #value} as a whole number with thousands separated, or "–". */
    String count(String experiment, DurableContender contender, String field) {
        double v = value(experiment, contender, field);
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%,d", (long) v);
    }

    /** {@code contender}'s line in {@code experiment}; null if there is none. */
    JsonNode node(String experiment, DurableContender contender) {
        Map<DurableContender, JsonNode> byContender = results.get(experiment);
        return byContender == null ? null : byContender.get(contender);
    }

    /** The least and the greatest 1-minute load average at the end of the measurements. */
    String loadRange() {
        double least = Double.NaN;
        double most = Double.NaN;
        for (Map<DurableContender, JsonNode> byContender : results.values()) {
            for (JsonNode node : byContender.values()) {
                if (node.has("loadAverage")) {
                    double load = node.get("loadAverage").asDouble();
                    least = Double.isNaN(least) ? load : Math.min(least, load);
                    most = Double.isNaN(most) ? load : Math.max(most, load);
                }
            }
        }
        return Report.fmt(least) + " to " + Report.fmt(most);
    }

    /** The server's version as the measurements' connections reported it, or "–". */
    String version() {
        for (Map<DurableContender, JsonNode> byContender : results.values()) {
            for (JsonNode node : byContender.values()) {
                if (node.has("databaseVersion")) {
                    return node.get("databaseVersion").asString();
                }
            }
        }
        return "–";
    }
}
