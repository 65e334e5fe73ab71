package io.wheeltimer.jdbc;

import io.wheeltimer.internal.RepeatLog;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The poll thread: every poll interval it renews this instance's lease (one row per instance,
 * whatever it holds), arms again what the wheel refused, and claims the unheld timeouts of this
 * instance's tasks due within the lookahead (at most {@code batchSize}: those scheduled while no
 * instance held them, and those of instances that stopped or died), arming each. An idle instance
 * runs those two statements a poll. Housekeeping, at the first poll and then hourly, releases the
 * rows an earlier life of this instance id held and deletes the lease rows of long-gone instances.
 *
 * <p>A poll that fails (the database cannot be reached) is logged (throttled), counted for the
 * health, and tried again at the next interval; what this instance holds stays armed meanwhile.
 */
final class Poller {

    private static final System.Logger log = System.getLogger(JdbcDurableTimer.class.getName());

    /** Longest wait in {@link #start()} for the first poll. */
    private static final Duration FIRST_POLL_WAIT = Duration.ofSeconds(5);

    /** Longest wait in {@link #stop()} for a poll in progress. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(10);

    /** How often a poll also deletes the lease rows of instances that are long gone. */
    private static final Duration PURGE_INTERVAL = Duration.ofHours(1);

    private final TimerSettings settings;
    private final ArmedTimeouts armed;
    private final Supplier<TimeoutTable> table;
    private final Transactions transactions;
    private final BooleanSupplier running;
    private final RepeatLog databaseTrouble;
    private final Clock clock;
    private final long pollsPerPurge;

    private ScheduledExecutorService thread;

    // Written by the poll thread only.
    private boolean housekeepingDone;
    private long polls;
    private volatile int failedPollsInARow;
    private volatile Instant lastSuccessfulPoll;

    Poller(
            TimerSettings settings,
            ArmedTimeouts armed,
            Supplier<TimeoutTable> table,
            Transactions transactions,
            BooleanSupplier running,
            RepeatLog databaseTrouble) {
        this.settings = settings;
        this.armed = armed;
        this.table = table;
        this.transactions = transactions;
        this.running = running;
        this.databaseTrouble = databaseTrouble;
        this.clock = settings.clock();
        this.pollsPerPurge =
                Math.max(1, PURGE_INTERVAL.toNanos() / settings.pollInterval().toNanos());
    }

    /** Starts the poll thread; the first poll runs at once, and this waits up to 5 s for it. */
    void start() {
        housekeepingDone = false;
        thread = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "wheel-timer-durable-poll-" + settings.instanceId());
            t.setDaemon(true);
            return t;
        });
        long intervalNanos = settings.pollInterval().toNanos();
        Future<?> firstPoll = thread.submit(this::poll);
        thread.scheduleWithFixedDelay(this::poll, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
        try {
            firstPoll.get(FIRST_POLL_WAIT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // A poll reports its own failures; a slow one goes on in the background.
        }
    }

    /** Stops polling; waits up to 10 s for a poll in progress, then interrupts it. */
    void stop() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(STOP_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        }
        thread = null;
    }

    Optional<Instant> lastSuccessfulPoll() {
        return Optional.ofNullable(lastSuccessfulPoll);
    }

    int failedPollsInARow() {
        return failedPollsInARow;
    }

    /** On the poll thread: renew the lease, then claim what is due soon and unheld. */
    private void poll() {
        if (!running.getAsBoolean()) {
            return;
        }
        try {
            TimeoutTable t = table.get();
            String instanceId = settings.instanceId();
            if (!housekeepingDone || ++polls % pollsPerPurge == 0) {
                long now = clock.millis();
                transactions.template().executeWithoutResult(status -> {
                    if (!housekeepingDone) {
                        // Rows an earlier life of this instance id held (a crash, then a restart with
                        // the same id before its lease ran out) would otherwise stay held by nobody.
                        t.releaseAll(instanceId);
                    }
                    t.deleteExpiredLeases(now - settings.lease().toMillis());
                });
                housekeepingDone = true;
            }
            long now = clock.millis();
            transactions
                    .template()
                    .executeWithoutResult(status ->
                            t.renewLease(instanceId, now + settings.lease().toMillis()));
            if (!running.getAsBoolean()) {
                return;
            }
            armed.hold();
            armed.armWhatTheWheelRefused();
            List<TimeoutTable.Row> claimed = transactions
                    .template()
                    .execute(status ->
                            t.claim(instanceId, now + settings.lookahead().toMillis(), now, settings.batchSize()));
            for (TimeoutTable.Row row : claimed) {
                armed.arm(
                        new DurableTimeout(row.task(), row.key(), Instant.ofEpochMilli(row.deadline())),
                        row.version(),
                        row.attempts(),
                        row.deadline());
            }
            succeeded(now);
        } catch (VirtualMachineError e) {
            failedPollsInARow++;
            throw e;
        } catch (RuntimeException | Error e) {
            // Anything else (a driver's assertion included) fails this poll only: an exception that
            // left this task would end the polling for good.
            int failed = ++failedPollsInARow;
            databaseTrouble.report(
                    () -> "Durable timer " + settings.instanceId() + " could not poll table " + settings.tableName()
                            + " (" + failed + " polls in a row failed); it tries again every "
                            + TimerSettings.format(settings.pollInterval()) + " and keeps what it holds armed",
                    e);
        }
    }

    private void succeeded(long nowMillis) {
        int failedBefore = failedPollsInARow;
        failedPollsInARow = 0;
        lastSuccessfulPoll = Instant.ofEpochMilli(nowMillis);
        if (failedBefore > 0) {
            log.log(
                    System.Logger.Level.INFO,
                    () -> "Durable timer " + settings.instanceId() + " polls table " + settings.tableName()
                            + " again, after " + failedBefore + " failed polls");
        }
    }
}
