package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.internal.RepeatLog;
import io.wheeltimer.jdbc.internal.table.LifeLockStatements;
import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import io.wheeltimer.testsupport.CountingDataSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * One poll, in this order: make sure of the life lock (where the database has one), renew the
 * lease, release what the wheel or the executor refused since the last poll (and then claim
 * nothing: that round is for the instances with room), claim what is due within the lookahead, and
 * after the first successful claim, tidy up (let go of the rows of tasks with no handler here,
 * delete long-expired leases). It claims no more than the runs waiting for a thread leave room for.
 * Read from the statements the poll runs, on each database.
 */
class PollerTest {

    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable each : started) {
            each.close();
        }
    }

    /** The parts a poll calls, on a recording {@code DataSource} of {@code database}. */
    private final class Rig {
        final DurableFixture fixture;
        final CountingDataSource recording;
        final TimerContext context;
        final FakeWheel wheel = new FakeWheel();
        final ArmedTimeouts armed;
        final Firing firing;
        final Poller poller;

        Rig(TestDatabase database, int batchSize, Executor executor) {
            this.fixture = new DurableFixture(database);
            this.recording = CountingDataSource.recording(fixture.dataSource);
            TimerSettings settings =
                    TestSettings.of(fixture.table, Clock.systemUTC(), Duration.ofSeconds(10), 3, batchSize, executor);
            this.context = TestSettings.context(
                    settings,
                    recording,
                    new DataSourceTransactionManager(recording),
                    Set.of("task"),
                    new DurableTimerListener() {});
            this.armed = new ArmedTimeouts(
                    wheel,
                    settings.clock(),
                    entry -> firing().dispatch(entry),
                    new RepeatLog(TimerLog.LOGGER, "refusals", 1, System::nanoTime),
                    settings);
            this.firing = new Firing(context, armed, new Retries(context, armed));
            LifeLock lifeLock = new LifeLock(context, recording);
            this.poller = new Poller(context, armed, firing, new Lease(context), lifeLock, new Housekeeping(context));
            started.add(() -> {
                stopPolling();
                armed.stop();
                lifeLock.release();
                fixture.close();
            });
            armed.waitForLease();
            armed.hold();
        }

        private boolean polling;

        Firing firing() {
            return firing;
        }

        /** Starts polling: the first poll runs at once, and this waits for it. */
        void startPolling() {
            polling = true;
            poller.start();
        }

        void stopPolling() {
            if (polling) {
                polling = false;
                poller.stop();
            }
        }

        TimeoutTable table() {
            return context.table();
        }

        /** A row of {@code key} due now, held by nobody. */
        void due(String key) {
            table().upsert("task", key, System.currentTimeMillis(), null, null, null);
        }

        /** The statements run since the last {@link CountingDataSource#clear()}, in the order they started. */
        List<String> sent() {
            return recording.executed().stream()
                    .map(CountingDataSource.Executed::sql)
                    .toList();
        }

        /** The index of the first statement {@code which} picks, -1 when none. */
        int first(Predicate<String> which) {
            List<String> sent = sent();
            for (int i = 0; i < sent.size(); i++) {
                if (which.test(sent.get(i))) {
                    return i;
                }
            }
            return -1;
        }
    }

    private static final Predicate<String> LEASE = sql ->
            sql.contains("_instances") && (sql.contains("MERGE") || sql.contains("INSERT") || sql.contains("REPLACE"));
    private static final Predicate<String> RELEASE_REFUSED =
            sql -> sql.startsWith("UPDATE") && sql.contains("SET holder = NULL") && sql.contains("version = ?");
    private static final Predicate<String> CLAIM = sql -> sql.contains("SKIP LOCKED") && !LEASE.test(sql);
    private static final Predicate<String> RELEASE_UNHANDLED =
            sql -> sql.contains("SET holder = NULL WHERE holder = ?");
    private static final Predicate<String> DELETE_EXPIRED_LEASES =
            sql -> sql.startsWith("DELETE FROM") && sql.contains("lease_until < ?");

    @ParameterizedTest
    @MethodSource("io.wheeltimer.jdbc.TestDatabase#tested")
    void lockThenLeaseThenClaimThenHousekeeping(TestDatabase database) {
        Rig rig = new Rig(database, 10, Runnable::run);
        rig.due("k");
        LifeLockStatements lock = rig.table().lifeLock();
        rig.recording.clear();

        rig.startPolling();
        rig.stopPolling();

        int lease = rig.first(LEASE);
        int claim = rig.first(CLAIM);
        int tidy = rig.first(RELEASE_UNHANDLED);
        int leasesDeleted = rig.first(DELETE_EXPIRED_LEASES);
        assertThat(lease).as("lease in %s", rig.sent()).isGreaterThanOrEqualTo(0);
        if (lock != null) {
            assertThat(rig.first(sql -> sql.equals(lock.take())))
                    .as("the life lock before the lease")
                    .isBetween(0, lease - 1);
        }
        assertThat(claim).as("claim after the lease").isGreaterThan(lease);
        assertThat(tidy).as("housekeeping after the claim").isGreaterThan(claim);
        assertThat(leasesDeleted).isGreaterThan(tidy);
        assertThat(rig.first(RELEASE_REFUSED))
                .as("nothing refused, nothing released")
                .isEqualTo(-1);
        assertThat(rig.armed.current("task", "k")).as("claimed and armed").isNotNull();
        assertThat(rig.poller.failedPollsInARow()).isZero();
    }

    @ParameterizedTest
    @MethodSource("io.wheeltimer.jdbc.TestDatabase#tested")
    void whatWasRefusedIsReleasedAfterTheLeaseAndThatPollClaimsNothing(TestDatabase database) {
        Rig rig = new Rig(database, 10, Runnable::run);
        long version = rig.table().upsert("task", "refused", System.currentTimeMillis() + 60_000, "i", null, null);
        rig.armed.arm(new DurableTimeout("task", "refused", Instant.now().plusSeconds(60)), version, 0, 0);
        rig.armed.refused(rig.armed.current("task", "refused"));
        rig.due("due");
        rig.recording.clear();

        rig.startPolling();
        rig.stopPolling();

        assertThat(rig.first(RELEASE_REFUSED)).isGreaterThan(rig.first(LEASE));
        assertThat(rig.first(CLAIM)).as("no claim in %s", rig.sent()).isEqualTo(-1);
        assertThat(rig.fixture.holders()).containsEntry("refused", null).containsEntry("due", null);
        assertThat(rig.armed.size()).isZero();
    }

    @ParameterizedTest
    @MethodSource("io.wheeltimer.jdbc.TestDatabase#tested")
    void aPollClaimsNothingWhileTheRunsWaitingForAThreadFillTheBatch(TestDatabase database) {
        List<Runnable> queued = new ArrayList<>();
        Rig rig = new Rig(database, 2, queued::add);
        for (String key : List.of("a", "b")) {
            long version = rig.table().upsert("task", key, System.currentTimeMillis(), "i", null, null);
            rig.armed.arm(new DurableTimeout("task", key, Instant.now()), version, 0, 0);
        }
        rig.wheel.armed.forEach(FakeWheel.FakeTimeout::fire);
        assertThat(rig.firing.waitingForAThread()).isEqualTo(2);
        rig.due("c");
        rig.recording.clear();

        rig.startPolling();
        rig.stopPolling();

        assertThat(rig.first(LEASE)).isGreaterThanOrEqualTo(0);
        assertThat(rig.first(CLAIM)).as("no room, no claim").isEqualTo(-1);
        assertThat(rig.fixture.holders()).containsEntry("c", null);
        assertThat(rig.poller.failedPollsInARow()).isZero();
    }
}
