package io.wheeltimer.benchmarks.experiments;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Many timeouts at once, on the embedded PostgreSQL, in one run: {@value #COUNT} timeouts an hour ahead
 * written by one {@code scheduleAll}, by {@value #COUNT} {@code schedule} calls that each commit (no
 * transaction around them: each is one auto-committed statement), and by db-scheduler's
 * {@code scheduleBatch} (its defaults, on the pool itself). Each is measured {@value #ROUNDS} times on an
 * empty table after a warm-up round; prints one JSON line with every time in milliseconds and the medians.
 *
 * <p>{@code java ... DurableBulkExperiment flushed} runs it on a server with PostgreSQL's default durability
 * (each commit waits until its log is on the disk, as in production: experiment {@code bulk});
 * {@code unflushed} on the test server's settings ({@code fsync} and {@code synchronous_commit} off, where a
 * commit costs next to nothing: experiment {@code bulk-unflushed}).
 */
public final class DurableBulkExperiment {

    static final int COUNT = 10_000;
    static final int ROUNDS = 5;

    public static void main(String[] args) throws Exception {
        if (args.length != 1 || !List.of("flushed", "unflushed").contains(args[0])) {
            throw new IllegalArgumentException(
                    "usage: DurableBulkExperiment flushed|unflushed (commits flushed to disk or not), not "
                            + List.of(args));
        }
        boolean flushed = args[0].equals("flushed");
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("experiment", flushed ? "bulk" : "bulk-unflushed");
        result.put("contender", DurableContender.DURABLE.name());
        result.put("database", DurableDatabase.POSTGRESQL.id());
        result.put("timeouts", COUNT);
        try (EmbeddedPostgresServer server =
                        flushed ? EmbeddedPostgresServer.startFlushingCommits() : EmbeddedPostgresServer.start();
                HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(server.createDatabase("bench_bulk"));
            pool.setUsername(server.username());
            pool.setMaximumPoolSize(DurableExperiments.POOL_SIZE);
            JdbcTemplate jdbc = new JdbcTemplate(pool);
            for (DurableContender contender : List.of(DurableContender.DURABLE, DurableContender.DB_SCHEDULER)) {
                DurableDatabase.POSTGRESQL.tableStatements(contender).forEach(jdbc::execute);
            }

            HashedWheelTimer wheel = HashedWheelTimer.builder()
                    .tickDuration(Duration.ofMillis(10))
                    .build();
            JdbcDurableTimer timer = JdbcDurableTimer.builder(pool, new DataSourceTransactionManager(pool), wheel)
                    .handler(DurableContender.TASK, timeout -> {})
                    .build();
            timer.start();
            OneTimeTask<Void> task = Tasks.oneTime(DurableContender.TASK).execute((instance, context) -> {});
            Scheduler scheduler = Scheduler.create(pool, task).build();
            scheduler.start();
            try {
                Instant deadline = Instant.now().plus(Duration.ofHours(1));
                List<Long> all = new ArrayList<>();
                List<Long> single = new ArrayList<>();
                List<Long> dbScheduler = new ArrayList<>();
                for (int round = 0; round <= ROUNDS; round++) {
                    String prefix = "r" + round + "-";
                    List<DurableTimeout> timeouts = new ArrayList<>(COUNT);
                    List<TaskInstance<?>> instances = new ArrayList<>(COUNT);
                    for (int i = 0; i < COUNT; i++) {
                        timeouts.add(new DurableTimeout(DurableContender.TASK, prefix + i, deadline.plusMillis(i)));
                        instances.add(task.instance(prefix + i));
                    }
                    long t0 = System.nanoTime();
                    timer.scheduleAll(timeouts);
                    long t1 = System.nanoTime();
                    jdbc.update("DELETE FROM wheel_timer_timeouts");
                    long t2 = System.nanoTime();
                    for (DurableTimeout t : timeouts) {
                        timer.schedule(t.task(), t.key(), t.deadline());
                    }
                    long t3 = System.nanoTime();
                    jdbc.update("DELETE FROM wheel_timer_timeouts");
                    long t4 = System.nanoTime();
                    scheduler.scheduleBatch(instances, deadline);
                    long t5 = System.nanoTime();
                    jdbc.update("DELETE FROM scheduled_tasks");
                    if (round > 0) { // round 0 warms up
                        all.add((t1 - t0) / 1_000_000);
                        single.add((t3 - t2) / 1_000_000);
                        dbScheduler.add((t5 - t4) / 1_000_000);
                    }
                }
                result.put("scheduleAllMillis", all);
                result.put("singleSchedulesMillis", single);
                result.put("dbSchedulerScheduleBatchMillis", dbScheduler);
                long a = median(all);
                long s = median(single);
                long d = median(dbScheduler);
                result.put("scheduleAllMedianMillis", a);
                result.put("singleSchedulesMedianMillis", s);
                result.put("dbSchedulerScheduleBatchMedianMillis", d);
                result.put("speedupOverSingle", Math.round(10.0 * s / Math.max(1, a)) / 10.0);
            } finally {
                scheduler.stop();
                timer.stop();
                wheel.stop();
            }
        }
        System.out.println(result.entrySet().stream()
                .map(e -> "\"" + e.getKey() + "\":" + json(e.getValue()))
                .collect(Collectors.joining(",", "{", "}")));
    }

    private static String json(Object value) {
        return value instanceof String s
                ? "\"" + s + "\""
                : String.valueOf(value).replace(" ", "");
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
