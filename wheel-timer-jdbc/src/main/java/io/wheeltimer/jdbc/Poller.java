package io.wheeltimer.jdbc;

import io.wheeltimer.jdbc.internal.table.Claim;
import io.wheeltimer.jdbc.internal.table.HeldVersion;
import io.wheeltimer.jdbc.internal.table.PendingRow;
import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The poll thread: every poll interval it renews this instance's lease (one row per instance,
 * whatever it holds) and claims the timeouts of this instance's tasks due within the lookahead,
 * arming each: those nobody holds (scheduled far ahead, or released), those of instances that
 * died, and its own that are past due by more than a poll interval and not running here (their
 * entry was lost from memory: this is how the cache heals). An idle instance runs those two
 * statements a poll, and where the database has a life lock a third, on the lock's own connection,
 * that asks whether its session still holds it.
 *
 * <p><b>Backpressure.</b> A poll claims no more than this instance can start: at most
 * {@code batchSize}, less the runs waiting for a thread. What the wheel or the executor refused
 * since the last poll is released for the other instances, and that poll claims nothing.
 *
 * <p><b>Catching up.</b> A poll whose claim its limit cut short (it took all it was allowed, or it was
 * allowed nothing while runs wait for threads) may have left rows due within the lookahead. The next
 * poll then runs as soon as no more than half a batch waits for a thread (looked at every
 * {@value #CATCH_UP_CHECK_MILLIS} ms, without a statement), and at the latest a poll interval after
 * the last: more deadlines coming near a second than one batch holds, or a burst due at once, are
 * claimed as fast as this instance starts them, not a batch per poll interval. An idle instance still
 * polls once per interval.
 *
 * <p><b>Housekeeping.</b> The first poll takes back every row this instance id held in an earlier
 * life that is due within the lookahead (a restart after a crash); after its claim, it lets go of the
 * rows this id holds of tasks no handler here knows (an earlier life had that handler: an instance
 * that has it claims them), and deletes the lease rows of long-gone instances. Hourly, on a thread of
 * its own, the rows of tasks that no handler here knows are counted and logged (they are never
 * deleted). Only the lease renewal and the claim can make a poll fail: housekeeping runs after the
 * claim, each statement bounded by the timer's query timeout, and one that fails is logged and tried
 * again later (the first poll's at the next poll, the count after {@link Housekeeping#RETRY}), so
 * that a table of millions of rows of a task nobody handles never stalls the polls.
 *
 * <p><b>The life lock.</b> Each poll first makes sure this instance holds its {@link LifeLock}; one whose
 * session ended while this instance lives may have let the others take what it held, so that poll
 * rebuilds it from the table, as after a lapsed lease.
 *
 * <p>A poll that fails (the database cannot be reached) is logged (throttled), counted for the
 * health, and tried again at the next interval; what this instance holds stays armed meanwhile.
 */
final class Poller {

    private static final System.Logger log = TimerLog.LOGGER;

    /** Longest wait in {@link #start()} for the first poll. */
    private static final Duration FIRST_POLL_WAIT = Duration.ofSeconds(5);

    /** Longest wait in {@link #stop()} for a poll in progress. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(10);

    /** While catching up, how often the poll thread looks whether half a batch of room is free. */
    static final long CATCH_UP_CHECK_MILLIS = 10;

    private final TimerContext context;
    private final TimerSettings settings;
    private final ArmedTimeouts armed;
    private final Firing firing;

    private final LifeLock lifeLock;

    private final Lease lease;
    private final Clock clock;
    private final long intervalNanos;

    private volatile ScheduledThreadPoolExecutor thread;
    /** What the polls leave to after the claim, or to a thread of its own. */
    private final Housekeeping housekeeping;

    // Written by the poll thread only.
    /** Whether a poll claimed as the first one does: all of this id's rows within the lookahead. */
    private boolean firstClaimDone;

    private long lastPollStartNanos;
    private volatile int failedPollsInARow;
    private volatile Instant lastSuccessfulPoll;
    /** {@link System#nanoTime()} at the end of the last successful poll; 0 before the first. */
    private volatile long lastSuccessNanos;

    /**
     * @param lease this instance's lease, renewed at each poll
     * @param lifeLock this instance's life lock, checked before each renewal
     * @param housekeeping what the polls leave to after the claim
     */
    Poller(
            TimerContext context,
            ArmedTimeouts armed,
            Firing firing,
            Lease lease,
            LifeLock lifeLock,
            Housekeeping housekeeping) {
        this.context = context;
        TimerSettings settings = context.settings();
        this.settings = settings;
        this.lifeLock = lifeLock;
        this.lease = lease;
        this.armed = armed;
        this.firing = firing;
        this.clock = settings.clock();
        this.intervalNanos = settings.pollInterval().toNanos();
        this.housekeeping = housekeeping;
    }

    /** Starts the poll thread; the first poll runs at once, and this waits up to 5 s for it. */
    void start() {
        firstClaimDone = false;
        ScheduledThreadPoolExecutor pollThread =
                TimerThreads.single("wheel-timer-durable-poll-" + settings.instanceId());
        housekeeping.start();
        thread = pollThread;
        Future<?> firstPoll = pollThread.submit(this::pollThenPlan);
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
        housekeeping.stop();
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

    /**
     * Whether the polls keep up: the last one succeeded within three poll intervals (at least 2 s,
     * so that a pause of the machine is not an outage) and within half the lease, so that the lease
     * is not at risk. A poll that hangs (a pool that waits for a connection) is late as surely as one
     * that fails.
     */
    boolean isOnTime() {
        long last = lastSuccessNanos;
        if (last == 0) {
            return false;
        }
        long allowed = Math.min(
                Math.max(settings.pollInterval().toNanos() * 3, TimeUnit.SECONDS.toNanos(2)),
                settings.lease().toNanos() / 2);
        return System.nanoTime() - last <= allowed;
    }

    /** The pending rows of tasks no handler here knows, as the last hourly count found them; empty before it. */
    OptionalLong unhandledRows() {
        return housekeeping.unhandledRows();
    }

    int failedPollsInARow() {
        return failedPollsInARow;
    }

    /** On the poll thread: polls, then plans the next poll, at once or after the interval. */
    private void pollThenPlan() {
        lastPollStartNanos = System.nanoTime();
        boolean behind = false;
        try {
            behind = poll();
        } finally {
            if (behind) {
                planNext(this::catchUp, TimeUnit.MILLISECONDS.toNanos(CATCH_UP_CHECK_MILLIS));
            } else {
                planNext(this::pollThenPlan, intervalNanos);
            }
        }
    }

    /** Polls once half a batch of room is free, or a poll interval after the last poll; else looks again soon. */
    private void catchUp() {
        if (firing.waitingForAThread() <= settings.batchSize() / 2
                || System.nanoTime() - lastPollStartNanos >= intervalNanos) {
            pollThenPlan();
        } else {
            planNext(this::catchUp, TimeUnit.MILLISECONDS.toNanos(CATCH_UP_CHECK_MILLIS));
        }
    }

    private void planNext(Runnable next, long delayNanos) {
        ScheduledThreadPoolExecutor pollThread = thread;
        if (pollThread == null || !context.isRunning()) {
            return;
        }
        try {
            pollThread.schedule(next, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // Stopping: no poll after this one.
        }
    }

    /**
     * On the poll thread: renew the lease, release what was refused, then claim what is due soon.
     * Whether its claim was cut short by its limit, so that more may be due within the lookahead.
     */
    private boolean poll() {
        if (!context.isRunning()) {
            return false;
        }
        try {
            TimeoutTable t = context.table();
            String instanceId = settings.instanceId();
            boolean lockLost = lifeLock.check();
            boolean first = !firstClaimDone;
            long now = clock.millis();
            // A lease that ran out before this renewal, or a life lock whose session ended, may have let
            // other instances take what this one held: what memory holds is no longer known to be true,
            // so it is rebuilt from the table.
            boolean lapsed = lease.renew(t, now) | lockLost;
            if (!context.isRunning()) {
                return false;
            }
            if (lapsed) {
                armed.forgetAllBut(entry -> firing.isBusy(entry.id.task(), entry.id.key()));
            }
            armed.hold();
            int limit = settings.batchSize() - firing.waitingForAThread();
            boolean cutByBackpressure = limit <= 0;
            List<ArmedTimeouts.Entry> refused = armed.takeRefused();
            if (!refused.isEmpty()) {
                List<HeldVersion> rows = refused.stream()
                        .map(e -> new HeldVersion(e.id.task(), e.id.key(), e.version))
                        .toList();
                context.transactions().joinedOrOwnNoResult(() -> t.release(rows, instanceId));
                limit = 0; // this round is for the instances with room
                cutByBackpressure = false;
            }
            long dueBefore = now + settings.lookahead().toMillis();
            // The first poll, and the first after a lapsed lease, take back all of this id's rows due
            // within the lookahead; the others only those lost from memory.
            long healBefore =
                    first || lapsed ? dueBefore : now - settings.pollInterval().toMillis();
            int claimLimit = limit;
            Claim claim = context.transactions()
                    .joinedOrOwn(status -> t.claim(instanceId, dueBefore, now, healBefore, claimLimit));
            firstClaimDone = true;
            for (PendingRow row : claim.taken()) {
                if (!firing.isBusy(row.task(), row.key())) {
                    armed.arm(
                            new DurableTimeout(row.task(), row.key(), Instant.ofEpochMilli(row.deadline())),
                            row.version(),
                            row.attempts(),
                            row.dueAt());
                }
            }
            succeeded();
            housekeeping.afterClaim(t, now);
            return cutByBackpressure || claim.full();
        } catch (VirtualMachineError e) {
            failedPollsInARow++;
            throw e;
        } catch (RuntimeException | Error e) {
            // Anything else (a driver's assertion included) fails this poll only: an exception that
            // left this task would end the polling for good.
            int failed = ++failedPollsInARow;
            context.databaseTrouble()
                    .report(
                            () -> "Durable timer " + settings.instanceId() + " could not poll table "
                                    + settings.tableName()
                                    + " (" + failed + " polls in a row failed); it tries again every "
                                    + Durations.format(settings.pollInterval()) + " and keeps what it holds armed",
                            e);
            return false;
        }
    }

    private void succeeded() {
        int failedBefore = failedPollsInARow;
        failedPollsInARow = 0;
        lastSuccessfulPoll = clock.instant();
        lastSuccessNanos = System.nanoTime();
        if (failedBefore > 0) {
            log.log(
                    System.Logger.Level.INFO,
                    () -> "Durable timer " + settings.instanceId() + " polls table " + settings.tableName()
                            + " again, after " + failedBefore + " failed polls");
        }
    }
}
