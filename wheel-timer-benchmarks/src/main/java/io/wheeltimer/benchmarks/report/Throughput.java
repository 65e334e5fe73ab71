package io.wheeltimer.benchmarks.report;

import io.wheeltimer.benchmarks.jmh.Contender;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * JMH throughput by tick (ms), then contender: ops/µs and B/op ({@code gc.alloc.rate.norm}) with 1 and 2
 * threads, from one JSON results file.
 */
final class Throughput {

    private final Map<Integer, Map<Contender, double[]>> opsPerMicro = new HashMap<>();
    private final Map<Integer, Map<Contender, double[]>> bytesPerOp = new HashMap<>();

    Throughput(Path file) throws IOException {
        if (!Files.exists(file)) {
            throw new IllegalArgumentException("no results at " + file + ": run-benchmarks.sh writes it");
        }
        for (JsonNode run : JsonMapper.builder().build().readTree(file.toFile())) {
            Contender contender =
                    Contender.valueOf(run.get("params").get("contender").asString());
            int tick = run.get("params").get("tickMillis").asInt();
            int column = run.get("benchmark").asString().endsWith("oneThread") ? 0 : 1;
            ops(tick, contender)[column] = run.get("primaryMetric").get("score").asDouble();
            JsonNode secondary = run.get("secondaryMetrics");
            JsonNode norm = secondary.has("gc.alloc.rate.norm")
                    ? secondary.get("gc.alloc.rate.norm")
                    : secondary.get("·gc.alloc.rate.norm"); // the name before JMH 1.37
            cell(bytesPerOp, tick, contender)[column] =
                    norm == null ? Double.NaN : norm.get("score").asDouble();
        }
    }

    double[] ops(int tick, Contender contender) {
        return cell(opsPerMicro, tick, contender);
    }

    double[] bytes(int tick, Contender contender) {
        return cell(bytesPerOp, tick, contender);
    }

    private static double[] cell(Map<Integer, Map<Contender, double[]>> table, int tick, Contender contender) {
        return table.computeIfAbsent(tick, t -> new EnumMap<>(Contender.class))
                .computeIfAbsent(contender, c -> new double[] {Double.NaN, Double.NaN});
    }

    /**
     * A row per tick and contender: ops/µs and × Netty with 1 thread, then with 2, then, if {@code
     * withBytes}, B/op with 1 and 2 threads.
     */
    String rows(Contender[] contenders, boolean withBytes) {
        StringJoiner rows = new StringJoiner("\n");
        for (int tick : Report.TICKS) {
            double[] netty = ops(tick, Contender.NETTY);
            for (Contender c : contenders) {
                double[] ops = ops(tick, c);
                StringBuilder row = new StringBuilder("| ")
                        .append(c.label())
                        .append(" | ")
                        .append(tick)
                        .append(" ms | ")
                        .append(Report.fmt(ops[0]))
                        .append(" | ")
                        .append(Report.ratio(ops[0], netty[0]))
                        .append(" | ")
                        .append(Report.fmt(ops[1]))
                        .append(" | ")
                        .append(Report.ratio(ops[1], netty[1]));
                if (withBytes) {
                    row.append(" | ")
                            .append(Report.fmt(bytes(tick, c)[0]))
                            .append(" | ")
                            .append(Report.fmt(bytes(tick, c)[1]));
                }
                rows.add(row.append(" |"));
            }
        }
        return rows.toString();
    }

    /** Whether both layouts, with 1 and with 2 threads at each tick, meet {@code target} × Netty. */
    void targetRows(StringJoiner rows, Targets.Target target) {
        for (int tick : Report.TICKS) {
            for (int column = 0; column < 2; column++) {
                double netty = ops(tick, Contender.NETTY)[column];
                double f = ops(tick, Contender.WHEEL_FLAT)[column] / netty;
                double h = ops(tick, Contender.WHEEL_HIERARCHICAL)[column] / netty;
                rows.add(Report.targetRow(
                        target.text("threads", Report.threads(column + 1), "tick", String.valueOf(tick)),
                        target.met(f) && target.met(h),
                        Report.x(f),
                        Report.x(h)));
            }
        }
    }
}
