package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Every run whose transaction does not commit is a failed run: counted, its error recorded, retried
 * at its original deadline's timeout, and given up after {@code maxAttempts}, whether the handler
 * threw or the commit failed; and a failure whose text the database would refuse is still recorded.
 */
class DurableTimerFailedRunsTest extends OnEachDatabase {

    private static final String TASK = "order-payment";

    DurableTimerFailedRunsTest(TestDatabase database) {
        super(database);
    }

    @Test
    void aHandlerWhoseTransactionWasMarkedRollbackOnlyFailsItsRun() {
        RecordingHandler handler = new RecordingHandler(timeout -> {
            try {
                // An inner @Transactional call that throws: it joins the run's transaction and marks it
                // rollback-only; the handler catches the exception and returns as if all went well.
                fixture.transactions.executeWithoutResult(inner -> {
                    fixture.write(timeout, "a");
                    throw new IllegalStateException("inner call failed");
                });
            } catch (IllegalStateException swallowed) {
                // the commit will fail all the same
            }
        });
        fixture.start(twoAttempts(handler)).schedule(TASK, "rollback-only", Duration.ofMillis(100));

        Map<String, Object> row = awaitGivenUp("rollback-only");

        assertThat(handler.count()).isEqualTo(2);
        assertThat((String) row.get("last_error")).contains("rollback-only");
        assertThat(fixture.writes("rollback-only")).isZero();
    }

    @Test
    void aConstraintBrokenAtCommitFailsTheRun() {
        RecordingHandler handler = new RecordingHandler(timeout -> {
            fixture.write(timeout, "a");
            // As a JPA flush at commit, or a deferred constraint, fails after the handler returned.
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    throw new DataIntegrityViolationException("duplicate order number at flush");
                }
            });
        });
        fixture.start(twoAttempts(handler)).schedule(TASK, "flushed", Duration.ofMillis(100));

        Map<String, Object> row = awaitGivenUp("flushed");

        assertThat(handler.count()).isEqualTo(2);
        assertThat((String) row.get("last_error")).contains("duplicate order number at flush");
        assertThat(fixture.writes("flushed")).isZero();
    }

    @Test
    void aDeferredConstraintThatFailsTheCommitFailsTheRun() {
        assumeThat(database)
                .as("of these databases, only PostgreSQL has deferrable constraints")
                .isEqualTo(TestDatabase.POSTGRESQL);
        String orders = fixture.table + "_orders";
        fixture.jdbc.execute("CREATE TABLE " + orders + " (number INT, CONSTRAINT " + orders
                + "_number UNIQUE (number) DEFERRABLE INITIALLY DEFERRED)");
        RecordingHandler handler = new RecordingHandler(timeout -> {
            fixture.jdbc.update("INSERT INTO " + orders + " (number) VALUES (1)");
            fixture.jdbc.update("INSERT INTO " + orders + " (number) VALUES (1)"); // checked at commit
        });
        fixture.start(twoAttempts(handler)).schedule(TASK, "deferred", Duration.ofMillis(100));

        Map<String, Object> row = awaitGivenUp("deferred");

        assertThat(handler.count()).isEqualTo(2);
        assertThat((String) row.get("last_error")).contains(orders + "_number");
        assertThat(fixture.jdbc.queryForObject("SELECT COUNT(*) FROM " + orders, Integer.class))
                .isZero();
    }

    @Test
    void aFailureWhoseTextTheDatabaseWouldRefuseIsRecordedCleaned() {
        RecordingHandler handler = new RecordingHandler(timeout -> {
            throw new IllegalStateException("bad byte \u0000 and a lone surrogate \uD800 in the message");
        });
        fixture.start(fixture.builder().handler(TASK, handler).maxAttempts(5).retryDelay(Duration.ofHours(1)))
                .schedule(TASK, "unprintable", Duration.ofMillis(100));

        await().atMost(Duration.ofSeconds(10))
                .until(() -> ((Number) fixture.row(TASK, "unprintable").get("attempts")).intValue() == 1);

        String recorded = (String) fixture.row(TASK, "unprintable").get("last_error");
        assertThat(recorded)
                .contains("bad byte  and a lone surrogate \uFFFD in the message")
                .doesNotContain("\u0000");
        assertThat(handler.count()).isOne();
    }

    @Test
    void aRetryKeepsTheDeadlineThatWasScheduled() {
        RecordingHandler handler = new RecordingHandler(timeout -> {
            throw new IllegalStateException("not yet");
        });
        JdbcDurableTimer durable = fixture.start(
                fixture.builder().handler(TASK, handler).maxAttempts(3).retryDelay(Duration.ofMillis(300)));
        Instant deadline =
                durable.schedule(TASK, "late", Duration.ofMillis(100)).deadline();

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count() == 2);

        assertThat(handler.runs())
                .allSatisfy(run -> assertThat(run.timeout().deadline()).isEqualTo(deadline));
        assertThat(durable.find(TASK, "late")).map(DurableTimeout::deadline).contains(deadline);
        assertThat(((Number) fixture.row(TASK, "late").get("deadline")).longValue())
                .isEqualTo(deadline.toEpochMilli());
    }

    private JdbcDurableTimer.Builder twoAttempts(RecordingHandler handler) {
        return fixture.builder().handler(TASK, handler).maxAttempts(2).retryDelay(Duration.ofMillis(200));
    }

    private Map<String, Object> awaitGivenUp(String key) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> fixture.row(TASK, key).get("failed_at") != null);
        Map<String, Object> row = fixture.row(TASK, key);
        assertThat(((Number) row.get("attempts")).intValue()).isEqualTo(2);
        return row;
    }
}
