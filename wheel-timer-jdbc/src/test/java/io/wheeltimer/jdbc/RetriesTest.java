package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.internal.RepeatLog;
import io.wheeltimer.jdbc.ArmedTimeouts.Entry;
import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What follows a failed run: a retry (a new version of the row, due after the retry wait, held and
 * armed here while that is within the lookahead) until the last allowed run failed, then the row
 * given up with its last error; nothing when the row is no longer the version that ran; and a failure
 * that cannot be recorded is run again, the same version, after the retry delay. The wait itself is
 * specified in {@link RetryScheduleTest}. On H2: the rules are about this class, not about SQL.
 */
class RetriesTest {

    private static final long NOW = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);
    private static final long RETRY_DELAY = JdbcDurableTimer.DEFAULT_RETRY_DELAY.toMillis();

    private final DurableFixture fixture = new DurableFixture(TestDatabase.H2);
    private final FakeWheel wheel = new FakeWheel();
    private final HeardListener listener = new HeardListener();
    private final Queue<String> heard = listener.heard;

    @AfterEach
    void close() {
        fixture.close();
    }

    /** Retries on the fixture's table (or {@code table}), with {@code lookahead} and at most 3 runs. */
    private Parts parts(String table, Duration lookahead) {
        TimerSettings settings = TestSettings.of(table, CLOCK, lookahead, 3);
        TimerContext context = TestSettings.context(
                settings, fixture.dataSource, fixture.transactionManager, Set.of("task"), listener);
        ArmedTimeouts armed = new ArmedTimeouts(
                wheel, CLOCK, entry -> {}, new RepeatLog(TimerLog.LOGGER, "refusals", 1, System::nanoTime), settings);
        armed.waitForLease();
        armed.hold();
        return new Parts(context.table(), armed, new Retries(context, armed));
    }

    private record Parts(TimeoutTable table, ArmedTimeouts armed, Retries retries) {
        /** A row of (task, key) held by this instance, armed here after {@code attempts} failed runs. */
        Entry held(String key, int attempts) {
            long version = table.upsert("task", key, NOW, "i", null, null);
            armed.arm(new DurableTimeout("task", key, Instant.ofEpochMilli(NOW)), version, attempts, NOW);
            return armed.current("task", key);
        }
    }

    /** The table replaced by one of that name that no statement of the timer can write to. */
    private void tableThatCannotRecord() {
        fixture.jdbc.execute("DROP TABLE " + fixture.table);
        fixture.jdbc.execute("CREATE TABLE " + fixture.table + " (unrelated INT)");
    }

    private Map<String, Object> row(String key) {
        return fixture.row("task", key);
    }

    private static long number(Object value) {
        return ((Number) value).longValue();
    }

    @Test
    void aFailedRunBeforeTheLastIsRetriedAsANewVersionHeldAndArmedHere() {
        Parts parts = parts(fixture.table, Duration.ofMinutes(1));
        Entry entry = parts.held("k", 0);

        boolean recorded = parts.retries().failed(entry, new IllegalStateException("downstream is down"));

        assertThat(recorded).isTrue();
        Map<String, Object> row = row("k");
        assertThat(number(row.get("attempts"))).isEqualTo(1);
        assertThat(number(row.get("version"))).isGreaterThan(entry.version);
        assertThat(number(row.get("due_at"))).isBetween(NOW + RETRY_DELAY * 8 / 10, NOW + RETRY_DELAY * 12 / 10);
        assertThat(row.get("holder")).isEqualTo("i");
        assertThat(row.get("failed_at")).isNull();
        assertThat((String) row.get("last_error")).contains("downstream is down");
        Entry retry = parts.armed().current("task", "k");
        assertThat(retry.version).isEqualTo(number(row.get("version")));
        assertThat(retry.attempts).isEqualTo(1);
        assertThat(wheel.armed.get(wheel.armed.size() - 1).delayMillis).isEqualTo(number(row.get("due_at")) - NOW);
        assertThat(heard).containsExactly("retried task: downstream is down");
    }

    @Test
    void aRetryDueBeyondTheLookaheadIsLeftUnheldForAClaim() {
        Parts parts = parts(fixture.table, Duration.ofSeconds(1));
        Entry entry = parts.held("k", 0);

        assertThat(parts.retries().failed(entry, new IllegalStateException("boom")))
                .isTrue();

        assertThat(row("k").get("holder")).isNull();
        assertThat(parts.armed().current("task", "k")).isNull();
        assertThat(heard).containsExactly("retried task: boom");
    }

    @Test
    void theLastAllowedRunThatFailsGivesTheTimeoutUpWithItsLastError() {
        Parts parts = parts(fixture.table, Duration.ofMinutes(1));
        Entry entry = parts.held("k", 2);

        boolean recorded = parts.retries()
                .failed(entry, new RuntimeException("commit failed", new SQLException("constraint broken")));

        assertThat(recorded).isTrue();
        Map<String, Object> row = row("k");
        assertThat(number(row.get("attempts"))).isEqualTo(3);
        assertThat(number(row.get("failed_at"))).isEqualTo(NOW);
        assertThat(row.get("due_at")).isNull();
        assertThat(row.get("holder")).isNull();
        assertThat((String) row.get("last_error"))
                .as("the error and its cause")
                .contains("commit failed")
                .contains("caused by java.sql.SQLException: constraint broken");
        assertThat(parts.armed().current("task", "k")).isNull();
        assertThat(heard).containsExactly("failed task: commit failed");
    }

    @Test
    void aRowRescheduledWhileItsHandlerRanIsLeftAsItIs() {
        Parts parts = parts(fixture.table, Duration.ofMinutes(1));
        Entry entry = parts.held("k", 0);
        long rescheduled = parts.table().upsert("task", "k", NOW + 60_000, "i", null, null);

        boolean recorded = parts.retries().failed(entry, new IllegalStateException("boom"));

        assertThat(recorded).as("for the caller to reconcile").isFalse();
        Map<String, Object> row = row("k");
        assertThat(number(row.get("version"))).isEqualTo(rescheduled);
        assertThat(number(row.get("attempts"))).isZero();
        assertThat(heard).isEmpty();
    }

    @Test
    void aFailureThatCannotBeRecordedRunsTheSameVersionAgainAfterTheRetryDelay() {
        Parts parts = parts(fixture.table, Duration.ofMinutes(1));
        Entry entry = parts.held("k", 0);
        tableThatCannotRecord();

        boolean recorded = parts.retries().failed(entry, new IllegalStateException("boom"));

        assertThat(recorded).isTrue();
        Entry again = parts.armed().current("task", "k");
        assertThat(again).isNotSameAs(entry);
        assertThat(again.version).isEqualTo(entry.version);
        assertThat(again.attempts)
                .as("counted in memory, recorded with the next failure")
                .isEqualTo(1);
        assertThat(wheel.armed.get(wheel.armed.size() - 1).delayMillis).isEqualTo(RETRY_DELAY);
        assertThat(heard).isEmpty();
    }

    @Test
    void aFailureThatCannotBeRecordedNeverCountsAsTheLastRun() {
        Parts parts = parts(fixture.table, Duration.ofMinutes(1));
        Entry entry = parts.held("k", 2);
        tableThatCannotRecord();

        parts.retries().failed(entry, new IllegalStateException("boom"));

        assertThat(parts.armed().current("task", "k").attempts)
                .as("at most one less than the runs allowed: the next failure gives it up")
                .isEqualTo(2);
    }
}
