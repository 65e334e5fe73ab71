package io.wheeltimer.benchmarks.experiments;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The {@code far} experiment of {@link DurableExperiments}, the durable timer on PostgreSQL only: 1,000,000
 * timeouts scheduled 30 days ahead by plain {@code schedule} calls on 4 threads, in three stages (10,000,
 * 100,000, then 1,000,000 rows in the table). For the empty instance (started, 2,000 scheduled and cancelled
 * as a warm-up) and after each stage, once {@code ANALYZE} has brought the table's statistics up to date (as
 * autovacuum does within a minute of such a change): the timeouts it holds, the heap used after a full
 * garbage collection (the least of five readings, each after {@code System.gc()}), the time of each claim the
 * poller ran over the next 30 polls, timed on the client by {@link TimedStatements}, and PostgreSQL's
 * planning and execution time of that claim ({@code EXPLAIN ANALYZE}, with the values a poll binds; the third
 * of three), whose plan at 1,000,000 rows is kept. In quick mode, 2,000 then 20,000 rows and 5 polls a stage.
 *
 * <p>It runs on the pool, the contender, the durable timer and the recorder of a {@link DurableExperiments}
 * run; that timer must be started on {@link #claims()}, so that its claims are timed.
 */
final class DurableFarExperiment {

    /** How the durable timer's claim on PostgreSQL begins: the one statement of its kind. */
    private static final String CLAIM_PREFIX = "WITH due AS";

    private final DurableExperiments run;
    /** The poller's claims, timed. */
    private final TimedStatements claims;
    /** The claim's plan at the last stage, as {@code EXPLAIN ANALYZE} gave it. */
    private List<String> lastPlan = List.of();

    DurableFarExperiment(DurableExperiments run) {
        this.run = run;
        this.claims = new TimedStatements(run.counting, CLAIM_PREFIX);
    }

    /** The data source to start the durable timer on: the run's, with the claims timed. */
    TimedStatements claims() {
        return claims;
    }

    void measure(Map<String, Object> result) throws InterruptedException {
        int[] stages = run.quick ? new int[] {2_000, 20_000} : new int[] {10_000, 100_000, 1_000_000};
        int polls = run.quick ? 5 : 30;
        long first = DurableExperiments.CLOCK.millis() + TimeUnit.DAYS.toMillis(30);
        run.recorder.expect(new long[0]);
        Callers.onThreads(2_000, i -> run.durable.schedule("w" + i, Instant.ofEpochMilli(first)));
        Callers.onThreads(2_000, i -> run.durable.cancel("w" + i));
        result.put("stages", new ArrayList<>(List.of(stage(0, polls))));
        long scheduleNanos = 0;
        int scheduled = 0;
        for (int stage : stages) {
            int from = scheduled;
            long t0 = System.nanoTime();
            // Deadlines a millisecond apart from 30 days ahead: 1,000,000 span 17 minutes.
            Callers.onThreads(
                    stage - from, i -> run.durable.schedule("f" + (from + i), Instant.ofEpochMilli(first + from + i)));
            scheduleNanos += System.nanoTime() - t0;
            scheduled = stage;
            @SuppressWarnings("unchecked")
            List<Object> rows = (List<Object>) result.get("stages");
            rows.add(stage(scheduled, polls));
        }
        result.put("claimPlan", lastPlan);
        result.put("timeouts", scheduled);
        result.put("aheadDays", 30);
        result.put("scheduleMillis", TimeUnit.NANOSECONDS.toMillis(scheduleNanos));
        result.put("schedulesPerSecond", scheduled / (scheduleNanos / 1e9));
        result.put("ran", run.recorder.ran.sum());
    }

    /**
     * One line of the experiment, once the table's statistics are brought up to date: what is held, the heap,
     * the claims of the next {@code polls} polls, and PostgreSQL's own time for one.
     */
    private Map<String, Object> stage(int scheduled, int polls) throws InterruptedException {
        // The claim's plan, and so its time, follow the statistics. Autovacuum gathers them within a minute
        // (its default naptime) of a change this size; a stage here takes seconds.
        run.direct.execute("ANALYZE " + run.contender.table());
        claims.take(); // those that ran before
        Thread.sleep(polls * run.contender.pollInterval().toMillis() + 500);
        long[] claimNanos = claims.take();
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("scheduled", scheduled);
        line.put("rows", run.pendingRows());
        line.put("held", run.durable.held());
        line.put("heapAfterGcBytes", heapAfterGc());
        List<String> plan = List.of();
        for (int i = 0; i < 3; i++) {
            plan = explainClaim("EXPLAIN (ANALYZE, BUFFERS) ");
        }
        lastPlan = plan;
        for (String text : plan) {
            if (text.startsWith("Planning Time: ")) {
                line.put("claimPlanningMillis", Double.parseDouble(text.replaceAll("[^0-9.]", "")));
            } else if (text.startsWith("Execution Time: ")) {
                line.put("claimExecutionMillis", Double.parseDouble(text.replaceAll("[^0-9.]", "")));
            }
        }
        Arrays.sort(claimNanos);
        line.put("claims", claimNanos.length);
        if (claimNanos.length > 0) {
            line.put("claimMinMillis", claimNanos[0] / 1e6);
            line.put("claimMedianMillis", claimNanos[claimNanos.length / 2] / 1e6);
            line.put("claimP90Millis", claimNanos[(int) (claimNanos.length * 0.9)] / 1e6);
            line.put("claimMaxMillis", claimNanos[claimNanos.length - 1] / 1e6);
        }
        return line;
    }

    /**
     * {@code explain} of the claim the poller last ran, with the values a poll binds now: due within the
     * 10 s lookahead, healing its own rows past due by a poll interval, at most 1,000 rows; for an
     * instance id no poll uses. With nothing due, even {@code ANALYZE} claims nothing.
     */
    private List<String> explainClaim(String explain) {
        long now = DurableExperiments.CLOCK.millis();
        String instance = "explain";
        return run.direct.queryForList(
                explain + claims.lastSql(),
                String.class,
                now + 10_000,
                instance,
                now - run.contender.pollInterval().toMillis(),
                now,
                DurableContender.TASK,
                1_000,
                instance);
    }

    /** The heap used after a full collection: the least of five readings, each just after {@code System.gc()}. */
    private static long heapAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
            least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
        }
        return least;
    }
}
