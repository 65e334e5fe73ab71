package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Restarts: a stopped instance releases what it holds and another takes it over; a deadline that
 * passed while nothing ran fires at once; the timeouts of an instance that died are taken over as soon
 * as the database has ended its session (on H2, which has no life lock, when its lease runs out); those
 * of an instance whose session lives on (a frozen host) when its lease runs out; a restart under the
 * same instance id takes its life lock and takes back what its earlier life held.
 */
class DurableTimerRestartTest extends OnEachDatabase {

    private static final String TASK = "order-payment";

    DurableTimerRestartTest(TestDatabase database) {
        super(database);
    }

    @Test
    void aStoppedInstanceReleasesItsTimeoutsAndTheNextFiresThemOnTime() {
        RecordingHandler onA = fixture.writingHandler("a");
        JdbcDurableTimer a = fixture.start(fixture.builder().instanceId("a").handler(TASK, onA));
        Instant base = Instant.now().plusMillis(1500);
        Map<String, Instant> deadlines = new HashMap<>();
        for (int i = 0; i < 5; i++) {
            deadlines.put(
                    "handed-" + i,
                    a.schedule(TASK, "handed-" + i, base.plusMillis(100L * i)).deadline());
        }
        assertThat(fixture.holders().values()).containsOnly("a");

        a.stop();

        assertThat(a.held()).isZero();
        assertThat(fixture.holders().values()).hasSize(5).containsOnlyNulls();
        assertThat(leaseRows()).isEmpty();

        RecordingHandler onB = fixture.writingHandler("b");
        fixture.start(fixture.builder().instanceId("b").handler(TASK, onB));
        await().atMost(Duration.ofSeconds(15)).until(() -> onB.count() == 5);
        for (RecordingHandler.Run run : onB.runs()) {
            Instant deadline = deadlines.get(run.timeout().key());
            assertThat(run.timeout().deadline()).isEqualTo(deadline);
            // Claimed within the lookahead, so fired from the wheel, on time.
            assertThat(Duration.between(deadline, run.started())).isLessThan(Duration.ofMillis(500));
        }
        assertThat(onA.count()).isZero();
        assertThat(fixture.writesPerInstance()).isEqualTo(Map.of("b", 5L));
    }

    @Test
    void aDeadlineThatPassedWhileNothingRanFiresAtOnceOnStart() {
        JdbcDurableTimer a = fixture.start(fixture.builder().instanceId("a").handler(TASK, timeout -> {}));
        Instant deadline = a.schedule(TASK, "overdue", Duration.ofMillis(200)).deadline();
        a.stop();
        await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(deadline.plusMillis(500)));

