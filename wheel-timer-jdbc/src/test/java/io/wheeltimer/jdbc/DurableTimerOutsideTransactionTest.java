package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.testsupport.CountingDataSource;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Outside a transaction, {@code schedule} and {@code cancel} run their one statement alone, in
 * auto-commit mode: committed before the call returns, then armed. Wherever a transaction scope
 * exists (another manager's transaction, a scope without a transaction, a manager that does not
 * synchronize), the transaction manager decides as before; a pool whose connections have auto-commit
 * off gets a transaction of the timer's own.
 */
@ParameterizedClass
@MethodSource("io.wheeltimer.jdbc.TestDatabase#tested")
class DurableTimerOutsideTransactionTest {

    private static final String TASK = "order-payment";

    private final TestDatabase database;
    private CountingDataSource counting;
    private DurableFixture fixture;
    private RecordingHandler handler;

    DurableTimerOutsideTransactionTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void createFixture() {
        counting = CountingDataSource.counting(database.dataSource());
        fixture = new DurableFixture(database, counting);
        handler = fixture.writingHandler("one");
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    @Test
    void outsideATransactionEachCallIsOneStatementWithoutACommit() {
        JdbcDurableTimer durable =
                fixture.start(fixture.builder().instanceId("alone").handler(TASK, handler));
        // Between two polls (100 ms apart), so that the poll's own statements are not counted.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            long statements = counting.statements();
            long commits = counting.commits();
            durable.schedule(TASK, "counted", Duration.ofSeconds(5));
            boolean cancelled = durable.cancel(TASK, "counted");
            // One statement a call; on MariaDB and MySQL a second reads back what the first did (the
            // version an update wrote, the version a cancel deletes), on the same connection.
            long perPair = database == TestDatabase.MARIADB || database == TestDatabase.MYSQL ? 4 : 2;
            return cancelled && counting.statements() - statements <= perPair && counting.commits() - commits == 0;
        });
        assertThat(TransactionSynchronizationManager.getResourceMap())
                .as("nothing left bound to the caller's thread")
                .isEmpty();
    }

    @Test
    void outsideATransactionAScheduleIsCommittedThenArmed() {
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));

        // Far enough ahead to be still armed when the test looks, on a slow machine.
        durable.schedule(TASK, "soon", Duration.ofSeconds(2));

        assertThat(rowsSeenByAnotherConnection("soon")).isEqualTo(1);
        assertThat(durable.heldKeys()).containsExactly(TASK + "/soon");
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("soon") == 1);
        fixture.awaitCommittedWrite("soon");
        assertThat(fixture.rows()).isZero();
    }

    @Test
    void outsideATransactionACancelIsCommittedThenDisarmed() {
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));
        durable.schedule(TASK, "cancelled", Duration.ofSeconds(1));
        durable.schedule(TASK, "marker", Duration.ofSeconds(2));

        assertThat(durable.cancel(TASK, "cancelled")).isTrue();

        assertThat(rowsSeenByAnotherConnection("cancelled")).isZero();
        assertThat(durable.heldKeys()).containsExactly(TASK + "/marker");
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("marker") == 1);
        assertThat(handler.count("cancelled")).isZero();
        assertThat(durable.cancel(TASK, "cancelled")).isFalse();
    }

    @Test
    void aPoolWhoseConnectionsDoNotAutoCommitGetsATransactionOfTheTimersOwn() {
        DataSource manualCommit = DurableFixture.autoCommitOff(counting);
        JdbcDurableTimer durable = fixture.start(
                JdbcDurableTimer.builder(manualCommit, new DataSourceTransactionManager(manualCommit), fixture.wheel)
                        .tableName(fixture.table)
                        .pollInterval(DurableFixture.POLL)
                        .lease(Duration.ofSeconds(1))
                        .handler(TASK, handler));

        long commits = counting.commits();
        durable.schedule(TASK, "manual", Duration.ofMillis(300));

        assertThat(counting.commits() - commits).isGreaterThanOrEqualTo(1);
        assertThat(rowsSeenByAnotherConnection("manual")).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("manual") == 1);
        fixture.awaitCommittedWrite("manual");

        durable.schedule(TASK, "kept", Duration.ofHours(1));
        assertThat(durable.cancel(TASK, "kept")).isTrue();
        assertThat(rowsSeenByAnotherConnection("kept")).isZero();
    }

    @Test
    void inAScopeWithoutATransactionTheChangeCommitsAtOnceAndItsRollbackUndoesNothing() {
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));
        TransactionTemplate supports = new TransactionTemplate(fixture.transactionManager);
        supports.setPropagationBehavior(TransactionDefinition.PROPAGATION_SUPPORTS);

        supports.executeWithoutResult(status -> {
            durable.schedule(TASK, "in-scope", Duration.ofMillis(300));
            assertThat(rowsSeenByAnotherConnection("in-scope"))
                    .as("committed before the scope ends")
                    .isEqualTo(1);
            status.setRollbackOnly();
        });

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("in-scope") == 1);
        fixture.awaitCommittedWrite("in-scope");
    }

    @Test
    void inAnotherDataSourcesTransactionTheChangeCommitsOnItsOwn() {
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));
        DriverManagerDataSource other = new DriverManagerDataSource("jdbc:h2:mem:other;DB_CLOSE_DELAY=-1", "sa", "");
        new JdbcTemplate(other).execute("CREATE TABLE IF NOT EXISTS notes (note VARCHAR(50))");
        TransactionTemplate otherTransactions = new TransactionTemplate(new DataSourceTransactionManager(other));

        otherTransactions.executeWithoutResult(status -> {
            new JdbcTemplate(other).update("INSERT INTO notes (note) VALUES ('rolled back')");
            durable.schedule(TASK, "elsewhere", Duration.ofMillis(300));
            assertThat(rowsSeenByAnotherConnection("elsewhere")).isEqualTo(1);
            status.setRollbackOnly();
        });

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("elsewhere") == 1);
        fixture.awaitCommittedWrite("elsewhere");
        assertThat(new JdbcTemplate(other).queryForObject("SELECT COUNT(*) FROM notes", Integer.class))
                .isZero();
    }

    @Test
    void inATransactionOfAManagerThatDoesNotSynchronizeTheCallJoinsIt() {
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));
        DataSourceTransactionManager unsynchronized = new DataSourceTransactionManager(counting);
        unsynchronized.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);

        new TransactionTemplate(unsynchronized).executeWithoutResult(status -> {
            durable.schedule(TASK, "rolled-back", Duration.ofMillis(100));
            assertThat(rowsSeenByAnotherConnection("rolled-back"))
                    .as("not committed yet")
                    .isZero();
            status.setRollbackOnly();
        });
        durable.schedule(TASK, "marker", Duration.ofMillis(400));

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("marker") == 1);
        assertThat(durable.find(TASK, "rolled-back")).isEmpty();
        assertThat(handler.count("rolled-back")).isZero();
    }

    /**
     * Counts the rows of {@code key} on another connection: of the pool itself, which no transaction
     * of the timer's {@code DataSource} (the counting wrapper) is bound under.
     */
    private int rowsSeenByAnotherConnection(String key) {
        Integer count = new JdbcTemplate(database.dataSource())
                .queryForObject("SELECT COUNT(*) FROM " + fixture.table + " WHERE timeout_key = ?", Integer.class, key);
        return count == null ? 0 : count;
    }
}
