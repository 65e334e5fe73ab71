package io.wheeltimer.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.HashedWheelTimer;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The instance {@link DurableTimerCrashTest} kills, run in a JVM of its own. It schedules timeouts on
 * the given table, some due at once whose handlers write a row and then block, so that they are in the
 * middle of their transaction; once those have started it prints {@value #READY} and waits to be killed.
 *
 * <p>Arguments: JDBC URL, user, table, instance id, timeouts due at once (blocking), timeouts due
 * later, how long after scheduling the first later one is due (ms), spacing of the later deadlines
 * (ms), lease (ms), poll interval (ms). With no blocking timeouts it is ready once it has scheduled.
 */
public final class CrashingInstance {

    static final String READY = "READY";

    private CrashingInstance() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = args[1];
        String table = args[2];
        String instance = args[3];
        int blocking = Integer.parseInt(args[4]);
        int later = Integer.parseInt(args[5]);
        long firstLaterAfter = Long.parseLong(args[6]);
        long spacing = Long.parseLong(args[7]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[8]));
        Duration poll = Duration.ofMillis(Long.parseLong(args[9]));

        HikariDataSource dataSource = TestDatabase.pool(url, user, blocking + 10);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        CountDownLatch blockedInTransaction = new CountDownLatch(blocking);
        HashedWheelTimer wheel = HashedWheelTimer.builder()
                .name("crashing-wheel")
                .tickDuration(Duration.ofMillis(10))
                .build();
        JdbcDurableTimer durable = JdbcDurableTimer.builder(
                        dataSource, new DataSourceTransactionManager(dataSource), wheel)
                .tableName(table)
                .instanceId(instance)
                .pollInterval(poll)
                .lookahead(Duration.ofSeconds(10))
                .lease(lease)
                .handler("order-payment", timeout -> {
                    jdbc.update(
                            "INSERT INTO " + table + "_writes (task, timeout_key, instance) VALUES (?, ?, ?)",
                            timeout.task(),
                            timeout.key(),
                            instance);
                    if (timeout.key().startsWith("blocking-")) {
                        blockedInTransaction.countDown();
                        Thread.sleep(Long.MAX_VALUE); // killed here, before the commit
                    }
                })
                .build();
        durable.start();
        while (durable.lastSuccessfulPoll().isEmpty()) {
            Thread.sleep(10);
        }
        for (int i = 0; i < blocking; i++) {
            durable.schedule("order-payment", "blocking-" + i, Duration.ZERO);
        }
        long firstLater = System.currentTimeMillis() + firstLaterAfter;
        for (int i = 0; i < later; i++) {
            durable.schedule("order-payment", "later-" + i, Instant.ofEpochMilli(firstLater + spacing * i));
        }
        if (!blockedInTransaction.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the blocking handlers did not all start");
        }
        System.out.println(READY + " held=" + durable.held());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
