package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.testsupport.LogCapture;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.logging.Level;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The life lock, in this JVM: a live instance holds it and keeps its timeouts, however often the others
 * poll (the lease is long here, so that only the lock can tell them apart); one whose lock session ends
 * while it lives takes the lock again at its next poll, rebuilds what it holds, and neither loses a
 * timeout nor runs one twice, whatever the others took meanwhile; a database whose locks only pretend
 * fails the start; H2 has none.
 */
class DurableTimerLifeLockTest extends OnEachDatabase {

    private static final String TASK = "order-payment";
    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    DurableTimerLifeLockTest(TestDatabase database) {
        super(database);
    }

    @Test
    void aLiveInstanceHoldsItsLockAndKeepsItsTimeoutsWhileOthersPoll() {
        // Not ASCII: both sides must name the lock the same, whatever the character sets.
        String id = "lebendig-\u00e4\u00df-\u5b9e\u4f8b";
        RecordingHandler onA = fixture.writingHandler("a");
        JdbcDurableTimer a =
                fixture.start(fixture.builder().instanceId(id).lease(LONG_LEASE).handler(TASK, onA));
        RecordingHandler onB = fixture.writingHandler("b");
        fixture.start(fixture.builder().instanceId("b").lease(LONG_LEASE).handler(TASK, onB));
        Instant base = Instant.now().plusMillis(1500);
        for (int i = 0; i < 30; i++) {
            a.schedule(TASK, "kept-" + i, base.plusMillis(10L * i));
        }

        await().atMost(Duration.ofSeconds(15)).until(() -> fixture.rows() == 0);

        assertThat(fixture.writesPerInstance()).isEqualTo(Map.of("a", 30L));
        assertThat(onB.count()).isZero();
        // Nobody ended a's lease either: it runs about a lease from its last renewal.
        long leaseUntil = fixture.jdbc.queryForObject(
                "SELECT lease_until FROM " + fixture.table + "_instances WHERE instance_id = ?", Long.class, id);
        assertThat(leaseUntil).isGreaterThan(System.currentTimeMillis() + LONG_LEASE.toMillis() / 2);
        assertThat(a.lifeLock().isHeld()).isEqualTo(database != TestDatabase.H2);
        assertThat(a.lifeLock().isLeaseAlone())
                .as("a direct connection taken for a pooler's")
                .isFalse();
    }

    @Test
    void aDatabaseThatOnlyPretendsToHaveSessionLocksFailsTheStartNamingItAndWhatIsMissing() {
        assumeThat(database).as("shadows a PostgreSQL function").isEqualTo(TestDatabase.POSTGRESQL);
        // As CockroachDB's: the lock function says yes and locks nothing. Found before pg_catalog's on the
        // search path of the timer's connections.
        fixture.jdbc.execute("CREATE SCHEMA IF NOT EXISTS fake_locks");
        fixture.jdbc.execute("CREATE OR REPLACE FUNCTION fake_locks.pg_try_advisory_lock(integer, integer)"
                + " RETURNS boolean LANGUAGE sql AS 'SELECT true'");
        try (HikariDataSource pretending = TestDatabase.pool(
                database.jdbcUrl() + "?currentSchema=fake_locks,pg_catalog,public", database.username(), 5)) {
            JdbcDurableTimer durable = JdbcDurableTimer.builder(
                            pretending, new DataSourceTransactionManager(pretending), fixture.wheel)
                    .tableName(fixture.table)
                    .instanceId("pretended")
                    .handler(TASK, t -> {})
                    .build();

            assertThatIllegalStateException()
                    .isThrownBy(durable::start)
                    .withMessageContaining("Durable timer pretended cannot run on PostgreSQL ")
                    .withMessageContaining("table " + fixture.table)
                    .withMessageContaining("pg_try_advisory_lock")
                    .withMessageContaining("does not show it held by the session")
                    .withMessageContaining("only pretends to have session locks");
            assertThat(durable.isRunning()).isFalse();
            assertThat(durable.lifeLock().sessionId())
                    .as("its connection given back")
                    .isEmpty();
        }
    }

