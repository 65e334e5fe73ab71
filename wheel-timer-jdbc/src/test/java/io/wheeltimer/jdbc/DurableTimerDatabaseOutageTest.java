package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.testsupport.LogCapture;
import io.wheeltimer.testsupport.mariadb.MariaDbServer;
import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;

/**
 * The database server stopped and started again under a running durable timer (PostgreSQL, and
 * MariaDB through either driver; H2 runs in this JVM): schedule, cancel and find throw
 * {@link DataAccessException}, the poller logs one WARN line (at most one per 10 s), nothing is
 * lost, and once the database is back everything pending fires without a restart.
 */
@ParameterizedClass
@MethodSource("io.wheeltimer.jdbc.TestDatabase#testedServers")
class DurableTimerDatabaseOutageTest {

    private static final String TASK = "order-payment";

    private final TestDatabase database;

    /** A server of its own: this test stops it. */
    private OwnServer server;

    private HikariDataSource dataSource;

    DurableTimerDatabaseOutageTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void startServer() {
        server = OwnServer.start(database);
        dataSource = TestDatabase.pool(server.jdbcUrl(), server.username(), 10);
        dataSource.setConnectionTimeout(500);
    }

    @AfterEach
    void closeServer() throws Exception {
        dataSource.close();
        server.closer().close();
    }

    @Test
    void whileTheDatabaseIsDownNothingIsLostTheLogIsThrottledAndItRecoversWithoutARestart() {
        // Spring logs through SLF4J here: its transaction code must add no ERROR line of its own (a
        // rollback that fails after a statement failed) to the timer's throttled ones.
        ch.qos.logback.classic.Logger spring =
                (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("org.springframework.transaction");
        ListAppender<ILoggingEvent> springLog = new ListAppender<>();
        springLog.start();
        spring.addAppender(springLog);
        try (DurableFixture fixture = new DurableFixture(database, dataSource);
                LogCapture log = LogCapture.of(JdbcDurableTimer.class)) {
            RecordingHandler handler = fixture.writingHandler("one");
            JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));
            durable.schedule(TASK, "due-during-outage", Duration.ofMillis(1200));
            durable.schedule(TASK, "due-after-outage", Duration.ofSeconds(6));
            durable.schedule(TASK, "far-away", Duration.ofHours(1));

            long down = System.nanoTime();
            server.stop().run();

            assertThatExceptionOfType(DataAccessException.class)
                    .isThrownBy(() -> durable.schedule(TASK, "while-down", Duration.ofMinutes(1)));
            assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> durable.cancel(TASK, "far-away"));
            assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> durable.find(TASK, "far-away"));
            // Polls fail, and the firing of the timeout due meanwhile fails too and is retried.
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> durable.failedPollsInARow() >= 5 && handler.count() == 0);
            await().atMost(Duration.ofSeconds(10)).until(() -> durable.failedPollsInARow() >= 8);
            assertThat(handler.count()).isZero();
            // The first failure is logged at once; within 10 s of it, nothing more.
            assertThat(pollWarnings(log)).hasSizeBetween(1, warnLinesAllowed(down));
            assertThat(pollWarnings(log).get(0)).contains("could not poll table " + fixture.table);
            assertOnlyTheCountWarnedApart(log);

            server.startAgain().run();

            // The test's own reads may fail while the pool reconnects.
            await().atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .until(() -> fixture.writes("due-during-outage") == 1);
            await().atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .until(() -> fixture.writes("due-after-outage") == 1);
            assertThat(durable.failedPollsInARow()).isZero();
            assertThat(durable.find(TASK, "far-away")).isPresent();
            assertThat(durable.find(TASK, "while-down")).isEmpty();
            assertThat(handler.count("due-during-outage")).isEqualTo(1);
            assertThat(pollWarnings(log)).hasSizeBetween(1, warnLinesAllowed(down));
            assertOnlyTheCountWarnedApart(log);
            assertThat(log.messages(Level.INFO)).anyMatch(m -> m.contains("polls table " + fixture.table + " again"));
            assertThat(springLog.list)
                    .filteredOn(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN))
                    .as("Spring's transaction code logged nothing above INFO")
                    .isEmpty();
        } finally {
            spring.detachAppender(springLog);
        }
    }

    /** The WARN lines about failed polls. */
    private static List<String> pollWarnings(LogCapture log) {
        return log.messages(Level.WARNING).stream()
                .filter(m -> m.contains("could not poll"))
                .toList();
    }

    /**
     * Besides the polls, only the count of rows of unhandled tasks may have warned, once: it runs on a
     * thread of its own, soon after the start, and may meet the outage too; it then waits 10 minutes.
     */
    private static void assertOnlyTheCountWarnedApart(LogCapture log) {
        assertThat(log.messages(Level.WARNING))
                .filteredOn(m -> !m.contains("could not poll"))
                .hasSizeLessThanOrEqualTo(1)
                .allMatch(m -> m.contains("could not count the rows of tasks it has no handler for"));
    }

    /** A server of the kind {@code database} runs on, for this test alone, and what stops, restarts and closes it. */
    private record OwnServer(
            String jdbcUrl, String username, Runnable stop, Runnable startAgain, AutoCloseable closer) {

        static OwnServer start(TestDatabase database) {
            return switch (database) {
                case POSTGRESQL -> {
                    EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start();
                    yield new OwnServer(
                            postgres.createDatabase("outage"),
                            postgres.username(),
                            postgres::stop,
                            postgres::startAgain,
                            postgres);
                }
                case MARIADB, MYSQL -> {
                    MariaDbServer mariaDb = MariaDbServer.start();
                    String url = mariaDb.createDatabase("outage");
                    yield new OwnServer(
                            database == TestDatabase.MYSQL ? TestDatabase.mysqlJdbcUrl(mariaDb, "outage") : url,
                            mariaDb.username(),
                            mariaDb::stop,
                            mariaDb::startAgain,
                            mariaDb);
                }
                case H2 -> throw new IllegalArgumentException("H2 runs in this JVM: there is no server to stop");
            };
        }
    }

    /** One WARN line for the first failure, and at most one more per 10 s since. */
    private static int warnLinesAllowed(long downSinceNanos) {
        return 1 + (int) ((System.nanoTime() - downSinceNanos) / TimeUnit.SECONDS.toNanos(10));
    }
}
