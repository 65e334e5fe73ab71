package io.wheeltimer.benchmarks.experiments;

import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.testsupport.CountingDataSource;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntToLongFunction;
import javax.sql.DataSource;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Durable timeouts side by side with db-scheduler, one measurement per JVM:
 * {@code java ... DurableExperiments EXPERIMENT CONTENDER [DATABASE]} prints one JSON line for a
 * {@link DurableContender} on a {@link DurableDatabase} ({@code postgresql}, the default, or {@code mariadb}).
 * Each run starts its own throwaway server of that database (the same binaries and settings every time),
 * creates a fresh database in it and the contender's table, and reaches it through a HikariCP pool of {@value #POOL_SIZE} connections, a Spring {@link DataSourceTransactionManager} and a
 * {@link CountingDataSource}. Every schedule and every cancel runs in a transaction of its own, through
 * that manager, as an application's would (placing an order schedules its payment deadline; paying it
 * cancels it).
 *
 * <ul>
 *   <li>{@code lateness}: 20,000 one-time timeouts whose deadlines are spread evenly over 10 s, each
 *       scheduled at least 30 s before its deadline (4 threads schedule them; the first deadline is 30 s
 *       after scheduling starts, later if the scheduling rate measured in the warm-up says the last would
 *       otherwise be scheduled less than 30 s ahead): how late each handler started (its start, wall
 *       clock, less the deadline), and how many times each ran;
 *   <li>{@code payment-1}, {@code payment-4}: schedule a timeout 30 minutes ahead, then cancel it, each in
 *       a transaction of the caller's, in a loop on 1 or 4 threads: operations (schedule + cancel) per
 *       second over 20 s after a 10 s warm-up;
 *   <li>{@code payment-own-1}, {@code payment-own-4}: the same with no transaction around the calls: each
 *       call commits its change on its own before it returns (db-scheduler, given the pool itself rather
 *       than Spring's proxy, runs its statements in auto-commit mode);
 *   <li>{@code burst}: 100,000 timeouts with one deadline, far enough ahead for all to be scheduled
 *       before it (by the warm-up's rate, with a margin): time from that deadline until all had run, and
 *       how many times each ran;
 *   <li>{@code idle}: 100,000 timeouts pending an hour ahead, nothing due: the statements the contender
 *       runs per second over 60 s (counted on the client by {@link CountingDataSource}), and per its
 *       poll interval;
 *   <li>{@code far} (the durable timer on PostgreSQL only): 1,000,000 timeouts scheduled 30 days ahead, in
 *       three stages: after each, the timeouts the instance holds, its heap after a full garbage
 *       collection, and the time of its claims; measured by {@link DurableFarExperiment}.
 * </ul>
 *
 * <p>Lateness and burst first schedule and cancel 2,000 timeouts two hours ahead, unmeasured: a warm-up
 * of the code and the pool, and the scheduling rate that sets how far ahead the measured ones are due.
 * The shortest lead of a deadline over the moment its scheduling returned is reported ({@code
 * minLeadMillis}).
 *
 * <p>With the environment variable {@code QUICK=1}, a smoke run: fewer timeouts, shorter windows, numbers
 * meaningless.
 */
public final class DurableExperiments {

    /** The pool size of every contender: room for its handler threads, its poller and 4 callers. */
    public static final int POOL_SIZE = 20;

    static final Clock CLOCK = Clock.systemUTC();

    // Package-private, as are CLOCK and pendingRows: DurableFarExperiment runs on them too.
    final DurableContender contender;
    final boolean quick;
    final CountingDataSource counting;
    final JdbcTemplate direct;
    final HandlerRecorder recorder = new HandlerRecorder();
    DurableContender.Durable durable;

    private final TransactionTemplate transactions;

    private volatile boolean stopping;

    private DurableExperiments(DurableContender contender, boolean quick, HikariDataSource pool) {
        this.contender = contender;
        this.quick = quick;
        this.counting = CountingDataSource.counting(pool);
        this.direct = new JdbcTemplate(pool);
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(counting));
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 && args.length != 3) {
            throw new IllegalArgumentException(
                    "usage: DurableExperiments lateness|payment-1|payment-4|payment-own-1|payment-own-4|burst|idle|far"
                            + " DURABLE|DB_SCHEDULER|DB_SCHEDULER_TUNED [postgresql|mariadb]");
        }
        DurableContender contender = DurableContender.valueOf(args[1]);
        DurableDatabase database = args.length == 3 ? DurableDatabase.of(args[2]) : DurableDatabase.POSTGRESQL;
        if (args[0].equals("far") && database != DurableDatabase.POSTGRESQL) {
            throw new IllegalArgumentException("far runs on PostgreSQL only (its ANALYZE and EXPLAIN)");
        }
        boolean quick = "1".equals(System.getenv("QUICK"));
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("experiment", args[0]);
        result.put("contender", contender.name());
        result.put("database", database.id());
        result.put("quick", quick);
        result.put("pollIntervalMillis", contender.pollInterval().toMillis());
        try (DurableDatabase.Server server = database.start();
                HikariDataSource pool = pool(server, contender, database)) {
            DurableExperiments run = new DurableExperiments(contender, quick, pool);
            for (String statement : database.tableStatements(contender)) {
                run.direct.execute(statement);
            }
            result.put("databaseVersion", run.direct.execute((ConnectionCallback<String>)
                    connection -> connection.getMetaData().getDatabaseProductVersion()));
            boolean callerTransactions = !args[0].startsWith("payment-own-");
            DataSource dataSource = run.counting;
            DurableFarExperiment far = null;
            if (args[0].equals("far")) {
                if (contender != DurableContender.DURABLE) {
                    throw new IllegalArgumentException("far measures the durable timer only, not " + contender);
                }
                far = new DurableFarExperiment(run);
                dataSource = far.claims();
            }
            run.durable = contender.start(
                    database, dataSource, run.transactions.getTransactionManager(), run.recorder, callerTransactions);
            switch (args[0]) {
                case "lateness" -> run.lateness(result);
                case "payment-1" -> run.payment(1, true, result);
                case "payment-4" -> run.payment(4, true, result);
                case "payment-own-1" -> run.payment(1, false, result);
                case "payment-own-4" -> run.payment(4, false, result);
                case "burst" -> run.burst(result);
                case "idle" -> run.idle(result);
                case "far" -> far.measure(result);
                default -> throw new IllegalArgumentException("unknown experiment " + args[0]);
            }
            // How busy the host was: the 1-minute load average as the measurement ends (2 cores here).
            result.put(
                    "loadAverage", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            run.durable.stop();
        }
        System.out.println(JsonMapper.builder().build().writeValueAsString(result));
        System.exit(0); // a scheduler thread must not keep the JVM alive
    }

    /** The contender's pool on {@code kind}, auto-commit as {@link DurableContender#poolAutoCommit} says. */
    private static HikariDataSource pool(
            DurableDatabase.Server server, DurableContender contender, DurableDatabase kind) {
        String database = "bench_" + contender.name().toLowerCase(Locale.ROOT);
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(server.createDatabase(database));
        pool.setUsername(server.username());
        pool.setMaximumPoolSize(POOL_SIZE);
        pool.setPoolName("bench");
        pool.setAutoCommit(contender.poolAutoCommit(kind));
        return pool;
    }

    // ---- the measurements ----

    private void lateness(Map<String, Object> result) throws InterruptedException {
        int count = quick ? 2_000 : 20_000;
        long spread = quick ? 2_000 : 10_000;
        long leadAtLeast = quick ? 10_000 : 30_000;
        double rate = calibrate(result);
        // The last is scheduled about count / rate after the first: each at least leadAtLeast ahead, with
        // half as much again and a second to spare.
        long ahead = leadAtLeast + 1_000 + Math.max(0, (long) (1.5e3 * count / rate) - spread);
        long first = CLOCK.millis() + ahead;
        long[] deadlines = new long[count];
        for (int i = 0; i < count; i++) {
            deadlines[i] = first + spread * i / count;
        }
        recorder.expect(deadlines);
        long[] scheduled = scheduleAll("k", count, i -> deadlines[i]);
        result.put("timeouts", count);
        result.put("spreadMillis", spread);
        result.put("firstDeadlineAfterMillis", ahead);
        result.put("scheduleMillis", scheduled[0]);
        result.put("minLeadMillis", scheduled[1]);
        awaitAll(deadlines[count - 1] + TimeUnit.SECONDS.toMillis(quick ? 60 : 180));
        long[] late = recorder.sortedLatenessMicros();
        result.put("minMillis", late[0] / 1e3);
        result.put("p50Millis", late[late.length / 2] / 1e3);
        result.put("p99Millis", late[(int) (late.length * 0.99)] / 1e3);
        result.put("maxMillis", late[late.length - 1] / 1e3);
        result.put("early", Arrays.stream(late).filter(l -> l < 0).count());
        onceCheck(result);
    }

    /**
     * Schedule, then cancel, in a loop; each call in a transaction of the caller's when
     * {@code callerTransactions}, else with no transaction around it.
     */
    private void payment(int threads, boolean callerTransactions, Map<String, Object> result)
            throws InterruptedException {
        long warmUp = quick ? 2_000 : 10_000;
        long measure = quick ? 3_000 : 20_000;
        recorder.expect(new long[0]);
        LongAdder ops = new LongAdder();
        RuntimeException[] failure = new RuntimeException[1];
        stopping = false;
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String prefix = "p" + t + "-";
            Thread worker = new Thread(
                    () -> {
                        try {
                            for (long n = 0; !stopping; n++) {
                                String key = prefix + n;
                                Instant deadline = Instant.ofEpochMilli(CLOCK.millis() + TimeUnit.MINUTES.toMillis(30));
                                if (callerTransactions) {
                                    transactions.executeWithoutResult(s -> durable.schedule(key, deadline));
                                    transactions.executeWithoutResult(s -> durable.cancel(key));
                                } else {
                                    durable.schedule(key, deadline);
                                    durable.cancel(key);
                                }
                                ops.increment();
                            }
                        } catch (RuntimeException e) {
                            failure[0] = e;
                        }
                    },
                    "payment-" + t);
            workers.add(worker);
            worker.start();
        }
        Thread.sleep(warmUp);
        long ops0 = ops.sum();
        Reading start = reading();
        Thread.sleep(measure);
        long ops1 = ops.sum();
        Reading end = reading();
        stopping = true;
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure[0] != null) {
            throw failure[0];
        }
        result.put("threads", threads);
        result.put("callerTransactions", callerTransactions);
        result.put("warmUpMillis", warmUp);
        result.put("measureMillis", measure);
        result.put("operations", ops1 - ops0);
        result.put("opsPerSecond", (ops1 - ops0) / end.secondsSince(start));
        // Its polls included: a few over the window, against thousands of operations.
        result.put("statementsPerOperation", end.statementsSince(start) / (double) Math.max(1, ops1 - ops0));
        // Explicit commits; a statement in auto-commit mode commits on its own and is not one of them.
        result.put("commitsPerOperation", end.commitsSince(start) / (double) Math.max(1, ops1 - ops0));
        result.put("leftPending", pendingRows());
        result.put("ran", recorder.ran.sum());
    }

    private void burst(Map<String, Object> result) throws InterruptedException {
        int count = quick ? 5_000 : 100_000;
        double rate = calibrate(result);
        long ahead = Math.max(quick ? 5_000 : 20_000, (long) (1.5e3 * count / rate) + 5_000);
        long deadline = CLOCK.millis() + ahead;
        long[] deadlines = new long[count];
        Arrays.fill(deadlines, deadline);
        recorder.expect(deadlines);
        long[] scheduled = scheduleAll("k", count, i -> deadline);
        result.put("timeouts", count);
        result.put("deadlineAfterMillis", ahead);
        result.put("scheduleMillis", scheduled[0]);
        result.put("minLeadMillis", scheduled[1]);
        awaitAll(deadline + TimeUnit.SECONDS.toMillis(quick ? 120 : 900));
        long[] late = recorder.sortedLatenessMicros();
        double allRan = late[late.length - 1] / 1e3;
        result.put("firstRanMillis", late[0] / 1e3);
        result.put("halfRanMillis", late[late.length / 2] / 1e3);
        result.put("allRanMillis", allRan);
        result.put("perSecond", count / (allRan / 1e3));
        onceCheck(result);
    }

    private void idle(Map<String, Object> result) throws InterruptedException {
        int count = quick ? 5_000 : 100_000;
        long start = CLOCK.millis() + TimeUnit.HOURS.toMillis(1);
        recorder.expect(new long[0]);
        long scheduled = scheduleAll("k", count, i -> start + i * 10L)[0]; // over the next 17 min
        long settle =
                Math.max(quick ? 2_000 : 5_000, 2 * contender.pollInterval().toMillis());
        Thread.sleep(settle);
        long window = quick ? 10_000 : 60_000;
        Reading before = reading();
        Thread.sleep(window);
        Reading after = reading();
        double seconds = after.secondsSince(before);
        double perSecond = after.statementsSince(before) / seconds;
        result.put("pending", count);
        result.put("scheduleMillis", scheduled);
        result.put("windowMillis", window);
        result.put("statements", after.statementsSince(before));
        result.put("statementsPerSecond", perSecond);
        result.put(
                "statementsPerPollInterval",
                perSecond * contender.pollInterval().toMillis() / 1e3);
        result.put("commitsPerSecond", after.commitsSince(before) / seconds);
        result.put("stillPending", pendingRows());
        result.put("ran", recorder.ran.sum());
    }

    // ---- helpers ----

    /** The statements and commits {@link #counting} has seen, and when: one end of a measured window. */
    private record Reading(long statements, long commits, long nanos) {
        long statementsSince(Reading start) {
            return statements - start.statements;
        }

        long commitsSince(Reading start) {
            return commits - start.commits;
        }

        double secondsSince(Reading start) {
            return (nanos - start.nanos) / 1e9;
        }
    }

    private Reading reading() {
        return new Reading(counting.statements(), counting.commits(), System.nanoTime());
    }

    /**
     * Schedules and cancels 2,000 timeouts two hours ahead on 4 threads, unmeasured (they warm up the code
     * paths and the pool), and returns the rate at which the second 1,000 were scheduled, per second: how
     * far ahead the measured ones must be due for all to be in before their deadlines.
     */
    private double calibrate(Map<String, Object> result) throws InterruptedException {
        int half = quick ? 200 : 1_000;
        long deadline = CLOCK.millis() + TimeUnit.HOURS.toMillis(2);
        scheduleAll("w", half, i -> deadline);
        long millis = Math.max(1, scheduleAll("x", half, i -> deadline)[0]); // the rate once warm
        cancelAll("w", half);
        cancelAll("x", half);
        double rate = half * 1e3 / millis;
        result.put("warmUpSchedulesPerSecond", rate);
        return rate;
    }

    /**
     * Schedules {@code count} timeouts (keys {@code prefix0}...) on 4 threads, each in its own transaction,
     * {@code deadline} giving the epoch ms of each; returns the ms taken and the shortest lead, in ms,
     * of a deadline over the moment its scheduling returned.
     */
    private long[] scheduleAll(String prefix, int count, IntToLongFunction deadline) throws InterruptedException {
        long t0 = System.nanoTime();
        AtomicLong minLead = new AtomicLong(Long.MAX_VALUE);
        Callers.onThreads(count, i -> {
            String key = prefix + i;
            long at = deadline.applyAsLong(i);
            transactions.executeWithoutResult(s -> durable.schedule(key, Instant.ofEpochMilli(at)));
            minLead.accumulateAndGet(at - CLOCK.millis(), Math::min);
        });
        return new long[] {TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), minLead.get()};
    }

    private void cancelAll(String prefix, int count) throws InterruptedException {
        Callers.onThreads(count, i -> {
            String key = prefix + i;
            transactions.executeWithoutResult(s -> durable.cancel(key));
        });
    }

    /** Waits until every expected timeout ran once, or until {@code giveUpAt} (epoch ms); then 3 s more for duplicates. */
    private void awaitAll(long giveUpAt) throws InterruptedException {
        while (recorder.distinct.sum() < recorder.expected() && CLOCK.millis() < giveUpAt) {
            Thread.sleep(50);
        }
        Thread.sleep(3_000);
    }

    /** Exactly once: duplicates, missing, and rows left in the table. */
    private void onceCheck(Map<String, Object> result) {
        result.put("ran", recorder.ran.sum());
        result.put("duplicates", recorder.duplicates());
        result.put("missing", recorder.missing());
        result.put("unexpected", recorder.unexpected.sum());
        result.put("leftPending", pendingRows());
    }

    long pendingRows() {
        Long rows = direct.queryForObject("SELECT count(*) FROM " + contender.table(), Long.class);
        return rows == null ? 0 : rows;
    }
}
