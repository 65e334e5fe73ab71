package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timeout;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The table is the truth and memory a cache that every poll rebuilds: an instance holds only what
 * is due within its lookahead; whatever loses a held timeout's entry in memory, the timeout still
 * fires while its instance lives; what the wheel refuses goes to an instance with room; and the
 * newest schedule of a key wins whatever order the arming runs in.
 */
class DurableTimerSelfRepairTest extends OnEachDatabase {

    private static final String TASK = "order-payment";

    DurableTimerSelfRepairTest(TestDatabase database) {
        super(database);
    }

    @Test
    void onlyTimeoutsDueWithinTheLookaheadAreHeldAndAFarOneIsClaimedWhenNear() {
        RecordingHandler handler = fixture.writingHandler("a");
        JdbcDurableTimer durable = fixture.start(fixture.builder()
                .instanceId("a")
                .lookahead(Duration.ofSeconds(1))
                .handler(TASK, handler));

        durable.schedule(TASK, "next-month", Duration.ofDays(30));
        Instant deadline = durable.schedule(TASK, "in-two-seconds", Duration.ofMillis(2500))
                .deadline();
        durable.schedule(TASK, "now-ish", Duration.ofMillis(500));

        assertThat(durable.heldKeys()).containsExactly(TASK + "/now-ish");
        assertThat(fixture.holders())
                .containsEntry("next-month", null)
                .containsEntry("in-two-seconds", null)
                .containsEntry("now-ish", "a");

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("in-two-seconds") == 1);
        Instant started = handler.runs("in-two-seconds").get(0).started();
        assertThat(started).isAfterOrEqualTo(deadline);
        // Claimed a lookahead early and fired from the wheel, not found late by a poll.
        assertThat(Duration.between(deadline, started)).isLessThan(Duration.ofMillis(500));
        assertThat(durable.heldKeys()).isEmpty();
        assertThat(fixture.holders()).containsOnlyKeys("next-month");
    }

    @Test
    void movingAHeldTimeoutBeyondTheLookaheadLetsGoOfIt() {
        RecordingHandler handler = fixture.writingHandler("a");
        JdbcDurableTimer durable =
                fixture.start(fixture.builder().instanceId("a").handler(TASK, handler));
        durable.schedule(TASK, "moved", Duration.ofMillis(300));
        assertThat(durable.held()).isOne();

        durable.schedule(TASK, "moved", Duration.ofDays(1));

        assertThat(durable.held()).isZero();
        assertThat(fixture.holders()).containsEntry("moved", null);
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2)).until(() -> handler.count() == 0);
    }

    @Test
    void aTimeoutWhoseTaskTheWheelsExecutorRefusedFiresAtALaterPoll() {
        AtomicInteger refusals = new AtomicInteger(1);
        Executor refusingOnce = command -> {
            if (refusals.getAndDecrement() > 0) {
                throw new RejectedExecutionException("queue full");
            }
            command.run();
        };
        HashedWheelTimer wheel = HashedWheelTimer.builder()
                .name("refusing-wheel")
                .tickDuration(Duration.ofMillis(10))
                .taskExecutor(refusingOnce)
                .build();
        try {
            RecordingHandler handler = fixture.writingHandler("a");
            JdbcDurableTimer durable = fixture.start(onWheel(wheel, "a").handler(TASK, handler));

            durable.schedule(TASK, "refused-by-the-wheel", Duration.ofMillis(100));

            await().atMost(Duration.ofSeconds(10)).until(() -> handler.count() == 1);
            fixture.awaitCommittedWrite("refused-by-the-wheel");
            assertThat(refusals.get()).isNegative();
        } finally {
            wheel.stop();
        }
    }

    @Test
    void theTimeoutsOfAnInstanceWhoseWheelStoppedFirstGoToAnInstanceWithAWheel() {
        HashedWheelTimer stopping = HashedWheelTimer.builder()
                .name("stopping-wheel")
                .tickDuration(Duration.ofMillis(10))
                .build();
        RecordingHandler onA = fixture.writingHandler("a");
        JdbcDurableTimer a = fixture.start(onWheel(stopping, "a").handler(TASK, onA));
        a.schedule(TASK, "orphaned-by-its-wheel", Duration.ofMillis(500));
        assertThat(a.held()).isOne();

        stopping.stop(); // before the durable timer, as an application that stops its own wheel may
        RecordingHandler onB = fixture.writingHandler("b");
        fixture.start(fixture.builder().instanceId("b").handler(TASK, onB));

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.count() == 1);
        fixture.awaitCommittedWrite("orphaned-by-its-wheel");
        assertThat(onA.count()).isZero();
        assertThat(a.isRunning()).isTrue();
    }

    @Test
    void aCancelRolledBackToASavepointLeavesTheTimeoutToFire() {
        RecordingHandler handler = fixture.writingHandler("a");
        JdbcDurableTimer durable =
                fixture.start(fixture.builder().instanceId("a").handler(TASK, handler));
        durable.schedule(TASK, "kept", Duration.ofSeconds(1));
        TransactionTemplate nested = new TransactionTemplate(fixture.transactionManager);
        nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);

        fixture.transactions.executeWithoutResult(outer -> nested.executeWithoutResult(inner -> {
            assertThat(durable.cancel(TASK, "kept")).isTrue();
            inner.setRollbackOnly(); // back to the savepoint: the row stays; the outer transaction commits
        }));

        assertThat(durable.find(TASK, "kept")).isPresent();
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("kept") == 1);
        fixture.awaitCommittedWrite("kept");
    }

    @Test
    void aTimeoutScheduledAfterAnotherAfterCommitHookThrewStillFires() {
        RecordingHandler handler = fixture.writingHandler("a");
        JdbcDurableTimer durable =
                fixture.start(fixture.builder().instanceId("a").handler(TASK, handler));

        try {
            fixture.transactions.executeWithoutResult(status -> {
                TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                    @Override
                    public void afterCommit() {
                        throw new IllegalStateException("the application's own hook failed");
                    }
                });
                durable.schedule(TASK, "after-a-failing-hook", Duration.ofMillis(200));
            });
        } catch (IllegalStateException expected) {
            // Spring runs the hooks in order and stops at the first that throws: ours never ran.
        }

        assertThat(durable.find(TASK, "after-a-failing-hook")).isPresent();
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("after-a-failing-hook") == 1);
        fixture.awaitCommittedWrite("after-a-failing-hook");
    }

    @Test
    void anErrorFromAListenerNeitherLosesNorRepeatsTheTimeout() {
        RecordingHandler handler = fixture.writingHandler("a");
        DurableTimerListener failing = new DurableTimerListener() {
            @Override
            public void started(DurableTimeout timeout, Duration lateness) {
                throw new AssertionError("a listener's bug");
            }

            @Override
            public void scheduled(String task) {
                throw new AssertionError("a listener's bug");
            }
        };
        JdbcDurableTimer durable = fixture.start(
                fixture.builder().instanceId("a").listener(failing).handler(TASK, handler));

        durable.schedule(TASK, "heard-badly", Duration.ofMillis(200));

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("heard-badly") == 1);
        fixture.awaitCommittedWrite("heard-badly");
        await().during(Duration.ofMillis(500)).until(() -> handler.count() == 1);
    }

    @Test
    void whatAFullWheelRefusesIsReleasedAndAnIdleInstanceFiresItWithinTwoPolls() throws Exception {
        HashedWheelTimer full = HashedWheelTimer.builder()
                .name("full-wheel")
                .tickDuration(Duration.ofMillis(10))
                .maxPendingTimeouts(1)
                .build();
        Timeout filler = full.newTimeout(t -> {}, 1, TimeUnit.HOURS);
        try {
            RecordingHandler onA = fixture.writingHandler("a");
            JdbcDurableTimer a = fixture.start(onWheel(full, "a").handler(TASK, onA));
            RecordingHandler onB = fixture.writingHandler("b");
            fixture.start(fixture.builder().instanceId("b").handler(TASK, onB));
            for (int i = 0; i < 5; i++) {
                a.schedule(TASK, "due-" + i, Duration.ofMillis(100));
            }
            long scheduledAt = System.nanoTime();

            await().atMost(Duration.ofSeconds(10)).until(() -> onB.count() == 5);
            Duration took = Duration.ofNanos(System.nanoTime() - scheduledAt);

            assertThat(onA.count()).isZero();
            // Two polls of 100 ms, with room for a slow machine.
            assertThat(took).isLessThan(Duration.ofSeconds(3));
            for (int i = 0; i < 5; i++) {
                fixture.awaitCommittedWrite("due-" + i);
            }
        } finally {
            filler.cancel();
            full.stop();
        }
    }

    @Test
    void theNewestOfTwoSchedulesOfOneKeyWinsWhateverOrderTheyAreArmedIn() throws Exception {
        RecordingHandler handler = fixture.writingHandler("a");
        JdbcDurableTimer durable =
                fixture.start(fixture.builder().instanceId("a").handler(TASK, handler));
        CountDownLatch newerArmed = new CountDownLatch(1);

        // The older schedule commits first, but its after-commit hook is held back until the newer one,
        // which waited for its row lock, has committed and armed.
        Thread older = new Thread(() -> fixture.transactions.executeWithoutResult(status -> {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    await().atMost(Duration.ofSeconds(10)).until(() -> newerArmed.getCount() == 0);
                }
            });
            durable.schedule(TASK, "raced", Duration.ofSeconds(5));
        }));
        older.start();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> durable.find(TASK, "raced").isPresent());
        Instant newer = durable.schedule(TASK, "raced", Duration.ofMillis(400)).deadline();
        newerArmed.countDown();
        older.join(10_000);

        await().atMost(Duration.ofSeconds(4)).until(() -> handler.count("raced") == 1);
        assertThat(handler.runs("raced").get(0).timeout().deadline()).isEqualTo(newer);
        fixture.awaitCommittedWrite("raced");
    }

    @Test
    void aClaimArmedAfterANewerScheduleOfItsRowDoesNotWin() {
        ClaimHold hold = new ClaimHold(fixture.dataSource);
        DurableFixture held = new DurableFixture(database, hold.dataSource());
        try {
            RecordingHandler handler = held.writingHandler("a");
            JdbcDurableTimer durable = held.start(held.builder().instanceId("a").handler(TASK, handler));
            // Unheld and due within the lookahead: the next poll claims it, commits, and is held
            // back before it arms what it took, while a newer schedule of the row commits and arms.
            long due = System.currentTimeMillis() + 3000;
            hold.holdTheNextClaim();
            held.jdbc.update(
                    "INSERT INTO " + held.table + " (task, timeout_key, deadline, due_at, holder, version, attempts)"
                            + " VALUES (?, 'claimed', ?, ?, NULL, 1, 0)",
                    TASK,
                    due,
                    due);
            hold.awaitHeld();
            Instant newer =
                    durable.schedule(TASK, "claimed", Duration.ofMillis(400)).deadline();
            hold.release();

            await().atMost(Duration.ofSeconds(2)).until(() -> handler.count("claimed") == 1);
            assertThat(handler.runs("claimed").get(0).timeout().deadline()).isEqualTo(newer);
        } finally {
            hold.release();
            held.close();
        }
    }

    private JdbcDurableTimer.Builder onWheel(HashedWheelTimer wheel, String instance) {
        return JdbcDurableTimer.builder(fixture.dataSource, fixture.transactionManager, wheel)
                .tableName(fixture.table)
                .instanceId(instance)
                .pollInterval(DurableFixture.POLL)
                .lookahead(Duration.ofSeconds(10))
                .lease(Duration.ofSeconds(1));
    }

    @Test
    void aTableMadeByAnEarlierVersionFailsTheStartNamingWhatIsMissingAndTheScript() {
        String old = fixture.table + "_old";
        fixture.jdbc.execute("CREATE TABLE " + old + " (task VARCHAR(200) NOT NULL, timeout_key VARCHAR(200) NOT NULL,"
                + " deadline BIGINT NOT NULL, holder VARCHAR(200), version BIGINT NOT NULL, attempts INT DEFAULT 0 NOT"
                + " NULL, last_error VARCHAR(4000), failed_at BIGINT, PRIMARY KEY (task, timeout_key))");
        fixture.jdbc.execute("CREATE TABLE " + old + "_instances (instance_id VARCHAR(200) NOT NULL, lease_until"
                + " BIGINT NOT NULL, PRIMARY KEY (instance_id))");
        long due = System.currentTimeMillis() + 300;
        fixture.jdbc.update(
                "INSERT INTO " + old
                        + " (task, timeout_key, deadline, holder, version) VALUES (?, 'before', ?, NULL, 1)",
                TASK,
                due);
        RecordingHandler handler = fixture.writingHandler("a");
        JdbcDurableTimer durable =
                fixture.builder().tableName(old).handler(TASK, handler).build();

        assertThatIllegalStateException()
                .isThrownBy(durable::start)
                .withMessageContaining("table " + old + " lacks the columns [due_at, data, trace_context]")
                .withMessageContaining("io/wheeltimer/jdbc/upgrade-" + database.scripts() + ".sql");
        assertThat(durable.isRunning()).isFalse();

        database.runScript(fixture.dataSource, "upgrade", old);
        fixture.start(fixture.builder().tableName(old).handler(TASK, handler));

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("before") == 1);
    }

    @Test
    void aMissingTableFailsTheStartNamingTheTableAndTheScript() {
        JdbcDurableTimer durable = fixture.builder()
                .tableName("no_such_table")
                .handler(TASK, t -> {})
                .build();

        assertThatIllegalStateException()
                .isThrownBy(durable::start)
                .withMessageContaining("table no_such_table does not exist")
                .withMessageContaining("io/wheeltimer/jdbc/schema-" + database.scripts() + ".sql");
    }
}
