package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.testsupport.CountingDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * With nothing due within the lookahead, an instance runs at most two statements per poll interval
 * (the lease renewal and the claim), and a third where the database has a life lock (the question
 * whether its session still holds it), and the rows it writes per poll do not grow with the timeouts
 * it holds: one lease row, not every held row.
 */
@ParameterizedClass
@MethodSource("io.wheeltimer.jdbc.TestDatabase#tested")
class DurableTimerIdleCostTest {

    private static final String TASK = "order-payment";
    private static final int POLLS = 8;

    private final TestDatabase database;
    private CountingDataSource counting;
    private DurableFixture fixture;

    DurableTimerIdleCostTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void createFixture() {
        counting = CountingDataSource.recording(database.dataSource());
        fixture = new DurableFixture(database, counting);
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    /** What one poll did: its statements and the rows they wrote. */
    record Poll(int statements, int rowsWritten) {}

    @Test
    void anIdleInstanceRunsTwoStatementsAPollAndTheLifeLocksCheckWhateverItHolds() {
        // A lookahead past the deadlines, so that this instance holds what it schedules.
        JdbcDurableTimer durable = fixture.start(fixture.builder()
                .instanceId("idle")
                .lookahead(Duration.ofHours(2))
                .handler(TASK, t -> {}));
        String pollThread = "wheel-timer-durable-poll-idle";
        for (int i = 0; i < 10; i++) {
            durable.schedule(TASK, "held-" + i, Duration.ofHours(1));
        }

        List<Poll> fewHeld = measure(pollThread);

        for (int i = 10; i < 200; i++) {
            durable.schedule(TASK, "held-" + i, Duration.ofHours(1).plusSeconds(i));
        }
        assertThat(durable.held()).isEqualTo(200);
        List<Poll> manyHeld = measure(pollThread);

        System.out.println("IDLE (" + database + "): " + fewHeld.size() + " polls holding 10, statements/rows written "
                + summary(fewHeld) + "; " + manyHeld.size() + " polls holding 200, " + summary(manyHeld));
        // The lease row; MariaDB and MySQL report a row that INSERT ... ON DUPLICATE KEY UPDATE
        // updated as two affected rows.
        int leaseRowReportedAs = database == TestDatabase.MARIADB || database == TestDatabase.MYSQL ? 2 : 1;
        assertThat(fewHeld).allSatisfy(poll -> {
            assertThat(poll.statements()).isLessThanOrEqualTo(statementsAPoll());
            assertThat(poll.rowsWritten()).isEqualTo(leaseRowReportedAs);
        });
        assertThat(manyHeld).isEqualTo(fewHeld);
    }

    @Test
    void anIdleInstanceRunsAtMostTwoStatementsPerPollIntervalAndTheLifeLocksCheck() {
        fixture.start(fixture.builder().instanceId("idle").handler(TASK, t -> {}));
        await().atMost(Duration.ofSeconds(5)).until(() -> polls("wheel-timer-durable-poll-idle") >= 2);
        counting.clear();
        long start = System.nanoTime();

        await().atMost(Duration.ofSeconds(20)).until(() -> polls("wheel-timer-durable-poll-idle") >= 10);

        long elapsed = System.nanoTime() - start;
        long intervals = elapsed / DurableFixture.POLL.toNanos() + 1;
        List<CountingDataSource.Executed> all = counting.executed();
        assertThat(all).allMatch(e -> e.thread().equals("wheel-timer-durable-poll-idle"));
        assertThat((long) all.size()).isLessThanOrEqualTo(statementsAPoll() * intervals);
    }

    /** The lease renewal and the claim, and the life lock's check where the database has one (not H2). */
    private int statementsAPoll() {
        return database == TestDatabase.H2 ? 2 : 3;
    }

    /** Clears the record, lets {@link #POLLS} polls run, and returns what each complete one did. */
    private List<Poll> measure(String pollThread) {
        counting.clear();
        await().atMost(Duration.ofSeconds(20)).until(() -> polls(pollThread) >= POLLS + 1);
        List<Poll> polls = new ArrayList<>();
        int statements = 0;
        int rows = 0;
        boolean inPoll = false;
        for (CountingDataSource.Executed e : counting.executed()) {
            if (!e.thread().equals(pollThread)) {
                continue;
            }
            if (isLeaseRenewal(e)) {
                if (inPoll) {
                    polls.add(new Poll(statements, rows));
                }
                inPoll = true;
                statements = 0;
                rows = 0;
            }
            statements++;
            // The renewal upserts the one lease row by its key; where it also reads the database's
            // time back (H2's FINAL TABLE) the driver reports no update count for it.
            rows += isLeaseRenewal(e) ? Math.max(1, e.rowsWritten()) : e.rowsWritten();
        }
        return polls.subList(0, POLLS - 1);
    }

    private long polls(String pollThread) {
        return counting.executed().stream()
                .filter(e -> e.thread().equals(pollThread) && isLeaseRenewal(e))
                .count();
    }

    private static boolean isLeaseRenewal(CountingDataSource.Executed e) {
        return e.sql().contains("_instances (instance_id, lease_until");
    }

    private static String summary(List<Poll> polls) {
        return polls.stream()
                .map(p -> p.statements() + "/" + p.rowsWritten())
                .distinct()
                .toList()
                .toString();
    }
}
