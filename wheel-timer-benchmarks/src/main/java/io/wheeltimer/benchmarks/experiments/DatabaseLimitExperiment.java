package io.wheeltimer.benchmarks.experiments;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the database itself can commit of a durable timeout's minimal work, done by hand over JDBC:
 * {@code java ... DatabaseLimitExperiment DATABASE} ({@code postgresql} or {@code mariadb}) prints one
 * JSON line. On a throwaway server of that database (the same binaries and settings as {@link
 * DurableExperiments}), in the durable timer's own table (its shipped schema, its indexes), through a
 * HikariCP pool of {@value DurableExperiments#POOL_SIZE} connections, {@value DurableExperiments#POOL_SIZE}
 * threads each repeat a pair: insert one row in auto-commit (a schedule), then, in a transaction of its
 * own, delete it by its key and commit (a run whose handler writes nothing), switching auto-commit off
 * and on around it as Spring's transaction manager does. Pairs a second over {@value #MEASURED_SECONDS} s
 * after a {@value #WARM_UP_SECONDS} s warm-up: the ceiling beside each durable throughput figure.
 */
public final class DatabaseLimitExperiment {

    static final int WARM_UP_SECONDS = 5;
    static final int MEASURED_SECONDS = 20;

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            throw new IllegalArgumentException(
                    "usage: DatabaseLimitExperiment postgresql|mariadb, not " + List.of(args));
        }
        DurableDatabase database = DurableDatabase.of(args[0]);
        boolean quick = "1".equals(System.getenv("QUICK"));
        int threads = DurableExperiments.POOL_SIZE;
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("experiment", "limit");
        result.put("contender", "DATABASE");
        result.put("database", database.id());
        result.put("threads", threads);
        try (DurableDatabase.Server server = database.start();
                HikariDataSource pool =
                        SustainedExperiment.pool(server.createDatabase("bench_limit"), server.username())) {
            JdbcTemplate jdbc = new JdbcTemplate(pool);
            database.tableStatements(DurableContender.DURABLE).forEach(jdbc::execute);
            LongAdder pairs = new LongAdder();
            LongAdder deadlocks = new LongAdder();
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(threads);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String prefix = "limit-" + t + "-";
                Thread worker = new Thread(
                        () -> {
                            try {
                                for (long i = 0; running.get(); i++) {
                                    insertThenDelete(pool, prefix + i, deadlocks);
                                    pairs.increment();
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, e);
                            } finally {
                                done.countDown();
                            }
                        },
                        "limit-" + t);
                workers.add(worker);
                worker.start();
            }
            TimeUnit.SECONDS.sleep(quick ? 1 : WARM_UP_SECONDS);
            long before = pairs.sum();
            long start = System.nanoTime();
            TimeUnit.SECONDS.sleep(quick ? 2 : MEASURED_SECONDS);
            long measured = pairs.sum() - before;
            double seconds = (System.nanoTime() - start) / 1e9;
            running.set(false);
            done.await(30, TimeUnit.SECONDS);
            if (failure.get() != null) {
                throw new IllegalStateException("a pair failed", failure.get());
            }
            result.put("measuredSeconds", Math.round(seconds * 10) / 10.0);
            result.put("pairs", measured);
            result.put("pairsPerSecond", Math.round(measured / seconds));
            result.put("deadlocksRetried", deadlocks.sum());
        }
        System.out.println(SustainedExperiment.json(result));
    }

    /**
     * A schedule (one insert in auto-commit), then a run (a transaction that deletes the row by its key),
     * each tried again when the database ended it to break a deadlock (InnoDB's locks on the secondary
     * indexes let concurrent inserts and deletes of neighbouring rows deadlock); each such retry is
     * counted in {@code deadlocks}.
     */
    private static void insertThenDelete(HikariDataSource pool, String key, LongAdder deadlocks) throws SQLException {
        long deadline = System.currentTimeMillis() + 3_600_000;
        retryingDeadlocks(deadlocks, () -> {
            try (Connection connection = pool.getConnection();
                    PreparedStatement insert = connection.prepareStatement("INSERT INTO wheel_timer_timeouts"
                            + " (task, timeout_key, deadline, due_at, holder, version) VALUES (?, ?, ?, ?, ?, 1)")) {
                insert.setString(1, DurableContender.TASK);
                insert.setString(2, key);
                insert.setLong(3, deadline);
                insert.setLong(4, deadline);
                insert.setString(5, "limit");
                insert.executeUpdate();
            }
        });
        retryingDeadlocks(deadlocks, () -> {
            try (Connection connection = pool.getConnection()) {
                connection.setAutoCommit(false);
                try (PreparedStatement delete = connection.prepareStatement(
                        "DELETE FROM wheel_timer_timeouts WHERE task = ? AND timeout_key = ?")) {
                    delete.setString(1, DurableContender.TASK);
                    delete.setString(2, key);
                    if (delete.executeUpdate() != 1) {
                        throw new IllegalStateException("row " + key + " was not there to delete");
                    }
                    connection.commit();
                } catch (SQLException e) {
                    connection.rollback();
                    throw e;
                } finally {
                    connection.setAutoCommit(true);
                }
            }
        });
    }

    /** One statement or transaction on its own connection. */
    @FunctionalInterface
    private interface Work {
        void run() throws SQLException;
    }

    private static void retryingDeadlocks(LongAdder deadlocks, Work work) throws SQLException {
        while (true) {
            try {
                work.run();
                return;
            } catch (SQLTransactionRollbackException e) {
                deadlocks.increment();
            }
        }
    }
}