    @Test
    void anInstanceWhoseLockSessionEndsTakesItAgainAndLosesNothingNorRunsAnythingTwice() throws Exception {
        assumeThat(database).as("H2 has no life lock").isNotEqualTo(TestDatabase.H2);
        try (LogCapture log = LogCapture.of(JdbcDurableTimer.class)) {
            // a polls every second, b ten times as often: b looks at a's lock between the end of its
            // session and a's next poll.
            RecordingHandler onA = fixture.writingHandler("a");
            JdbcDurableTimer a = fixture.start(fixture.builder()
                    .instanceId("a")
                    .pollInterval(Duration.ofSeconds(1))
                    .lease(LONG_LEASE)
                    .handler(TASK, onA));
            RecordingHandler onB = fixture.writingHandler("b");
            fixture.start(fixture.builder().instanceId("b").lease(LONG_LEASE).handler(TASK, onB));
            Instant base = Instant.now().plusMillis(4000);
            for (int i = 0; i < 40; i++) {
                a.schedule(TASK, "before-" + i, base.plusMillis(10L * i));
            }
            long session = a.lifeLock().sessionId().orElseThrow();

            Optional<Instant> lastPoll = a.lastSuccessfulPoll();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> !a.lastSuccessfulPoll().equals(lastPoll));
            fixture.endSession(session);

            // b sees the free lock and takes a's timeouts; a's next poll takes the lock again.
            await().atMost(Duration.ofSeconds(5)).until(() -> fixture.holders().containsValue("b"));
            await().atMost(Duration.ofSeconds(5))
                    .until(() ->
                            a.lifeLock().isHeld() && !a.lifeLock().sessionId().equals(OptionalLong.of(session)));
            // What a holds in memory is what the table says it holds: rebuilt by that poll.
            await().atMost(Duration.ofSeconds(3))
                    .untilAsserted(() -> assertThat(a.heldKeys()).isEqualTo(heldBy("a")));
            // With its lock held again, a keeps what it schedules now.
            Instant after = Instant.now().plusMillis(1000);
            for (int i = 0; i < 10; i++) {
                a.schedule(TASK, "after-" + i, after.plusMillis(10L * i));
            }

            await().atMost(Duration.ofSeconds(20))
                    .until(() -> fixture.writesPerKey().size() == 50);
            await().atMost(Duration.ofSeconds(5)).until(() -> fixture.rows() == 0);
            assertThat(fixture.writesPerKey().values())
                    .as("commits per timeout")
                    .containsOnly(1L);
            assertThat(onA.count() + onB.count()).isEqualTo(50);
            assertThat(onB.runs()).as("b took some of a's timeouts").isNotEmpty();
            assertThat(onB.runs()).noneMatch(r -> r.timeout().key().startsWith("after-"));
            assertThat(log.messages(Level.INFO))
                    .anyMatch(m -> m.contains("the database session that held its life lock")
                            && m.contains("it took the lock again"));
        }
    }

    @Test
    void onH2ThereIsNoLifeLock() {
        assumeThat(database).isEqualTo(TestDatabase.H2);
        JdbcDurableTimer a = fixture.start(fixture.builder().instanceId("a").handler(TASK, t -> {}));

        assertThat(a.lifeLock().isHeld()).isFalse();
        assertThat(a.lifeLock().sessionId()).isEmpty();
        assertThat(a.lifeLock().check()).isFalse();
    }

    /** The keys of the pending rows {@code instance} holds, as {@code task/key}. */
    private Set<String> heldBy(String instance) {
        return fixture.holders().entrySet().stream()
                .filter(e -> instance.equals(e.getValue()))
                .map(e -> TASK + "/" + e.getKey())
                .collect(Collectors.toSet());
    }
}
