package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.jdbc.internal.table.LifeLockStatements;
import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One test's tables (fresh names, created with the shipped script), a 10 ms wheel, and the durable
 * timers built on them, all stopped on {@link #close()}. Settings are short so that the tests run in
 * seconds: poll 100 ms, lookahead 10 s (what is scheduled within it is held by the instance that
 * scheduled it, as with the defaults), lease 1 s, retry delay 300 ms.
 */
public final class DurableFixture implements AutoCloseable {

    static final Duration POLL = Duration.ofMillis(100);

    private static final AtomicInteger tables = new AtomicInteger();

    final TestDatabase database;
    final DataSource dataSource;
    public final String table;
    final String writes;
    final HashedWheelTimer wheel;
    final DataSourceTransactionManager transactionManager;
    public final JdbcTemplate jdbc;
    public final TransactionTemplate transactions;
    private final List<JdbcDurableTimer> timers = new CopyOnWriteArrayList<>();

    public DurableFixture(TestDatabase database) {
        this(database, database.dataSource());
    }

    /** On {@code dataSource}, a {@code DataSource} of {@code database} (wrapped, or of its own). */
    DurableFixture(TestDatabase database, DataSource dataSource) {
        this.database = database;
        this.dataSource = dataSource;
        this.table = "durable_" + tables.incrementAndGet();
        this.writes = table + "_writes";
        database.createTables(dataSource, table);
        this.jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE TABLE " + writes
                + " (task VARCHAR(200) NOT NULL, timeout_key VARCHAR(200) NOT NULL, instance VARCHAR(200))");
        this.wheel = HashedWheelTimer.builder()
                .name("durable-test-wheel")
                .tickDuration(Duration.ofMillis(10))
                .build();
        this.transactionManager = new DataSourceTransactionManager(dataSource);
        this.transactions = new TransactionTemplate(transactionManager);
    }

    /** A builder on this fixture's tables and wheel, with the short test settings. */
    JdbcDurableTimer.Builder builder() {
        return JdbcDurableTimer.builder(dataSource, transactionManager, wheel)
                .tableName(table)
                .pollInterval(POLL)
                .lookahead(Duration.ofSeconds(10))
                .lease(Duration.ofSeconds(1))
                .retryDelay(Duration.ofMillis(300));
    }

    /** Builds and starts the timer, and waits for its first poll, after which it holds what it schedules. */
    JdbcDurableTimer start(JdbcDurableTimer.Builder builder) {
        JdbcDurableTimer timer = builder.build();
        timers.add(timer);
        timer.start();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> timer.lastSuccessfulPoll().isPresent());
        return timer;
    }

    /** A handler that records its runs and writes a row for each through the test's {@code DataSource}. */
    RecordingHandler writingHandler(String instance) {
        return new RecordingHandler(timeout -> write(timeout, instance));
    }

    void write(DurableTimeout timeout, String instance) {
        jdbc.update(
                "INSERT INTO " + writes + " (task, timeout_key, instance) VALUES (?, ?, ?)",
                timeout.task(),
                timeout.key(),
                instance);
    }

    /**
     * Waits until the handler's one write for {@code key} is committed: a handler's transaction commits
     * (and its timeout's row goes) just after the handler returns, so a test that saw the handler run
     * waits for the commit before it looks at the table.
     */
    void awaitCommittedWrite(String key) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(writes(key))
                        .as("committed writes for %s", key)
                        .isEqualTo(1));
    }

    /** The rows the handlers wrote (and committed) for {@code key}. */
    int writes(String key) {
        Integer count =
                jdbc.queryForObject("SELECT COUNT(*) FROM " + writes + " WHERE timeout_key = ?", Integer.class, key);
        return count == null ? 0 : count;
    }

    /** Committed handler writes per key. */
    Map<String, Long> writesPerKey() {
        return jdbc.queryForList("SELECT timeout_key FROM " + writes, String.class).stream()
                .collect(Collectors.groupingBy(k -> k, Collectors.counting()));
    }

    /** Committed handler writes per instance. */
    Map<String, Long> writesPerInstance() {
        return jdbc.queryForList("SELECT instance FROM " + writes, String.class).stream()
                .collect(Collectors.groupingBy(k -> k, Collectors.counting()));
    }

    /** {@code target}, handing out its connections with auto-commit off, as a pool configured so does. */
    static DataSource autoCommitOff(DataSource target) {
        return new DelegatingDataSource(target) {
            @Override
            public Connection getConnection() throws SQLException {
                Connection connection = target.getConnection();
                connection.setAutoCommit(false);
                return connection;
            }
        };
    }

    /** This fixture's table, in the dialect of its database, as the timer opens it. */
    TimeoutTable timeoutTable() {
        return TimeoutTable.open(jdbc, jdbc, table, Set.of(), Clock.systemUTC());
    }

    /** The database's time, in epoch milliseconds, read as the timer reads it; in the caller's transaction, if any. */
    long databaseMillis() {
        Long millis = jdbc.queryForObject("SELECT " + timeoutTable().databaseMillisExpression(), Long.class);
        return millis == null ? 0 : millis;
    }

    /** Rows in the timeouts table, pending and given up. */
    int rows() {
        Integer count = jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class);
        return count == null ? 0 : count;
    }

    public Map<String, Object> row(String task, String key) {
        return jdbc.queryForMap("SELECT * FROM " + table + " WHERE task = ? AND timeout_key = ?", task, key);
    }

    /** The holder column of every row, by key (null for unheld). */
    Map<String, String> holders() {
        Map<String, String> holders = new java.util.HashMap<>();
        jdbc.query("SELECT timeout_key, holder FROM " + table, rs -> {
            holders.put(rs.getString(1), rs.getString(2));
        });
        return holders;
    }

    /**
     * Takes the life lock of {@code instance} on a connection of its own, as that instance does while it
     * lives (or while its host is frozen); closing what this returns releases it. Null where the
     * database has no life lock (H2).
     */
    AutoCloseable holdLifeLock(String instance) throws SQLException {
        LifeLockStatements lock = timeoutTable().lifeLock();
        if (lock == null) {
            return null;
        }
        Connection connection = dataSource.getConnection();
        try (PreparedStatement take = connection.prepareStatement(lock.take())) {
            take.setString(1, instance);
            try (ResultSet result = take.executeQuery()) {
                assertThat(result.next() && result.getBoolean(1))
                        .as("life lock taken")
                        .isTrue();
            }
        }
        return () -> {
            try (connection;
                    PreparedStatement release = connection.prepareStatement(lock.release())) {
                release.setString(1, instance);
                release.execute();
            }
        };
    }

    /** Ends the database session {@code sessionId} from another one, as an operator or a network failure would. */
    void endSession(long sessionId) {
        if (database == TestDatabase.POSTGRESQL) {
            assertThat(jdbc.queryForObject("SELECT pg_terminate_backend(?)", Boolean.class, (int) sessionId))
                    .isTrue();
        } else {
            jdbc.execute("KILL " + sessionId);
        }
    }

    List<JdbcDurableTimer> timers() {
        return new ArrayList<>(timers);
    }

    @Override
    public void close() {
        for (JdbcDurableTimer timer : timers) {
            timer.stop();
        }
        wheel.stop();
    }
}
