package io.wheeltimer.dashboard;

import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The server time of one refresh of the dashboard's overview figures (the three statements and the
 * HTML) on an embedded PostgreSQL holding 1,000,000 pending timeouts of one task (deadlines 2.6 s
 * apart over the next 30 days) and 10,000 given-up ones, with a durable timer running on it. Run by
 * hand, never by the build (in this package to reach the dashboard's package-private sections):
 *
 * <pre>
 * ./mvnw -B -q -pl wheel-timer-benchmarks -am package dependency:build-classpath -DskipTests \
 *     -Dmdep.outputFile=wheel-timer-benchmarks/target/cp.txt
 * java -cp wheel-timer-benchmarks/target/classes:$(cat wheel-timer-benchmarks/target/cp.txt) \
 *     io.wheeltimer.dashboard.DashboardOverviewExperiment
 * </pre>
 *
 * Prints one JSON line: the rows, the refreshes measured, and their p50, p95 and max in milliseconds.
 */
public final class DashboardOverviewExperiment {

    private static final String TASK = "order-payment";
    private static final int PENDING = 1_000_000;
    private static final int GIVEN_UP = 10_000;
    private static final int WARM_UP = 50;
    private static final int MEASURED = 500;

    private DashboardOverviewExperiment() {}

    public static void main(String[] args) throws Exception {
        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start();
                HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(server.createDatabase("dashboard"));
            pool.setUsername(server.username());
            pool.setMaximumPoolSize(4);
            JdbcTemplate jdbc = new JdbcTemplate(pool);
            jdbc.execute(script());
            long now = System.currentTimeMillis();
            long spacing = Duration.ofDays(30).toMillis() / PENDING;
            jdbc.update(
                    "INSERT INTO wheel_timer_timeouts (task, timeout_key, deadline, due_at, version, attempts)"
                            + " SELECT ?, 'order-' || i, ? + i * ?, ? + i * ?, 1, 0 FROM generate_series(1, ?) i",
                    TASK,
                    now + 60_000,
                    spacing,
                    now + 60_000,
                    spacing,
                    PENDING);
            jdbc.update(
                    "INSERT INTO wheel_timer_timeouts (task, timeout_key, deadline, due_at, version, attempts,"
                            + " failed_at, last_error) SELECT ?, 'given-up-' || i, ? - i * 1000, NULL, 1, 10, ? - i * 1000,"
                            + " 'java.lang.IllegalStateException: payment service down' FROM generate_series(1, ?) i",
                    TASK,
                    now,
                    now,
                    GIVEN_UP);
            // As autovacuum leaves a table that has settled: statistics and the visibility map up to date.
            jdbc.execute("VACUUM ANALYZE wheel_timer_timeouts");

            HashedWheelTimer wheel =
                    HashedWheelTimer.builder().name("experiment").build();
            DataSourceTransactionManager transactions = new DataSourceTransactionManager(pool);
            JdbcDurableTimer durable = JdbcDurableTimer.builder(pool, transactions, wheel)
                    .handler(TASK, timeout -> {})
                    .build();
            durable.start();
            try {
                JdbcDurableSections sections = new JdbcDurableSections(
                        durable, new LatenessWindow(Clock.systemUTC()), new TransactionTemplate(transactions));
                Viewer viewer = new Viewer("/wheel-timer", false, false, "");
                long[] nanos = new long[MEASURED];
                int length = 0;
                for (int i = 0; i < WARM_UP + MEASURED; i++) {
                    StringBuilder out = new StringBuilder();
                    long t0 = System.nanoTime();
                    sections.figures(out, viewer);
                    long took = System.nanoTime() - t0;
                    if (i >= WARM_UP) {
                        nanos[i - WARM_UP] = took;
                    }
                    length = out.length();
                }
                Arrays.sort(nanos);
                System.out.println(String.format(
                        Locale.ROOT,
                        "{\"experiment\":\"dashboard-overview\",\"pending\":%d,\"givenUp\":%d,\"refreshes\":%d,"
                                + "\"p50Millis\":%.2f,\"p95Millis\":%.2f,\"maxMillis\":%.2f,\"htmlChars\":%d}",
                        PENDING,
                        GIVEN_UP,
                        MEASURED,
                        nanos[MEASURED / 2] / 1e6,
                        nanos[(int) Math.ceil(MEASURED * 0.95) - 1] / 1e6,
                        nanos[MEASURED - 1] / 1e6,
                        length));
            } finally {
                durable.stop();
                wheel.stop();
            }
        }
    }

    private static String script() throws IOException {
        try (InputStream in = JdbcDurableTimer.class.getResourceAsStream("schema-postgresql.sql")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
