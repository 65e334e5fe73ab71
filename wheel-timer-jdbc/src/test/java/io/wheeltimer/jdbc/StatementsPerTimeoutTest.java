package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.testsupport.CountingDataSource;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What each operation on one timeout sends to the database, on the thread that does it: the
 * statements, and the calls that begin and end transactions (a switch of auto-commit, a commit).
 * The design guide's table of round trips per timeout is this test's expectations.
 */
class StatementsPerTimeoutTest extends OnEachDatabase {

    private static final String TASK = "counted";

    StatementsPerTimeoutTest(TestDatabase database) {
        super(database);
    }

    @Test
    void scheduleFireAndCancelSendWhatTheDesignGuideLists() {
        Sent[] sent = scheduleCancelAndFire(database.dataSource());
        Sent schedule = sent[0];
        Sent cancel = sent[1];
        Sent fire = sent[2];
        // One statement in auto-commit, except MySQL's cancel, which reads the version it then deletes.
        assertThat(schedule.statements()).as("schedule: %s", schedule).hasSize(1);
        assertThat(schedule.transactionCalls()).as("schedule: %s", schedule).isEmpty();
        assertThat(cancel.statements()).as("cancel: %s", cancel).hasSize(database == TestDatabase.MYSQL ? 2 : 1);
        assertThat(cancel.transactionCalls()).as("cancel: %s", cancel).isEmpty();
        // A transaction of its own around the handler: the run's delete (MySQL: a locking read, then
        // the delete), and what the handler writes (here nothing).
        assertThat(fire.statements()).as("fire: %s", fire).hasSize(database == TestDatabase.MYSQL ? 2 : 1);
        assertThat(fire.transactionCalls())
                .as("fire: %s", fire)
                .containsExactly("AUTOCOMMIT false", "COMMIT", "AUTOCOMMIT true");
    }

    /**
     * On a pool whose connections come with auto-commit off, the run's transaction switches nothing:
     * its statements and one commit (on MariaDB and MySQL two round trips fewer, each switch being a
     * statement there). Schedule and cancel, outside any transaction, each commit their own.
     */
    @Test
    void onAPoolWithAutoCommitOffNothingIsSwitched() {
        Sent[] sent = scheduleCancelAndFire(DurableFixture.autoCommitOff(database.dataSource()));
        Sent schedule = sent[0];
        Sent cancel = sent[1];
        Sent fire = sent[2];
        assertThat(schedule.statements()).as("schedule: %s", schedule).hasSize(1);
        assertThat(schedule.transactionCalls()).as("schedule: %s", schedule).containsExactly("COMMIT");
        assertThat(cancel.statements()).as("cancel: %s", cancel).hasSize(database == TestDatabase.MYSQL ? 2 : 1);
        assertThat(cancel.transactionCalls()).as("cancel: %s", cancel).containsExactly("COMMIT");
        assertThat(fire.statements()).as("fire: %s", fire).hasSize(database == TestDatabase.MYSQL ? 2 : 1);
        assertThat(fire.transactionCalls()).as("fire: %s", fire).containsExactly("COMMIT");
    }

    /** What a schedule, a cancel and a run sent, each on its thread, with the timer on {@code dataSource}. */
    private Sent[] scheduleCancelAndFire(DataSource dataSource) {
        fixture.close();
        CountingDataSource recorder = CountingDataSource.recording(dataSource);
        fixture = new DurableFixture(database, recorder);
        RecordingHandler handler = new RecordingHandler();
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));
        String caller = Thread.currentThread().getName();

        recorder.clear();
        durable.schedule(TASK, "cancelled", Duration.ofHours(1));
        Sent schedule = sent(recorder, caller);
        recorder.clear();
        assertThat(durable.cancel(TASK, "cancelled")).isTrue();
        Sent cancel = sent(recorder, caller);
        recorder.clear();
        durable.schedule(TASK, "fires", Duration.ofMillis(200));
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count() == 1);
        String runner = handler.runs().get(0).thread();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> sent(recorder, runner).transactionCalls().contains("COMMIT"));
        return new Sent[] {schedule, cancel, sent(recorder, runner)};
    }

    /** What a thread sent: its statements and its transaction calls, each in order. */
    private record Sent(List<String> statements, List<String> transactionCalls) {}

    /** What {@code thread} sent since the recorder was last cleared. */
    private static Sent sent(CountingDataSource recorder, String thread) {
        return new Sent(ofThread(recorder.executed(), thread), ofThread(recorder.transactionCalls(), thread));
    }

    private static List<String> ofThread(List<CountingDataSource.Executed> calls, String thread) {
        return calls.stream()
                .filter(c -> c.thread().equals(thread))
                .map(CountingDataSource.Executed::sql)
                .toList();
    }
}