        RecordingHandler onB = fixture.writingHandler("b");
        Instant started = Instant.now();
        fixture.start(fixture.builder().instanceId("b").handler(TASK, onB));

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.count() == 1);
        RecordingHandler.Run run = onB.runs().get(0);
        assertThat(Duration.between(started, run.started())).isLessThan(Duration.ofSeconds(3));
        assertThat(Duration.between(deadline, run.started())).isGreaterThanOrEqualTo(Duration.ofMillis(500));
        assertThat(fixture.writes("overdue")).isEqualTo(1);
    }

    @Test
    void onlyTimeoutsDueWithinTheLookaheadAreClaimed() {
        JdbcDurableTimer a = fixture.start(fixture.builder().instanceId("a").handler(TASK, timeout -> {}));
        a.schedule(TASK, "next-hour", Duration.ofHours(1));
        a.schedule(TASK, "soon", Duration.ofMillis(800));
        a.stop();

        RecordingHandler onB = fixture.writingHandler("b");
        JdbcDurableTimer b = fixture.start(fixture.builder().instanceId("b").handler(TASK, onB));

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.count("soon") == 1);
        assertThat(fixture.holders()).containsEntry("next-hour", null);
        assertThat(b.held()).isZero();
    }

    @Test
    void theTimeoutsOfAnInstanceThatDiedAreTakenOverAtOnceAndOnH2WhenItsLeaseRunsOut() {
        // What a killed instance leaves: its lease row and the rows it held, some already due; its
        // session ended, and its life lock with it. H2 has no life lock: there its lease is the bound.
        boolean h2 = database == TestDatabase.H2;
        long now = System.currentTimeMillis();
        Instant leaseEnd =
                Instant.ofEpochMilli(now + (h2 ? 1000 : Duration.ofHours(1).toMillis()));
        insertLease("dead", leaseEnd.toEpochMilli());
        for (int i = 0; i < 3; i++) {
            insertRow("orphan-" + i, now - 100 + 200L * i, "dead");
        }

        RecordingHandler onB = fixture.writingHandler("b");
        fixture.start(fixture.builder().instanceId("b").handler(TASK, onB));

        await().atMost(Duration.ofSeconds(10)).until(() -> onB.count() == 3);
        for (RecordingHandler.Run run : onB.runs()) {
            if (h2) {
                assertThat(run.started()).isAfterOrEqualTo(leaseEnd);
            } else {
                assertThat(run.started()).isBefore(Instant.ofEpochMilli(now).plusSeconds(10));
            }
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.rows() == 0);
        assertThat(fixture.writesPerInstance()).isEqualTo(Map.of("b", 3L));
    }

    @Test
    void theTimeoutsOfAnInstanceWhoseSessionLivesOnAreTakenOverWhenItsLeaseRunsOut() throws Exception {
        // A frozen host: nothing renews its lease, but the database still sees its session, which holds
        // its life lock.
        try (AutoCloseable frozen = fixture.holdLifeLock("frozen")) {
            long now = System.currentTimeMillis();
            Instant leaseEnd = Instant.ofEpochMilli(now + 1500);
            insertLease("frozen", leaseEnd.toEpochMilli());
            for (int i = 0; i < 3; i++) {
                insertRow("held-" + i, now - 100 + 200L * i, "frozen");
            }

            RecordingHandler onB = fixture.writingHandler("b");
            fixture.start(fixture.builder().instanceId("b").handler(TASK, onB));

            await().atMost(Duration.ofSeconds(10)).until(() -> onB.count() == 3);
            for (RecordingHandler.Run run : onB.runs()) {
                assertThat(run.started()).isAfterOrEqualTo(leaseEnd);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> fixture.rows() == 0);
            assertThat(fixture.writesPerInstance()).isEqualTo(Map.of("b", 3L));
        }
    }

    @Test
    void aRestartUnderTheSameInstanceIdTakesBackWhatItsEarlierLifeHeld() {
        // An earlier life of "same" crashed: its lease is still running, and a restart renews it.
        long now = System.currentTimeMillis();
        insertLease("same", now + Duration.ofHours(1).toMillis());
        insertRow("left-behind", now, "same");

        RecordingHandler handler = fixture.writingHandler("same");
        JdbcDurableTimer same =
                fixture.start(fixture.builder().instanceId("same").handler(TASK, handler));

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count() == 1);
        fixture.awaitCommittedWrite("left-behind");
        assertThat(same.lifeLock().isHeld()).isEqualTo(database != TestDatabase.H2);
    }

    @Test
    void stopIsIdempotentAndTheTimerCanStartAgain() {
        RecordingHandler handler = fixture.writingHandler("a");
        JdbcDurableTimer a = fixture.start(fixture.builder().instanceId("a").handler(TASK, handler));
        a.schedule(TASK, "after-restart", Duration.ofMillis(700));
        a.stop();
        a.stop();
        assertThat(a.isRunning()).isFalse();

        a.start();

        assertThat(a.isRunning()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count() == 1);
    }

    private List<String> leaseRows() {
        return fixture.jdbc.queryForList("SELECT instance_id FROM " + fixture.table + "_instances", String.class);
    }

    private void insertLease(String instance, long leaseUntil) {
        fixture.jdbc.update(
                "INSERT INTO " + fixture.table + "_instances (instance_id, lease_until) VALUES (?, ?)",
                instance,
                leaseUntil);
    }

    private void insertRow(String key, long deadline, String holder) {
        fixture.jdbc.update(
                "INSERT INTO " + fixture.table + " (task, timeout_key, deadline, due_at, holder, version, attempts)"
                        + " VALUES (?, ?, ?, ?, ?, ?, 0)",
                TASK,
                key,
                deadline,
                deadline,
                holder,
                key.hashCode());
    }
}
